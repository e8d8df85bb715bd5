/**
 * Bearer access rows of docs/security.md (RFC 6750 §2.1, RFC 6750 §3) that
 * test/integration/bearer-auth.test.ts and agents-permission-matrix.test.ts do not already
 * cover: generated Authorization headers (B03), id and path tricks (B10, on the agent routes
 * that exist in this branch), and method tricks without a token (B11).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { apiRequest, bearer, enrolClient, obtainTokens } from '../helpers/api-client.js';
import { startTestAgent } from '../helpers/test-agent.js';

let agent: TestAgent;
let readToken: string;
let noAgentToken: string;

beforeAll(async () => {
  agent = await startTestAgent();
  readToken = (await obtainTokens(agent, await enrolClient(agent, ['read']))).access_token;
  noAgentToken = (await obtainTokens(agent, await enrolClient(agent, ['policyChange']))).access_token;
});
afterAll(() => agent.stop());

describe('Authorization headers (RFC 6750 §2.1, RFC 6750 §3)', () => {
  it('B03 generated headers: 200 only for "Bearer <the token>" in any case; else 401 with a Bearer challenge or 400; never 5xx, never echoed', async () => {
    const valid = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
    const scheme = fc.constantFrom('Bearer', 'bearer', 'BEARER', 'Basic', 'Token', 'MAC', '', 'Bearer:', 'Bearer\t');
    const credential = fc.oneof(
      fc.constant(readToken),
      fc.constant(`${readToken} ${readToken}`),
      fc.constant(`${readToken}x`),
      fc.constant(readToken.slice(0, -1)),
      fc.string({ unit: 'grapheme-ascii', maxLength: 60 }),
      fc.integer({ min: 1, max: 20_000 }).map((n) => 'a'.repeat(n)),
    );
    const spaces = fc.constantFrom(' ', '  ', '', ' \t');
    await fc.assert(
      fc.asyncProperty(scheme, spaces, credential, spaces, async (s, gap, c, tail) => {
        // HTTP header values cannot hold CR, LF or NUL; a client library would refuse to send them.
        const header = `${s}${gap}${c}${tail}`.replace(/[\r\n\0]/g, '').trim();
        const headers: Record<string, string> = header === '' ? {} : { Authorization: header };
        const res = await apiRequest(agent, { path: '/api/v1/agents', headers }).catch((e: Error) => e);
        if (res instanceof Error) {
          // Only a header Node itself refuses to send (invalid characters) may fail here.
          expect(res.message).toMatch(/Invalid character|header/i);
          return;
        }
        if (res.status === 431) return; // a 20 KB header is over Node's header limit (16 KiB)
        const match = valid.exec(header);
        const expected = match && match[1] === readToken ? 200 : 401;
        expect(res.status, header.slice(0, 80)).toBe(expected);
        if (res.status === 401) {
          expect(String(res.headers['www-authenticate'])).toMatch(/^Bearer realm="[^"]+", error="invalid_token"/);
          expect(res.json?.['error']).toBe('invalid_token');
          if (c.length > 8 && c !== readToken) expect(res.text).not.toContain(c);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('resource ids and paths (docs/security.md B10, B11)', () => {
  const trick = fc.oneof(
    fc.constantFrom(
      '01',
      '1.0',
      '%31',
      '1%2F..',
      '..%2F..%2Fetc%2Fpasswd',
      '18446744073709551616',
      '-1',
      ';x',
      '%00',
      '%2e%2e',
      '*',
      'AGENT-*',
    ),
    fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 20 }).map(encodeURIComponent),
  );
  const pathArb = fc.oneof(
    trick.map((id) => `/api/v1/agents/${id}`),
    fc.constantFrom(
      '/API/V1/agents',
      '/api/v1/agents/',
      '//api/v1/agents',
      '/api/v1//agents',
      '/api/v1/agents;x',
      '/api/v1/agents/.',
      '/api/v1/./agents',
      '/api/v1/agents%2F',
      '/api/v1/%61gents',
    ),
    fc.constant('LOCAL').map(() => `/api/v1/agents/${agent.agentId}`),
    fc.constantFrom('upper', 'lower', 'encoded', 'slash', 'semicolon').map((how) => {
      const id = agent.agentId;
      switch (how) {
        case 'upper':
          return `/api/v1/agents/${id.toUpperCase()}`;
        case 'lower':
          return `/api/v1/agents/${id.toLowerCase()}`;
        case 'encoded':
          return `/api/v1/agents/${[...id].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')}`;
        case 'slash':
          return `/api/v1/agents/${id}/`;
        default:
          return `/api/v1/agents/${id};x`;
      }
    }),
  );

  it('B10 id tricks: a client without agent permission never gets an agent; a Read client gets one only by its exact id; only 400/401/404/405', async () => {
    await fc.assert(
      fc.asyncProperty(pathArb, fc.constantFrom('GET', 'HEAD'), async (path, method) => {
        const denied = await apiRequest(agent, { method, path, headers: bearer(noAgentToken) });
        expect([400, 401, 404, 405]).toContain(denied.status);
        expect(denied.text).not.toContain(agent.agentId);

        const reader = await apiRequest(agent, { method, path, headers: bearer(readToken) });
        expect([200, 400, 401, 404, 405]).toContain(reader.status);
        if (reader.status === 200) {
          const decoded = decodeURIComponent(path);
          expect(['/api/v1/agents', `/api/v1/agents/${agent.agentId}`]).toContain(decoded);
        }
      }),
      { numRuns: 150 },
    );
  });

  it.each(['HEAD', 'OPTIONS', 'PATCH', 'PUT', 'DELETE', 'POST'])(
    'B11 %s without a token: 401 with a challenge, no data',
    async (method) => {
      for (const path of ['/api/v1/agents', `/api/v1/agents/${agent.agentId}`]) {
        const res = await apiRequest(agent, { method, path, headers: { 'X-HTTP-Method-Override': 'GET' } });
        expect(res.status).toBe(401);
        expect(String(res.headers['www-authenticate'])).toMatch(/^Bearer /);
        expect(res.text).not.toContain(agent.agentId);
      }
    },
  );

  it('B11 X-HTTP-Method-Override is ignored: a GET stays a GET, a POST is not turned into a GET', async () => {
    const get = await apiRequest(agent, {
      path: '/api/v1/agents',
      headers: { ...bearer(readToken), 'X-HTTP-Method-Override': 'DELETE' },
    });
    expect(get.status).toBe(200);
    const post = await apiRequest(agent, {
      method: 'POST',
      path: '/api/v1/agents',
      headers: { ...bearer(readToken), 'X-HTTP-Method-Override': 'GET', 'X-Method-Override': 'GET' },
    });
    // POST /agents registers an agent (Modify agent): the Read token is refused as for a POST,
    // where a GET would have listed the agents.
    expect(post.status).toBe(401);
    expect(post.json?.['error']).toBe('insufficient_permission');
    expect(post.text).not.toContain(agent.agentId);
  });
});
