/**
 * No control character a client sends reaches the agent log raw (docs/security.md F12): an
 * escape sequence in a client id would clear or forge the terminal of whoever tails the log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { createLogger } from '../../agent/log/logger.js';
import { apiRequest, FORM } from '../helpers/api-client.js';
import { startTestAgent } from '../helpers/test-agent.js';

let agent: TestAgent;
const lines: string[] = [];
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

beforeAll(async () => {
  agent = await startTestAgent({ log: createLogger({ level: 'debug', write: (line) => lines.push(line) }) });
});
afterAll(() => agent.stop());

describe('control characters from clients in the log', () => {
  it('Basic credentials with ESC in the client id: 401 invalid_client, and no log line holds a raw ESC', async () => {
    const before = lines.length;
    const forged = '\u001b[2J\u001b[1;31mFAKE';
    const response = await apiRequest(agent, {
      method: 'POST',
      path: '/api/v1/token',
      headers: { ...FORM, Authorization: `Basic ${Buffer.from(`${forged}:x`).toString('base64')}` },
      body: 'grant_type=client_credentials',
    });
    expect(response.status).toBe(401);
    expect(response.json?.['error']).toBe('invalid_client');
    const logged = lines.slice(before);
    for (const line of logged) expect(line).not.toMatch(RAW_CONTROL);
  });

  it('a C1 control (CSI) and a line separator in a body client id are logged escaped', async () => {
    const before = lines.length;
    // The form parser refuses C0 controls; C1 ones and U+2028 pass it and name an unknown client.
    const clientId = 'evil\u009b2J\u2028INFO forged';
    const response = await apiRequest(agent, {
      method: 'POST',
      path: '/api/v1/token',
      headers: FORM,
      body: new URLSearchParams({ grant_type: 'refresh_token', client_id: clientId, refresh_token: 'x' }).toString(),
    });
    expect(response.status).toBe(401);
    const logged = lines.slice(before);
    const refused = logged.find((line) => line.includes('token request refused'));
    expect(refused).toBeDefined();
    expect(refused).toContain('clientId="evil\\u009b2J\\u2028INFO forged"');
    for (const line of logged) expect(line).not.toMatch(RAW_CONTROL);
  });
});
