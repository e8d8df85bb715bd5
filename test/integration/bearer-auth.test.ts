/**
 * Bearer authentication of the agent API (RFC 6750, docs/authentication.md): missing, malformed, unknown,
 * expired or revoked tokens get 401 with `WWW-Authenticate: Bearer … error="invalid_token"`
 * and the JSON error body; permission changes and revocation apply to the very next request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { MemoryChangeRecorder } from '../../agent/pipeline/change-recorder.js';
import {
  apiRequest,
  bearer,
  enrolClient,
  obtainTokens,
  tokenRequest,
  type ApiResponse,
} from '../helpers/api-client.js';
import { startTestAgent } from '../helpers/test-agent.js';

let agent: TestAgent;
const changes = new MemoryChangeRecorder();

beforeAll(async () => {
  agent = await startTestAgent({ changeRecorder: changes });
});
afterAll(() => agent.stop());

function expectInvalidToken(response: ApiResponse): void {
  expect(response.status).toBe(401);
  expect(response.json?.['error']).toBe('invalid_token');
  expect(typeof response.json?.['error_description']).toBe('string');
  expect(response.headers['www-authenticate']).toMatch(/^Bearer realm="vigil", error="invalid_token"/);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
}

const agents = (headers: Record<string, string> = {}, path = '/api/v1/agents'): Promise<ApiResponse> =>
  apiRequest(agent, { path, headers });

describe('bearer authentication', () => {
  it('refuses a request without a token', async () => {
    expectInvalidToken(await agents());
  });

  it.each([
    ['Bearer', 'Bearer'],
    ['two tokens', 'Bearer a b'],
    ['bad characters', 'Bearer <script>'],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['a token-shaped guess', `Bearer vgl_at_${'A'.repeat(49)}`],
    ['a huge token', `Bearer ${'a'.repeat(8000)}`],
  ])('refuses %s', async (_label, header) => {
    expectInvalidToken(await agents({ Authorization: header }));
  });

  it('accepts the scheme name in any case (RFC 9110 §11.1)', async () => {
    const { access_token } = await obtainTokens(agent, await enrolClient(agent, ['read']));
    expect((await agents({ Authorization: `bearer ${access_token}` })).status).toBe(200);
    expect((await agents({ Authorization: `BEARER ${access_token}` })).status).toBe(200);
  });

  it('does not take a token from the URL, and refuses two places at once', async () => {
    const { access_token } = await obtainTokens(agent, await enrolClient(agent, ['read']));
    expectInvalidToken(await agents({}, `/api/v1/agents?access_token=${access_token}`));
    const both = await agents(bearer(access_token), `/api/v1/agents?access_token=${access_token}`);
    expect(both.status).toBe(400);
  });

  it('answers unknown paths and other methods with 401 before anything else when unauthenticated', async () => {
    expectInvalidToken(await agents({}, '/api/v1/no-such-thing'));
    expectInvalidToken(await apiRequest(agent, { method: 'DELETE', path: '/api/v1/agents' }));
    expectInvalidToken(await apiRequest(agent, { method: 'OPTIONS', path: '/api/v1/agents' }));
  });

  it('answers unknown paths with 404 and wrong methods with 405 once authenticated', async () => {
    const { access_token } = await obtainTokens(agent, await enrolClient(agent, ['read']));
    expect((await agents(bearer(access_token), '/api/v1/no-such-thing')).status).toBe(404);
    // (POST registers an agent; PUT is a method the collection does not have.)
    const put = await apiRequest(agent, { method: 'PUT', path: '/api/v1/agents', headers: bearer(access_token) });
    expect(put.status).toBe(405);
    expect(put.headers['allow']).toBe('GET, HEAD, POST');
  });
});

describe('changes to the client apply to the next request', () => {
  it('a permission change needs no new token', async () => {
    const client = await enrolClient(agent, ['modifyHost']);
    const { access_token } = await obtainTokens(agent, client);
    expect((await agents(bearer(access_token))).status).toBe(401);
    await agent.auth.clients.setPermissions(client.clientId, ['accessActivityData'], 'console');
    const limited = await agents(bearer(access_token));
    expect(limited.status).toBe(200);
    expect(JSON.parse(limited.text)[0]).not.toHaveProperty('apiServerIpWhitelist');
    await agent.auth.clients.setPermissions(client.clientId, ['read'], 'console');
    expect(JSON.parse((await agents(bearer(access_token))).text)[0]).toHaveProperty('apiServerIpWhitelist');
  });

  it('revoking a client kills its access and refresh tokens at once, and its secret', async () => {
    const client = await enrolClient(agent, ['read'], 'to be revoked');
    const first = await obtainTokens(agent, client);
    const second = await obtainTokens(agent, client);
    expect((await agents(bearer(first.access_token))).status).toBe(200);
    await agent.auth.clients.revoke(client.clientId, 'console');
    expectInvalidToken(await agents(bearer(first.access_token)));
    expectInvalidToken(await agents(bearer(second.access_token)));
    const refresh = await tokenRequest(agent, {
      grant_type: 'refresh_token',
      client_id: client.clientId,
      refresh_token: second.refresh_token,
    });
    expect(refresh.status).toBe(401); // the client no longer exists: invalid_client
    const again = await tokenRequest(agent, {
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: client.clientSecret,
    });
    expect(again.json?.['error']).toBe('invalid_client');
    expect(changes.changes.at(-1)).toMatchObject({
      actor: 'console',
      action: 'Removed',
      objectType: 'Client application',
      what: 'to be revoked',
    });
  });

  it('regenerating the secret stops the old one and revokes the tokens issued with it (docs/security.md F13)', async () => {
    const client = await enrolClient(agent, ['read']);
    const tokens = await obtainTokens(agent, client);
    const fresh = await agent.auth.clients.regenerateSecret(client.clientId, 'console');
    const old = await tokenRequest(agent, {
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: client.clientSecret,
    });
    expect(old.json?.['error']).toBe('invalid_client');
    const renewed = await tokenRequest(agent, {
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: fresh.clientSecret,
    });
    expect(renewed.status).toBe(200);
    expect((await agents(bearer(tokens.access_token))).status).toBe(401);
    expect((await agents(bearer(renewed.json?.['access_token'] as string))).status).toBe(200);
  });
});
