/**
 * RFC 6749 compliance of `POST /api/v1/token` against a running agent over HTTPS. Each case
 * quotes the sentence of the RFC it checks. Departures decided in docs/authentication.md are marked
 * "Vigil:" with the reason (docs/authentication.md lists them).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { startTestAgent } from '../helpers/test-agent.js';
import {
  apiRequest,
  basic,
  bearer,
  enrolClient,
  FORM,
  obtainTokens,
  tokenRequest,
  type ApiResponse,
  type EnrolledClient,
} from '../helpers/api-client.js';

let agent: TestAgent;
let client: EnrolledClient;
let other: EnrolledClient;

beforeAll(async () => {
  agent = await startTestAgent();
  client = await enrolClient(agent, ['read']);
  other = await enrolClient(agent, ['read']);
});
afterAll(() => agent.stop());

const credentials = (c: EnrolledClient = client): Record<string, string> => ({
  grant_type: 'client_credentials',
  client_id: c.clientId,
  client_secret: c.clientSecret,
});

function rawToken(body: string, headers: Record<string, string> = FORM, path = '/api/v1/token'): Promise<ApiResponse> {
  return apiRequest(agent, { method: 'POST', path, headers, body });
}

/** RFC 6749 §5.2: the body and status of an error response. */
function expectError(response: ApiResponse, status: number, error: string): void {
  expect({ status: response.status, error: response.json?.['error'] }).toEqual({ status, error });
  expect(typeof response.json?.['error_description']).toBe('string');
  // RFC 6749 §5.2: "Values for the "error_description" parameter MUST NOT include characters outside the
  // set %x20-21 / %x23-5B / %x5D-7E."
  expect(response.json?.['error_description']).toMatch(/^[\x20\x21\x23-\x5b\x5d-\x7e]*$/);
  // RFC 6749 §5.1 applies to every answer of this endpoint here (credentials may have been sent).
  expect(response.headers['cache-control']).toBe('no-store');
}

describe('RFC 6749 §4.4 client credentials grant', () => {
  // RFC 6749 §4.4.2: "grant_type REQUIRED. Value MUST be set to "client_credentials"."
  // RFC 6749 §5.1: "The authorization server issues an access token and optional refresh token, and
  // constructs the response by adding the following parameters to the entity-body of the HTTP
  // response with a 200 (OK) status code"
  it('issues access_token, token_type, expires_in and refresh_token with 200', async () => {
    const response = await tokenRequest(agent, credentials());
    expect(response.status).toBe(200);
    expect(Object.keys(response.json ?? {}).sort()).toEqual([
      'access_token',
      'expires_in',
      'refresh_token',
      'token_type',
    ]);
    expect(response.json).toMatchObject({ token_type: 'bearer', expires_in: 604800 });
    expect(response.json?.['access_token']).toMatch(/^vgl_at_[0-9A-Za-z]{49}$/);
    expect(response.json?.['refresh_token']).toMatch(/^vgl_rt_[0-9A-Za-z]{49}$/);
  });

  // RFC 6749 §5.1: "The parameters are included in the entity-body of the HTTP response using the
  // "application/json" media type as defined by [RFC4627]."
  it('answers application/json', async () => {
    const response = await tokenRequest(agent, credentials());
    expect(response.headers['content-type']).toMatch(/^application\/json/);
  });

  // RFC 6749 §5.1: "The authorization server MUST include the HTTP "Cache-Control" response header field
  // [RFC2616] with a value of "no-store" in any response containing tokens, credentials, or
  // other sensitive information, as well as the "Pragma" response header field [RFC2616] with
  // a value of "no-cache"."
  it('sends Cache-Control: no-store and Pragma: no-cache', async () => {
    const response = await tokenRequest(agent, credentials());
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['pragma']).toBe('no-cache');
  });

  // RFC 6749 §4.4.3: "If the access token request is valid and authorized, the authorization server
  // issues an access token" — and the token it issues works on the resource server.
  it('issues a token the agent API accepts, different on every request', async () => {
    const first = await obtainTokens(agent, client);
    const second = await obtainTokens(agent, client);
    expect(first.access_token).not.toBe(second.access_token);
    const response = await apiRequest(agent, { path: '/api/v1/agents', headers: bearer(first.access_token) });
    expect(response.status).toBe(200);
  });
});

describe('RFC 6749 §2.3 client authentication', () => {
  // RFC 6749 §2.3.1: "The authorization server MUST support the HTTP Basic authentication scheme for
  // authenticating clients that were issued a client password."
  it('accepts HTTP Basic', async () => {
    const response = await tokenRequest(
      agent,
      { grant_type: 'client_credentials' },
      basic(client.clientId, client.clientSecret),
    );
    expect(response.status).toBe(200);
  });

  // RFC 6749 §2.3.1: "The client identifier is encoded using the "application/x-www-form-urlencoded"
  // encoding algorithm per Appendix B, and the encoded value is used as the username; the
  // client password is encoded using the same algorithm and used as the password."
  it('form-decodes the Basic user name and password', async () => {
    const escaped = [...client.clientId].map((ch) => `%${ch.charCodeAt(0).toString(16)}`).join('');
    const header = `Basic ${Buffer.from(`${escaped}:${client.clientSecret}`).toString('base64')}`;
    const response = await tokenRequest(agent, { grant_type: 'client_credentials' }, { Authorization: header });
    expect(response.status).toBe(200);
  });

  // RFC 6749 §2.3.1: "Alternatively, the authorization server MAY support including the client
  // credentials in the request-body using the following parameters: client_id ... client_secret"
  it('accepts client_id and client_secret in the body', async () => {
    expect((await tokenRequest(agent, credentials())).status).toBe(200);
  });

  // RFC 6749 §2.3: "The client MUST NOT use more than one authentication method in each request."
  it('refuses Basic and body credentials together with invalid_request', async () => {
    const response = await tokenRequest(agent, credentials(), basic(client.clientId, client.clientSecret));
    expectError(response, 400, 'invalid_request');
  });

  // RFC 6749 §2.3.1: "The parameters can only be transmitted in the request-body and MUST NOT be
  // included in the request URI."
  it('refuses credentials in the URL', async () => {
    const query = new URLSearchParams({ client_secret: client.clientSecret }).toString();
    const response = await rawToken(
      new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId }).toString(),
      FORM,
      `/api/v1/token?${query}`,
    );
    expectError(response, 400, 'invalid_request');
  });
});

describe('RFC 6749 §5.2 error responses', () => {
  // invalid_client: "Client authentication failed (e.g., unknown client, no client
  // authentication included, or unsupported authentication method). The authorization server
  // MAY return an HTTP 401 (Unauthorized) status code to indicate which HTTP authentication
  // schemes are supported."
  it('answers an unknown client and a wrong secret alike: 401 invalid_client with WWW-Authenticate', async () => {
    const unknown = await tokenRequest(agent, { ...credentials(), client_id: '0'.repeat(32) });
    const wrong = await tokenRequest(agent, { ...credentials(), client_secret: other.clientSecret });
    for (const response of [unknown, wrong]) {
      expectError(response, 401, 'invalid_client');
      expect(response.headers['www-authenticate']).toMatch(/^Basic realm="vigil"/);
    }
    expect(unknown.json).toEqual(wrong.json); // nothing tells which client ids exist
  });

  // invalid_client: "If the client attempted to authenticate via the "Authorization" request
  // header field, the authorization server MUST respond with an HTTP 401 (Unauthorized) status
  // code and include the "WWW-Authenticate" response header field matching the authentication
  // scheme used by the client."
  it('answers failed Basic authentication with 401 and a Basic challenge', async () => {
    const response = await tokenRequest(
      agent,
      { grant_type: 'client_credentials' },
      basic(client.clientId, 'vgl_cs_wrong'),
    );
    expectError(response, 401, 'invalid_client');
    expect(response.headers['www-authenticate']).toMatch(/^Basic /);
  });

  it('answers a request without any client authentication with invalid_client', async () => {
    const response = await tokenRequest(agent, { grant_type: 'client_credentials' });
    expectError(response, 401, 'invalid_client');
    expect(response.headers['www-authenticate']).toBeDefined();
  });

  // invalid_request: "The request is missing a required parameter, includes an unsupported
  // parameter value (other than grant type), repeats a parameter, includes multiple
  // credentials, utilizes more than one mechanism for authenticating the client, or is
  // otherwise malformed."
  it('answers a missing grant_type with invalid_request', async () => {
    const { grant_type: _omitted, ...rest } = credentials();
    expectError(await tokenRequest(agent, rest), 400, 'invalid_request');
  });

  it.each(['grant_type', 'client_secret', 'client_id'])('answers a repeated %s with invalid_request', async (name) => {
    const params = new URLSearchParams(credentials());
    params.append(name, params.get(name)!);
    const response = await rawToken(params.toString());
    expectError(response, 400, 'invalid_request');
    expect(response.json?.['field']).toBe(name);
  });

  it.each([
    ['a JSON body', 'application/json', JSON.stringify({ grant_type: 'client_credentials' })],
    ['a text body', 'text/plain', 'grant_type=client_credentials'],
    ['no content type', '', 'grant_type=client_credentials'],
  ])('answers %s with invalid_request', async (_label, type, body) => {
    const response = await rawToken(body, type === '' ? {} : { 'Content-Type': type });
    expectError(response, 400, 'invalid_request');
  });

  it.each(['grant_type=%ZZ', 'grant_type=client%00credentials', 'client_id%5B%5D=x&grant_type=client_credentials'])(
    'answers the malformed body %s with a 4xx error, never 500',
    async (body) => {
      const response = await rawToken(body);
      expect([400, 401]).toContain(response.status);
      expect(['invalid_request', 'invalid_client']).toContain(response.json?.['error']);
    },
  );

  // RFC 6749 §3.2: "Parameters sent without a value MUST be treated as if they were omitted from the
  // request."
  it('treats an empty grant_type as missing', async () => {
    expectError(await tokenRequest(agent, { ...credentials(), grant_type: '' }), 400, 'invalid_request');
  });

  // RFC 6749 §3.2: "The authorization server MUST ignore unrecognized request parameters."
  it('ignores unknown parameters', async () => {
    expect((await tokenRequest(agent, { ...credentials(), foo: 'bar' })).status).toBe(200);
  });

  // unsupported_grant_type: "The authorization grant type is not supported by the
  // authorization server."
  it.each(['password', 'authorization_code', 'CLIENT_CREDENTIALS', 'urn:ietf:params:oauth:grant-type:jwt-bearer'])(
    'answers grant_type=%s with unsupported_grant_type',
    async (grantType) => {
      expectError(
        await tokenRequest(agent, { ...credentials(), grant_type: grantType }),
        400,
        'unsupported_grant_type',
      );
    },
  );

  // invalid_scope: "The requested scope is invalid, unknown, malformed, or exceeds the scope
  // granted by the resource owner." Vigil: permissions are set on the client, so any scope is refused.
  it('answers a scope with invalid_scope', async () => {
    expectError(await tokenRequest(agent, { ...credentials(), scope: 'admin' }), 400, 'invalid_scope');
  });

  // RFC 6749 §3.2: "The client MUST use the HTTP "POST" method when making access token requests."
  // RFC 9110 §15.5.6: a 405 "MUST generate an Allow header field".
  it.each(['GET', 'PUT', 'DELETE'])('answers %s with 405 and Allow: POST', async (method) => {
    const response = await apiRequest(agent, { method, path: '/api/v1/token' });
    expect(response.status).toBe(405);
    expect(response.headers['allow']).toContain('POST');
  });

  it('refuses an oversized body with 413 while it streams', async () => {
    const response = await rawToken(`grant_type=client_credentials&pad=${'x'.repeat(64 * 1024)}`);
    expect(response.status).toBe(413);
  });
});

describe('RFC 6749 §6 refreshing an access token', () => {
  const refresh = (token: string, c: EnrolledClient = client, withSecret = true): Promise<ApiResponse> =>
    tokenRequest(agent, {
      grant_type: 'refresh_token',
      refresh_token: token,
      client_id: c.clientId,
      ...(withSecret ? { client_secret: c.clientSecret } : {}),
    });

  // RFC 6749 §6: "If valid and authorized, the authorization server issues an access token as
  // described in Section 5.1."
  // RFC 6749 §6: "The authorization server MAY issue a new refresh token, in which case the client MUST
  // discard the old refresh token and replace it with the new refresh token."
  it('issues a new access token and a new refresh token (rotation)', async () => {
    const first = await obtainTokens(agent, client);
    const response = await refresh(first.refresh_token);
    expect(response.status).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json).toMatchObject({ token_type: 'bearer', expires_in: 604800 });
    expect(response.json?.['refresh_token']).not.toBe(first.refresh_token);
    const access = response.json?.['access_token'] as string;
    expect((await apiRequest(agent, { path: '/api/v1/agents', headers: bearer(access) })).status).toBe(200);
  });

  // Vigil (docs/authentication.md): the secret enrols for 72 h and the refresh token is the long-lived
  // credential, so the refresh grant accepts client_id without the secret. This departs from
  // RFC 6749 §6 "require client authentication for confidential clients"; rotation and reuse detection
  // (RFC 9700 §4.14.2) protect the refresh token instead.
  it('accepts client_id without the secret, by body or by Basic with an empty password', async () => {
    const first = await obtainTokens(agent, client);
    const second = await refresh(first.refresh_token, client, false);
    expect(second.status).toBe(200);
    const third = await tokenRequest(
      agent,
      { grant_type: 'refresh_token', refresh_token: second.json?.['refresh_token'] as string },
      basic(client.clientId, ''),
    );
    expect(third.status).toBe(200);
  });

  // RFC 6749 §6: "validate the refresh token" / RFC 6749 §5.2 invalid_grant: "The provided authorization grant
  // (e.g., authorization code, resource owner credentials) or refresh token is invalid,
  // expired, revoked, does not match the redirection URI used in the authorization request, or
  // was issued to another client."
  it('answers an unknown refresh token with invalid_grant', async () => {
    expectError(await refresh('vgl_rt_' + 'A'.repeat(49)), 400, 'invalid_grant');
    expectError(await refresh('not-a-token'), 400, 'invalid_grant');
  });

  // RFC 6749 §6: "ensure that the refresh token was issued to the authenticated client"
  it('answers a refresh token of another client with invalid_grant', async () => {
    const theirs = await obtainTokens(agent, other);
    expectError(await refresh(theirs.refresh_token, client), 400, 'invalid_grant');
    // and the rightful owner's token still works afterwards
    expect((await refresh(theirs.refresh_token, other)).status).toBe(200);
  });

  // RFC 6749 §10.4: "If a refresh token is compromised and subsequently used by both the attacker and
  // the legitimate client, one of them will present an invalidated refresh token, which will
  // inform the authorization server of the breach." RFC 9700 §4.14.2: revoke the family.
  it('treats a second use of a refresh token as a breach: invalid_grant and the whole family revoked', async () => {
    const first = await obtainTokens(agent, client);
    const rotated = await refresh(first.refresh_token);
    expect(rotated.status).toBe(200);
    expectError(await refresh(first.refresh_token), 400, 'invalid_grant');
    // the tokens issued by the rotation are dead too
    const newAccess = rotated.json?.['access_token'] as string;
    const afterBreach = await apiRequest(agent, { path: '/api/v1/agents', headers: bearer(newAccess) });
    expect(afterBreach.status).toBe(401);
    expectError(await refresh(rotated.json?.['refresh_token'] as string), 400, 'invalid_grant');
    expect((await apiRequest(agent, { path: '/api/v1/agents', headers: bearer(first.access_token) })).status).toBe(401);
  });

  // RFC 6749 §6: "refresh_token REQUIRED."
  it('answers a refresh request without refresh_token with invalid_request', async () => {
    const response = await tokenRequest(agent, { grant_type: 'refresh_token', client_id: client.clientId });
    expectError(response, 400, 'invalid_request');
  });

  it('answers a refresh with a wrong secret with invalid_client', async () => {
    const first = await obtainTokens(agent, client);
    const response = await tokenRequest(agent, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
      client_id: client.clientId,
      client_secret: other.clientSecret,
    });
    expectError(response, 401, 'invalid_client');
  });

  // A refresh token is not an access token and the reverse (docs/authentication.md).
  it('does not take an access token as a refresh token, nor a refresh token as a bearer token', async () => {
    const tokens = await obtainTokens(agent, client);
    expectError(await refresh(tokens.access_token), 400, 'invalid_grant');
    const response = await apiRequest(agent, { path: '/api/v1/agents', headers: bearer(tokens.refresh_token) });
    expect(response.status).toBe(401);
  });
});
