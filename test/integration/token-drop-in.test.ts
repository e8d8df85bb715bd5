/**
 * The token endpoint takes the sample requests of docs/authentication.md unchanged
 * (docs/authentication.md): its PowerShell sample labels a form body
 * `application/json`, its curl sample posts the form with `-d`. A real JSON body stays refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { apiRequest, bearer, enrolClient, FORM, type EnrolledClient } from '../helpers/api-client.js';
import { startTestAgent } from '../helpers/test-agent.js';

let agent: TestAgent;
let client: EnrolledClient;

beforeAll(async () => {
  agent = await startTestAgent();
  client = await enrolClient(agent, ['read']);
});
afterAll(() => agent.stop());

const post = (headers: Record<string, string>, body: string) =>
  apiRequest(agent, { method: 'POST', path: '/api/v1/token', headers, body });

describe('the sample requests of docs/authentication.md', () => {
  it("PowerShell: Invoke-RestMethod -ContentType 'application/json' -Body 'grant_type=client_credentials&client_id=…&client_secret=…' gets tokens", async () => {
    // What Invoke-RestMethod sends for that sample: the string body as it is, labelled JSON.
    const body = `grant_type=client_credentials&client_id=${client.clientId}&client_secret=${client.clientSecret}`;
    const response = await post({ 'Content-Type': 'application/json' }, body);
    expect(response.status, response.text).toBe(200);
    expect(response.json).toMatchObject({ token_type: 'bearer', expires_in: 604800 });
    const access = response.json?.['access_token'] as string;
    expect((await apiRequest(agent, { path: '/api/v1/agents', headers: bearer(access) })).status).toBe(200);
  });

  it("curl -X POST -d 'client_id=…&client_secret=…&grant_type=client_credentials' gets tokens", async () => {
    const body = `client_id=${client.clientId}&client_secret=${client.clientSecret}&grant_type=client_credentials`;
    const response = await post(FORM, body);
    expect(response.status, response.text).toBe(200);
    expect(response.json?.['access_token']).toMatch(/^vgl_at_/);
  });

  it.each([
    ['an object', (c: EnrolledClient) => JSON.stringify({ grant_type: 'client_credentials', client_id: c.clientId })],
    ['an array after white space', () => ' \n [{"grant_type":"client_credentials"}]'],
  ])('a real JSON body (%s) labelled application/json stays 400 invalid_request', async (_label, build) => {
    const response = await post({ 'Content-Type': 'application/json; charset=utf-8' }, build(client));
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ error: 'invalid_request' });
    expect(response.json?.['error_description']).toMatch(/JSON/);
  });
});
