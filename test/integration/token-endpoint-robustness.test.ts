/**
 * "Never a 500 for client mistakes" (docs/security.md, T18): random form bodies, content
 * types and Authorization headers against the running token endpoint always get a 4xx from
 * RFC 6749 §5.2's set (or a 200 when they happen to be valid), always with no-store.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { apiRequest, enrolClient, type EnrolledClient } from '../helpers/api-client.js';
import { startTestAgent } from '../helpers/test-agent.js';

let agent: TestAgent;
let client: EnrolledClient;
beforeAll(async () => {
  agent = await startTestAgent();
  client = await enrolClient(agent, ['read']);
});
afterAll(() => agent.stop());

const ERRORS = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unsupported_grant_type',
  'invalid_scope',
]);

it('answers any form body with 200 or a RFC 6749 §5.2 error, never 5xx', async () => {
  const name = fc.oneof(
    fc.constantFrom('grant_type', 'client_id', 'client_secret', 'refresh_token', 'scope', 'client_id[]', '__proto__'),
    fc.string({ maxLength: 12 }),
  );
  const value = fc.oneof(
    fc.constantFrom('client_credentials', 'refresh_token', client.clientId, client.clientSecret, '', '%', '%ZZ', '+'),
    fc.string({ maxLength: 40 }),
  );
  const body = fc.oneof(
    fc.array(fc.tuple(name, value), { maxLength: 6 }).map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&')),
    fc.string({ maxLength: 200 }),
  );
  const type = fc.constantFrom(
    'application/x-www-form-urlencoded',
    'application/x-www-form-urlencoded; charset=latin1',
    'application/json',
    'text/plain',
    '',
  );
  const authorization = fc.oneof(
    fc.constant(''),
    fc.constantFrom('Basic', 'Basic !!!', 'Bearer x', 'basic ' + Buffer.from(`${client.clientId}:`).toString('base64')),
    fc.string({ maxLength: 30 }).map((s) => `Basic ${Buffer.from(s).toString('base64')}`),
  );
  await fc.assert(
    fc.asyncProperty(body, type, authorization, async (b, t, a) => {
      const headers: Record<string, string> = {};
      if (t !== '') headers['Content-Type'] = t;
      if (a !== '') headers['Authorization'] = a;
      const response = await apiRequest(agent, { method: 'POST', path: '/api/v1/token', headers, body: b });
      expect([200, 400, 401, 413]).toContain(response.status);
      expect(response.headers['cache-control']).toBe('no-store');
      if (response.status !== 200 && response.status !== 413) {
        expect(ERRORS.has(response.json?.['error'] as string)).toBe(true);
      }
    }),
    { numRuns: 150 },
  );
});
