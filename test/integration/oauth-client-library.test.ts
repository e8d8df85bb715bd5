/**
 * A third-party OAuth 2.0 client, simple-oauth2 (npm), obtains and refreshes tokens from a
 * running agent over HTTPS, trusting only the agent's self-signed certificate, with both of
 * its client authentication methods (HTTP Basic and body parameters).
 */
import https from 'node:https';
import { ClientCredentials } from 'simple-oauth2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { apiRequest, bearer, enrolClient, type EnrolledClient } from '../helpers/api-client.js';
import { startTestAgent } from '../helpers/test-agent.js';

let agent: TestAgent;
let client: EnrolledClient;
let tlsAgent: https.Agent;

beforeAll(async () => {
  agent = await startTestAgent();
  client = await enrolClient(agent, ['read'], 'simple-oauth2');
  tlsAgent = new https.Agent({ ca: agent.identity.certPem });
});
afterAll(async () => {
  tlsAgent.destroy();
  await agent.stop();
});

function oauthClient(authorizationMethod: 'header' | 'body'): ClientCredentials {
  return new ClientCredentials({
    client: { id: client.clientId, secret: client.clientSecret },
    auth: { tokenHost: agent.urls().apiUrl, tokenPath: '/api/v1/token' },
    options: { authorizationMethod },
    http: { agent: tlsAgent },
  });
}

describe('simple-oauth2 against the agent', () => {
  it.each(['header', 'body'] as const)(
    'obtains a token (client authentication by %s) that the API accepts',
    async (method) => {
      const accessToken = await oauthClient(method).getToken({});
      expect(accessToken.token['token_type']).toBe('bearer');
      expect(accessToken.token['expires_in']).toBe(604800);
      expect(accessToken.expired()).toBe(false);
      const expiresAt = accessToken.token['expires_at'] as Date;
      expect(expiresAt.getTime() - Date.now()).toBeGreaterThan(604800_000 - 60_000);
      const response = await apiRequest(agent, {
        path: '/api/v1/agents',
        headers: bearer(accessToken.token['access_token'] as string),
      });
      expect(response.status).toBe(200);
    },
  );

  it('refreshes with the library and gets a rotated refresh token', async () => {
    const first = await oauthClient('header').getToken({});
    const second = await first.refresh();
    expect(second.token['refresh_token']).not.toBe(first.token['refresh_token']);
    const response = await apiRequest(agent, {
      path: `/api/v1/agents/${agent.agentId}`,
      headers: bearer(second.token['access_token'] as string),
    });
    expect(response.status).toBe(200);
  });

  it('surfaces the RFC 6749 error of a wrong secret', async () => {
    const wrong = new ClientCredentials({
      client: { id: client.clientId, secret: 'vgl_cs_not-the-secret' },
      auth: { tokenHost: agent.urls().apiUrl, tokenPath: '/api/v1/token' },
      http: { agent: tlsAgent },
    });
    const failure = await wrong.getToken({}).then(
      () => null,
      (error: { output?: { statusCode: number }; data?: { payload?: unknown } }) => error,
    );
    expect(failure?.output?.statusCode).toBe(401);
    expect(failure?.data?.payload).toMatchObject({ error: 'invalid_client' });
  });
});
