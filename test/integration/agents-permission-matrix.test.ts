/**
 * The permission matrix over HTTP for the agent resource: every permission set (from the same
 * table as the engine's unit matrix) × list / get the local agent / get an unknown id, against a
 * running agent. Checks the views (limited = no Detailed Only attribute), the collection rule
 * and the 401 rule with its WWW-Authenticate challenge.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { AGENT_DETAILED_ONLY } from '../../shared/agent-resource.js';
import type { Permission } from '../../shared/permissions.js';
import { apiRequest, bearer, enrolClient, obtainTokens, type ApiResponse } from '../helpers/api-client.js';
import { allPermissionSets, expectedView, label } from '../helpers/permission-table.js';
import { startTestAgent } from '../helpers/test-agent.js';

let agent: TestAgent;
const tokens = new Map<string, string>();

beforeAll(async () => {
  agent = await startTestAgent();
  for (const set of allPermissionSets()) {
    const client = await enrolClient(agent, set, `matrix ${label(set)}`);
    tokens.set(label(set), (await obtainTokens(agent, client)).access_token);
  }
});
afterAll(() => agent.stop());

function get(set: readonly Permission[], path: string): Promise<ApiResponse> {
  return apiRequest(agent, { path, headers: bearer(tokens.get(label(set))!) });
}

function expectInsufficient(response: ApiResponse): void {
  expect(response.status).toBe(401);
  expect(response.json?.['error']).toBe('insufficient_permission');
  expect(response.headers['www-authenticate']).toMatch(/^Bearer realm="vigil", error="insufficient_permission"/);
}

function expectView(body: Record<string, unknown>, view: 'detailed' | 'limited'): void {
  expect(body['id']).toBe(agent.agentId);
  for (const key of AGENT_DETAILED_ONLY) expect(key in body).toBe(view === 'detailed');
}

describe.each(allPermissionSets().map((set) => [label(set), set] as const))('permissions %s', (_name, set) => {
  const local = expectedView(set, 'agent', 'local');
  const other = expectedView(set, 'agent', 'other');

  it(`GET /api/v1/agents → ${local ? `the local agent, ${local}` : '401'}`, async () => {
    const response = await get(set, '/api/v1/agents');
    if (!local && !other) return expectInsufficient(response);
    expect(response.status).toBe(200);
    const list = JSON.parse(response.text) as Array<Record<string, unknown>>;
    expect(list).toHaveLength(local ? 1 : 0);
    if (local) expectView(list[0]!, local);
  });

  it(`GET /api/v1/agents/{local id} → ${local ?? '401'}`, async () => {
    const response = await get(set, `/api/v1/agents/${agent.agentId}`);
    if (!local) return expectInsufficient(response);
    expect(response.status).toBe(200);
    expectView(response.json!, local);
  });

  it(`GET /api/v1/agents/{unknown id} → ${other ? '404' : '401'}`, async () => {
    const response = await get(set, '/api/v1/agents/AGENT-000000000000');
    if (!other) return expectInsufficient(response);
    expect(response.status).toBe(404);
    expect(response.json?.['error']).toBe('not_found');
  });
});

it('links in the agent resource are absolute and point back at it', async () => {
  const response = await get(['read'], `/api/v1/agents/${agent.agentId}`);
  const url = response.json?.['url'] as string;
  expect(url).toBe(`https://127.0.0.1:${agent.ports.api}/api/v1/agents/${agent.agentId}`);
  expect(response.json?.['monitoredHostsUrl']).toBe(`${url}/hosts`);
  expect(response.json).toMatchObject({ apiServerPort: agent.ports.api, installState: 'Installed' });
  const self = await get(['read'], new URL(url).pathname);
  expect(self.json).toEqual(response.json);
});
