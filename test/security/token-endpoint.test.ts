/**
 * Token endpoint and refresh rows of docs/security.md (F11; docs/authentication.md)
 * that test/integration/token-endpoint-*.test.ts, credential-lifetimes.test.ts
 * and test/unit/token-service.test.ts do not already cover. Each test names its row and rule.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { CREDENTIAL_PREFIX, looksLikeCredential } from '../../agent/auth/credential-format.js';
import { createLogger } from '../../agent/log/logger.js';
import {
  apiRequest,
  bearer,
  enrolClient,
  FORM,
  obtainTokens,
  tokenRequest,
  type ApiResponse,
  type EnrolledClient,
} from '../helpers/api-client.js';
import { startTestAgent } from '../helpers/test-agent.js';

const DAY = 24 * 3600_000;
let agent: TestAgent;
let clock = Date.parse('2026-03-01T12:00:00Z');
const logLines: string[] = [];

beforeAll(async () => {
  agent = await startTestAgent({
    now: () => clock,
    log: createLogger({ level: 'debug', write: (line) => logLines.push(line) }),
  });
});
afterAll(() => agent.stop());

const credentials = (c: EnrolledClient): Record<string, string> => ({
  grant_type: 'client_credentials',
  client_id: c.clientId,
  client_secret: c.clientSecret,
});
const raw = (body: string, path = '/api/v1/token'): Promise<ApiResponse> =>
  apiRequest(agent, { method: 'POST', path, headers: FORM, body });
const refresh = (c: EnrolledClient, token: string, extra: Record<string, string> = {}): Promise<ApiResponse> =>
  tokenRequest(agent, { grant_type: 'refresh_token', client_id: c.clientId, refresh_token: token, ...extra });

describe('client authentication (RFC 6749 §2.3, RFC 6749 §5.2)', () => {
  it('T04 unknown client and wrong secret: one answer, the reason in the server log only, never a secret', async () => {
    const client = await enrolClient(agent, ['read']);
    const before = logLines.length;
    const unknown = await tokenRequest(agent, { ...credentials(client), client_id: 'f'.repeat(32) });
    const wrong = await tokenRequest(agent, { ...credentials(client), client_secret: 'vgl_cs_wrong' });
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(unknown.text).toBe(wrong.text); // one answer for both: no client id enumeration
    const lines = logLines.slice(before).join('\n');
    expect(lines).toMatch(/token request refused .*reason=unknown_client/);
    expect(lines).toMatch(/token request refused .*reason=wrong_secret/);
    expect(lines).not.toContain(client.clientSecret);
    expect(lines).not.toContain('vgl_cs_wrong');
  });

  it('T11 bracketed names are not arrays or objects: client_id[], client_secret[x] and grant_type[0] are unknown parameters', async () => {
    const client = await enrolClient(agent, ['read']);
    const id = encodeURIComponent(client.clientId);
    const secret = encodeURIComponent(client.clientSecret);
    // The credentials under bracketed names are ignored (RFC 6749 §3.2), so there is no client authentication.
    const bracketed = await raw(`grant_type=client_credentials&client_id[]=${id}&client_secret[x]=${secret}`);
    expect(bracketed.status).toBe(401);
    expect(bracketed.json?.['error']).toBe('invalid_client');
    const grant = await raw(`grant_type[0]=client_credentials&client_id=${id}&client_secret=${secret}`);
    expect(grant.status).toBe(400);
    expect(grant.json).toMatchObject({ error: 'invalid_request', field: 'grant_type' });
  });

  it('T13 credentials in the query string: 400 invalid_request, and the secret appears in no log line', async () => {
    const client = await enrolClient(agent, ['read']);
    const before = logLines.length;
    const response = await raw(
      `grant_type=client_credentials&client_id=${client.clientId}`,
      `/api/v1/token?client_secret=${encodeURIComponent(client.clientSecret)}`,
    );
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ error: 'invalid_request', field: 'client_secret' });
    expect(response.text).not.toContain(client.clientSecret);
    expect(logLines.slice(before).join('\n')).not.toContain(client.clientSecret);
  });

  it('T19 brute force: 20 wrong secrets in a row lock nobody out (decided: 256-bit secrets, no lockout); other clients unaffected', async () => {
    const victim = await enrolClient(agent, ['read']);
    const other = await enrolClient(agent, ['read']);
    for (let i = 0; i < 20; i++) {
      const refused = await tokenRequest(agent, { ...credentials(victim), client_secret: `vgl_cs_guess${i}` });
      expect(refused.status).toBe(401);
    }
    expect((await tokenRequest(agent, credentials(victim))).status).toBe(200);
    expect((await tokenRequest(agent, credentials(other))).status).toBe(200);
  });

  it('T20 issued tokens: all distinct, typed prefixes with a valid checksum, access and refresh never confusable', async () => {
    const client = await enrolClient(agent, ['read']);
    const issued = await Promise.all(Array.from({ length: 200 }, () => obtainTokens(agent, client)));
    const all = issued.flatMap((t) => [t.access_token, t.refresh_token]);
    expect(new Set(all).size).toBe(400);
    for (const { access_token, refresh_token } of issued) {
      expect(access_token.startsWith(CREDENTIAL_PREFIX.access)).toBe(true);
      expect(refresh_token.startsWith(CREDENTIAL_PREFIX.refresh)).toBe(true);
      expect(looksLikeCredential(access_token, 'access')).toBe(true);
      expect(looksLikeCredential(refresh_token, 'refresh')).toBe(true);
      expect(looksLikeCredential(access_token, 'refresh')).toBe(false);
      // 43 base62 characters of randomness: at least 256 bits (RFC 6749 §10.10 asks for ≥ 128).
      expect(access_token.length - CREDENTIAL_PREFIX.access.length).toBe(49);
    }
  });
});

describe('refresh tokens (RFC 6749 §6, RFC 9700 §4.14.2)', () => {
  it('R05 a refresh asking for a scope is refused with invalid_scope, and the refresh token stays usable', async () => {
    const client = await enrolClient(agent, ['read']);
    const tokens = await obtainTokens(agent, client);
    const scoped = await refresh(client, tokens.refresh_token, { scope: 'read modify-agent' });
    expect(scoped.status).toBe(400);
    expect(scoped.json?.['error']).toBe('invalid_scope');
    expect((await refresh(client, tokens.refresh_token)).status).toBe(200);
  });

  it('R07 two parallel refreshes with one token: at most one succeeds, and the family ends (no grace window, decided)', async () => {
    const client = await enrolClient(agent, ['read']);
    const tokens = await obtainTokens(agent, client);
    const [a, b] = await Promise.all([refresh(client, tokens.refresh_token), refresh(client, tokens.refresh_token)]);
    const statuses = [a.status, b.status].sort();
    expect(statuses).toEqual([200, 400]);
    const winner = (a.status === 200 ? a : b).json as { access_token: string; refresh_token: string };
    expect((a.status === 400 ? a : b).json?.['error']).toBe('invalid_grant');
    // The reuse revoked the whole family, the winner's new tokens included.
    expect((await apiRequest(agent, { path: '/api/v1/agents', headers: bearer(winner.access_token) })).status).toBe(
      401,
    );
    expect((await refresh(client, winner.refresh_token)).json?.['error']).toBe('invalid_grant');
    // Other families of the same client are untouched.
    const fresh = await obtainTokens(agent, client);
    expect((await apiRequest(agent, { path: '/api/v1/agents', headers: bearer(fresh.access_token) })).status).toBe(200);
  });
});

describe('clock jumps (docs/security.md, F11)', () => {
  it('F11 the clock goes back a day and forward eight: tokens stay valid until their own expiry; expires_in is never negative', async () => {
    const client = await enrolClient(agent, ['read']);
    const tokens = await obtainTokens(agent, client);
    const use = (token: string): Promise<ApiResponse> =>
      apiRequest(agent, { path: '/api/v1/agents', headers: bearer(token) });
    const start = clock;
    try {
      clock = start - DAY;
      expect((await use(tokens.access_token)).status).toBe(200);
      const back = await tokenRequest(agent, credentials(client));
      expect(back.status).toBe(200);
      expect(back.json?.['expires_in']).toBe(604800);
      clock = start + 8 * DAY;
      expect((await use(tokens.access_token)).status).toBe(401);
      expect((await use(back.json?.['access_token'] as string)).status).toBe(401); // issued at start − 1 d
      const refreshed = await refresh(client, tokens.refresh_token);
      expect(refreshed.status).toBe(200);
      expect(refreshed.json?.['expires_in']).toBe(604800);
      expect((await use(refreshed.json?.['access_token'] as string)).status).toBe(200);
    } finally {
      clock = start;
    }
  });
});

describe('generated form bodies (RFC 6749 §3.2, RFC 6749 §5.2; docs/security.md T17, T18)', () => {
  const ERRORS = new Set([
    'invalid_request',
    'invalid_client',
    'invalid_grant',
    'unsupported_grant_type',
    'invalid_scope',
  ]);
  // RFC 6749 §5.2: error and error_description use %x20-21 / %x23-5B / %x5D-7E only.
  const RFC_TEXT = /^[\x20-\x21\x23-\x5B\x5D-\x7E]*$/;

  it('T17/T18 random and badly encoded bodies: a RFC 6749 §5.2 error or 200, no-store, RFC-safe text, no secret or refresh token echoed', async () => {
    const client = await enrolClient(agent, ['read']);
    const tokens = await obtainTokens(agent, client);
    const secrets = [client.clientSecret, tokens.refresh_token, tokens.access_token];
    const encodings = fc.constantFrom('%ZZ', '%C0%AF', '%ED%A0%80', '%00', '%FF%FE', '%E0%A4', '%', '+', '%2B', '%25');
    const value = fc.oneof(
      fc.constantFrom('client_credentials', 'refresh_token', client.clientId, ...secrets, ''),
      fc.string({ unit: 'binary', maxLength: 30 }).map((s) => encodeURIComponent(s.replace(/[\uD800-\uDFFF]/g, ''))),
      fc.array(encodings, { minLength: 1, maxLength: 3 }).map((parts) => parts.join('x')),
      fc.constantFrom(...secrets).map((s) => encodeURIComponent(s)),
    );
    const name = fc.constantFrom(
      'grant_type',
      'client_id',
      'client_secret',
      'refresh_token',
      'scope',
      'access_token',
      'grant_type[]',
      'x',
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(name, value), { maxLength: 6 }), async (pairs) => {
        const body = pairs.map(([k, v]) => `${k}=${v}`).join('&');
        const response = await raw(body);
        expect([200, 400, 401]).toContain(response.status);
        expect(response.headers['cache-control']).toBe('no-store');
        expect(response.headers['pragma']).toBe('no-cache');
        expect(response.json).toBeDefined();
        if (response.status !== 200) {
          expect(ERRORS.has(response.json!['error'] as string)).toBe(true);
          expect(response.json!['error_description']).toMatch(RFC_TEXT);
          for (const secret of secrets) expect(response.text).not.toContain(secret);
        } else {
          // A success hands out new tokens, never one that was sent.
          for (const secret of secrets) expect(response.text).not.toContain(secret);
        }
      }),
      { numRuns: 150 },
    );
  });
});
