/**
 * The signing key of a running agent (docs/integrity.md): created owner-only at first start,
 * shown read-only in the agent resource and in the console's status, and the agent's own
 * changes (recorded while it runs) verify against it after shutdown.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { agentViewSchema } from '../../agent/api/schemas/agent-schemas.js';
import type { ConsoleStatus } from '../../shared/console-api.js';
import { consoleRequest, withToken } from '../helpers/console-client.js';
import { call, conforms } from '../helpers/resource-client.js';
import { runVigil } from '../helpers/cli.js';
import { startTestAgent } from '../helpers/test-agent.js';

let agent: TestAgent;
let keyFile: string;
let fingerprint: string;

beforeAll(async () => {
  agent = await startTestAgent();
  keyFile = path.join(agent.paths.secrets, 'chain-signing-key.pem');
  const publicKey = crypto.createPublicKey(crypto.createPrivateKey(fs.readFileSync(keyFile)));
  const der = publicKey.export({ format: 'der', type: 'spki' });
  fingerprint = crypto
    .createHash('sha256')
    .update(der.subarray(der.length - 32))
    .digest('hex');
});
afterAll(() => agent.stop());

describe('the chain signing key', () => {
  it('is created owner-only in secrets/', () => {
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
  });

  it('is in the agent resource, read-only', async () => {
    const url = `/api/v1/agents/${agent.agentId}`;
    const view = conforms(agentViewSchema, (await call(agent, ['read'], 'GET', url)).json);
    expect(view.signingKey?.fingerprint).toBe(fingerprint);
    expect(view.signingKey?.publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    const patch = await call(agent, ['modifyAgent'], 'PATCH', url, { body: { signingKey: null } });
    expect([patch.status, patch.json?.['field']]).toEqual([400, 'signingKey']);
  });

  it("is in the console's status", async () => {
    const response = await consoleRequest(agent, { path: '/api/status', headers: withToken(agent) });
    expect((JSON.parse(response.text) as ConsoleStatus).signingKeySha256).toBe(fingerprint);
  });

  it("checks the agent's records with the published public key alone, after shutdown", async () => {
    const url = `/api/v1/agents/${agent.agentId}`;
    const view = conforms(agentViewSchema, (await call(agent, ['read'], 'GET', url)).json);
    // A change through the API is itself a record.
    expect((await call(agent, ['modifyAgent'], 'PATCH', url, { body: { comment: 'signed' } })).status).toBe(200);
    await agent.stop();
    const pem = path.join(agent.dataDir, 'published.pem');
    fs.writeFileSync(pem, view.signingKey!.publicKey);
    const run = await runVigil(['verify', '--data-dir', agent.dataDir, '--public-key', pem]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { verified: Array<{ from: number; to: number }> };
    expect(report.verified.length).toBe(1);
  });
});
