/**
 * Regenerating a client secret revokes every token issued to the client (docs/security.md F13,
 * docs/authentication.md): a secret is regenerated because it leaked, and whoever held it may
 * have obtained tokens with it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { apiRequest, bearer, enrolClient, obtainTokens, tokenRequest } from '../helpers/api-client.js';
import { startTestAgent } from '../helpers/test-agent.js';

let agent: TestAgent;

beforeAll(async () => {
  agent = await startTestAgent();
});
afterAll(() => agent.stop());

describe('regenerating a client secret', () => {
  it('the old access token gets 401 and the old refresh token invalid_grant; the new secret enrols again', async () => {
    const client = await enrolClient(agent, ['read']);
    const bystander = await enrolClient(agent, ['read']);
    const old = await obtainTokens(agent, client);
    const kept = await obtainTokens(agent, bystander);
    expect((await apiRequest(agent, { path: '/api/v1/agents', headers: bearer(old.access_token) })).status).toBe(200);

    const regenerated = await agent.auth.clients.regenerateSecret(client.clientId, 'test');

    const access = await apiRequest(agent, { path: '/api/v1/agents', headers: bearer(old.access_token) });
    expect(access.status).toBe(401);
    expect(access.headers['www-authenticate']).toMatch(/error="invalid_token"/);
    const refreshed = await tokenRequest(agent, {
      grant_type: 'refresh_token',
      client_id: client.clientId,
      refresh_token: old.refresh_token,
    });
    expect(refreshed.status).toBe(400);
    expect(refreshed.json?.['error']).toBe('invalid_grant');
    // The client itself stays: the new secret gets working tokens.
    const fresh = await obtainTokens(agent, { clientId: client.clientId, clientSecret: regenerated.clientSecret });
    expect((await apiRequest(agent, { path: '/api/v1/agents', headers: bearer(fresh.access_token) })).status).toBe(200);
    // Other clients are untouched.
    expect((await apiRequest(agent, { path: '/api/v1/agents', headers: bearer(kept.access_token) })).status).toBe(200);
  });
});
