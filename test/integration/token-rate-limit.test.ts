/**
 * The token endpoint's limits per client (docs/security.md F6), over HTTPS against a real agent:
 * 600 token requests a minute per client, then 429 with Retry-After in the RFC 6749 §5.2 body
 * shape; failed authentications do not use up a client's allowance; a refresh revokes the
 * access token it replaces.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { TOKEN_REQUESTS_PER_CLIENT } from '../../agent/auth/token-rate-limit.js';
import {
  apiRequest,
  bearer,
  enrolClient,
  obtainTokens,
  tokenRequest,
  type EnrolledClient,
} from '../helpers/api-client.js';
import { startTestAgent } from '../helpers/test-agent.js';

let agent: TestAgent;

beforeAll(async () => {
  agent = await startTestAgent();
});
afterAll(() => agent.stop());

const grant = (c: EnrolledClient) =>
  tokenRequest(agent, { grant_type: 'client_credentials', client_id: c.clientId, client_secret: c.clientSecret });

describe('token endpoint limits per client', () => {
  it(`after ${TOKEN_REQUESTS_PER_CLIENT} tokens in a minute a client gets 429 slow_down with Retry-After; other clients do not`, async () => {
    const busy = await enrolClient(agent, ['read']);
    const other = await enrolClient(agent, ['read']);
    // Wrong secrets first: they count for nothing (no one can use up a client's allowance by its id).
    for (let i = 0; i < 20; i++) {
      expect((await grant({ ...busy, clientSecret: `vgl_cs_wrong${i}` })).status).toBe(401);
    }
    for (let done = 0; done < TOKEN_REQUESTS_PER_CLIENT; done += 50) {
      const batch = await Promise.all(Array.from({ length: 50 }, () => grant(busy)));
      expect(batch.map((r) => r.status)).toEqual(Array(50).fill(200));
    }
    const refused = await grant(busy);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Object.keys(refused.json ?? {}).sort()).toEqual(['error', 'error_description']);
    expect(refused.json?.['error']).toBe('slow_down');
    expect(refused.headers['cache-control']).toBe('no-store');
    const tokens = await obtainTokens(agent, other);
    // A refresh of the busy client waits too; the other client's does not.
    const refreshOther = await tokenRequest(agent, {
      grant_type: 'refresh_token',
      client_id: other.clientId,
      refresh_token: tokens.refresh_token,
    });
    expect(refreshOther.status).toBe(200);
  }, 120_000);

  it('a refresh revokes the access token it replaces', async () => {
    const client = await enrolClient(agent, ['read']);
    const first = await obtainTokens(agent, client);
    const rotated = await tokenRequest(agent, {
      grant_type: 'refresh_token',
      client_id: client.clientId,
      refresh_token: first.refresh_token,
    });
    expect(rotated.status).toBe(200);
    expect((await apiRequest(agent, { path: '/api/v1/agents', headers: bearer(first.access_token) })).status).toBe(401);
    const access = rotated.json?.['access_token'] as string;
    expect((await apiRequest(agent, { path: '/api/v1/agents', headers: bearer(access) })).status).toBe(200);
  });
});
