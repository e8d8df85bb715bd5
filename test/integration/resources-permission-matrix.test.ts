/**
 * Every resource route of the agent API × every permission set (32), over real HTTPS, against
 * the independent table in test/helpers/permission-table.ts (docs/permissions.md):
 * collections keep what the client may see, a resource named by id that it may not see is 401
 * (404 only when it could see such a resource), limited views lack the Detailed Only
 * attributes, and writes are allowed only to the permission that changes the kind. Writes here
 * send bodies that fail validation (or name unknown ids), so a permitted client gets 400 / 404
 * and nothing changes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { localHostType, logFileBaseName } from '../../agent/config/monitoring-schema.js';
import { utcDay } from '../../agent/outputs/log-file-names.js';
import type { Locality, ResourceKind } from '../../shared/permission-engine.js';
import {
  AGENT_DETAILED_ONLY,
  DOMAIN_DETAILED_ONLY,
  HOST_DETAILED_ONLY,
  POLICY_DETAILED_ONLY,
} from '../../shared/detailed-only.js';
import type { Permission } from '../../shared/permissions.js';
import type { ApiResponse } from '../helpers/api-client.js';
import {
  allPermissionSets,
  expectedDownload,
  expectedView,
  expectedWrite,
  label,
} from '../helpers/permission-table.js';
import { call } from '../helpers/resource-client.js';
import { startTestAgent } from '../helpers/test-agent.js';

let agent: TestAgent;
const ids = { local: '', remote: '', host: '', output: '', domain: '', domainOutput: '', policy: '', file: '' };

beforeAll(async () => {
  agent = await startTestAgent();
  const { resources } = agent;
  ids.local = agent.agentId;
  ids.remote = (await resources.agents.register({ host: 'peer.example.test' }, 'test')).id;
  const host = agent.settings.current.hosts[0]!;
  ids.host = host.id;
  const output = agent.settings.current.outputs[0]!;
  ids.output = output.id;
  ids.domain = (
    await resources.domains.add({ name: 'corp.example.com', ldapServer: 'ldaps://dc.corp.example.com' }, 'test')
  ).id;
  ids.domainOutput = (await resources.outputs.create({ domainId: ids.domain }, { type: 'LogFile' }, 'test')).id;
  ids.policy = (await resources.policies.create(ids.domain, { name: 'LDAP Monitor', xml: '<Policy/>' }, 'test')).id;
  ids.file = `${logFileBaseName(output, host)}_Log_${utcDay(Date.now())}.tsv`;
  fs.mkdirSync(agent.paths.logs, { recursive: true });
  fs.writeFileSync(path.join(agent.paths.logs, ids.file), '2026-01-01T00:00:00.000Z\tx\t1\tAdd\tFILE\t/a\t\t\tx\\y\n', {
    flag: 'a',
  });
});
afterAll(() => agent.stop());

function expectInsufficient(response: ApiResponse, what: string): void {
  expect({ what, status: response.status, error: response.json?.['error'] }).toEqual({
    what,
    status: 401,
    error: 'insufficient_permission',
  });
  expect(response.headers['www-authenticate']).toMatch(/^Bearer realm="vigil", error="insufficient_permission"/);
}

function expectViewOf(
  body: Record<string, unknown>,
  view: 'detailed' | 'limited',
  detailedOnly: readonly string[],
  what: string,
): void {
  for (const key of detailedOnly)
    expect({ what, key, present: key in body }).toEqual({ what, key, present: view === 'detailed' });
}

interface ById {
  path: () => string;
  kind: ResourceKind;
  locality: Locality;
  detailedOnly?: readonly string[];
  /** Only the detailed view may read it (status histories of hosts). */
  detailedOnlyRoute?: boolean;
}

interface Listing {
  path: () => string;
  /** The kind that decides whether the route answers at all (the container's rules). */
  guard: { kind: ResourceKind; locality: Locality };
  /** The route also needs the client to see the agent in its path (a registered agent is "other"). */
  seesAgent?: Locality;
  /** The kind and locality of each item in the answer. */
  items: () => Array<{ kind: ResourceKind; locality: Locality; detailedOnly?: readonly string[] }>;
}

const BY_ID: Record<string, ById> = {
  'agent (local)': {
    path: () => `/api/v1/agents/${ids.local}`,
    kind: 'agent',
    locality: 'local',
    detailedOnly: AGENT_DETAILED_ONLY,
  },
  'agent (registered)': {
    path: () => `/api/v1/agents/${ids.remote}`,
    kind: 'agent',
    locality: 'other',
    detailedOnly: AGENT_DETAILED_ONLY,
  },
  'agent host': {
    path: () => `/api/v1/agents/${ids.local}/hosts/${ids.host}`,
    kind: 'host',
    locality: 'local',
    detailedOnly: HOST_DETAILED_ONLY,
  },
  'agent domain': {
    path: () => `/api/v1/agents/${ids.local}/domain`,
    kind: 'domain',
    locality: 'local',
    detailedOnly: DOMAIN_DETAILED_ONLY,
  },
  host: { path: () => `/api/v1/hosts/${ids.host}`, kind: 'host', locality: 'local', detailedOnly: HOST_DETAILED_ONLY },
  'host status history': {
    path: () => `/api/v1/hosts/${ids.host}/statusHistory`,
    kind: 'host',
    locality: 'local',
    detailedOnlyRoute: true,
  },
  'host output': { path: () => `/api/v1/hosts/${ids.host}/outputs/${ids.output}`, kind: 'output', locality: 'local' },
  'output status history': {
    path: () => `/api/v1/hosts/${ids.host}/outputs/${ids.output}/statusHistory`,
    kind: 'output',
    locality: 'local',
  },
  output: { path: () => `/api/v1/outputs/${ids.output}`, kind: 'output', locality: 'local' },
  domain: {
    path: () => `/api/v1/domains/${ids.domain}`,
    kind: 'domain',
    locality: 'local',
    detailedOnly: DOMAIN_DETAILED_ONLY,
  },
  'domain output': {
    path: () => `/api/v1/domains/${ids.domain}/outputs/${ids.domainOutput}`,
    kind: 'output',
    locality: 'local',
  },
  policy: {
    path: () => `/api/v1/domains/${ids.domain}/policies/${ids.policy}`,
    kind: 'policy',
    locality: 'local',
    detailedOnly: POLICY_DETAILED_ONLY,
  },
  // Unknown ids count as "other": 404 only for a client that could see another agent's resource.
  'unknown agent': { path: () => '/api/v1/agents/AGENT-000000000000', kind: 'agent', locality: 'other' },
  'unknown host': { path: () => '/api/v1/hosts/no-such-host', kind: 'host', locality: 'other' },
  'unknown output': { path: () => '/api/v1/outputs/no-such-output', kind: 'output', locality: 'other' },
  'unknown domain': { path: () => '/api/v1/domains/NOPE', kind: 'domain', locality: 'other' },
  'unknown policy': { path: () => `/api/v1/domains/${ids.domain}/policies/nope`, kind: 'policy', locality: 'other' },
  'unknown log listing': { path: () => '/api/v1/logs/no-such-output', kind: 'logFile', locality: 'other' },
};

const local = (kind: ResourceKind, detailedOnly?: readonly string[]) => ({
  kind,
  locality: 'local' as const,
  ...(detailedOnly ? { detailedOnly } : {}),
});

const LISTINGS: Record<string, Listing> = {
  agents: {
    path: () => '/api/v1/agents',
    guard: { kind: 'agent', locality: 'local' },
    items: () => [
      local('agent', AGENT_DETAILED_ONLY),
      { kind: 'agent', locality: 'other', detailedOnly: AGENT_DETAILED_ONLY },
    ],
  },
  'agent hosts (local)': {
    path: () => `/api/v1/agents/${ids.local}/hosts`,
    guard: { kind: 'host', locality: 'local' },
    items: () => [local('host', HOST_DETAILED_ONLY)],
  },
  'agent hosts (registered)': {
    path: () => `/api/v1/agents/${ids.remote}/hosts`,
    guard: { kind: 'host', locality: 'other' },
    seesAgent: 'other',
    items: () => [],
  },
  hosts: {
    path: () => '/api/v1/hosts',
    guard: { kind: 'host', locality: 'local' },
    items: () => [local('host', HOST_DETAILED_ONLY)],
  },
  'host agents': {
    path: () => `/api/v1/hosts/${ids.host}/agents`,
    guard: { kind: 'host', locality: 'local' },
    items: () => [local('agent', AGENT_DETAILED_ONLY)],
  },
  'host outputs': {
    path: () => `/api/v1/hosts/${ids.host}/outputs`,
    guard: { kind: 'output', locality: 'local' },
    items: () => [local('output')],
  },
  outputs: {
    path: () => '/api/v1/outputs',
    guard: { kind: 'output', locality: 'local' },
    items: () => [local('output'), local('output')],
  },
  domains: {
    path: () => '/api/v1/domains',
    guard: { kind: 'domain', locality: 'local' },
    items: () => [local('domain', DOMAIN_DETAILED_ONLY)],
  },
  'domain agents': {
    path: () => `/api/v1/domains/${ids.domain}/agents`,
    guard: { kind: 'domain', locality: 'local' },
    items: () => [local('agent', AGENT_DETAILED_ONLY)],
  },
  'domain outputs': {
    path: () => `/api/v1/domains/${ids.domain}/outputs`,
    guard: { kind: 'output', locality: 'local' },
    items: () => [local('output')],
  },
  policies: {
    path: () => `/api/v1/domains/${ids.domain}/policies`,
    guard: { kind: 'policy', locality: 'local' },
    items: () => [local('policy', POLICY_DETAILED_ONLY)],
  },
  'log files': {
    path: () => `/api/v1/logs/${ids.output}`,
    guard: { kind: 'logFile', locality: 'local' },
    items: () => [local('logFile')],
  },
};

/** Writes that fail after the permission check: 400 (bad body) or 404 (unknown id) when permitted. */
const WRITES: Array<{
  name: string;
  method: string;
  path: () => string;
  body?: unknown;
  kind: ResourceKind;
  permitted: number;
}> = [
  { name: 'register agent', method: 'POST', path: () => '/api/v1/agents', body: {}, kind: 'agent', permitted: 400 },
  {
    name: 'patch local agent',
    method: 'PATCH',
    path: () => `/api/v1/agents/${ids.local}`,
    body: { id: 'x' },
    kind: 'agent',
    permitted: 400,
  },
  {
    name: 'patch registered agent',
    method: 'PATCH',
    path: () => `/api/v1/agents/${ids.remote}`,
    body: { id: 'x' },
    kind: 'agent',
    permitted: 400,
  },
  {
    name: 'delete unknown agent',
    method: 'DELETE',
    path: () => '/api/v1/agents/AGENT-000000000000',
    kind: 'agent',
    permitted: 404,
  },
  {
    name: 'add host',
    method: 'POST',
    path: () => `/api/v1/agents/${ids.local}/hosts`,
    body: {},
    kind: 'host',
    permitted: 400,
  },
  {
    name: 'patch agent host',
    method: 'PATCH',
    path: () => `/api/v1/agents/${ids.local}/hosts/${ids.host}`,
    body: { id: 'x' },
    kind: 'host',
    permitted: 400,
  },
  {
    name: 'delete unknown agent host',
    method: 'DELETE',
    path: () => `/api/v1/agents/${ids.local}/hosts/nope`,
    kind: 'host',
    permitted: 404,
  },
  {
    name: 'patch host',
    method: 'PATCH',
    path: () => `/api/v1/hosts/${ids.host}`,
    body: { id: 'x' },
    kind: 'host',
    permitted: 400,
  },
  { name: 'delete unknown host', method: 'DELETE', path: () => '/api/v1/hosts/nope', kind: 'host', permitted: 404 },
  {
    name: 'add host output',
    method: 'POST',
    path: () => `/api/v1/hosts/${ids.host}/outputs`,
    body: {},
    kind: 'output',
    permitted: 400,
  },
  {
    name: 'patch host output',
    method: 'PATCH',
    path: () => `/api/v1/hosts/${ids.host}/outputs/${ids.output}`,
    body: { id: 'x' },
    kind: 'output',
    permitted: 400,
  },
  {
    name: 'delete unknown host output',
    method: 'DELETE',
    path: () => `/api/v1/hosts/${ids.host}/outputs/nope`,
    kind: 'output',
    permitted: 404,
  },
  {
    name: 'add domain output',
    method: 'POST',
    path: () => `/api/v1/domains/${ids.domain}/outputs`,
    body: {},
    kind: 'output',
    permitted: 400,
  },
  {
    name: 'patch domain output',
    method: 'PATCH',
    path: () => `/api/v1/domains/${ids.domain}/outputs/${ids.domainOutput}`,
    body: { id: 'x' },
    kind: 'output',
    permitted: 400,
  },
  {
    name: 'delete unknown domain output',
    method: 'DELETE',
    path: () => `/api/v1/domains/${ids.domain}/outputs/nope`,
    kind: 'output',
    permitted: 404,
  },
  {
    name: 'add policy',
    method: 'POST',
    path: () => `/api/v1/domains/${ids.domain}/policies`,
    body: {},
    kind: 'policy',
    permitted: 400,
  },
  {
    name: 'patch policy',
    method: 'PATCH',
    path: () => `/api/v1/domains/${ids.domain}/policies/${ids.policy}`,
    body: { id: 'x' },
    kind: 'policy',
    permitted: 400,
  },
  {
    name: 'delete unknown policy',
    method: 'DELETE',
    path: () => `/api/v1/domains/${ids.domain}/policies/nope`,
    kind: 'policy',
    permitted: 404,
  },
];

describe.each(allPermissionSets().map((set) => [label(set), set] as const))(
  'permissions %s',
  (_name, set: Permission[]) => {
    it('resources named by id: the view, 401 or 404 by the table', async () => {
      for (const [what, route] of Object.entries(BY_ID)) {
        const response = await call(agent, set, 'GET', route.path());
        const view = expectedView(set, route.kind, route.locality);
        const allowed = route.detailedOnlyRoute ? view === 'detailed' : view !== null;
        if (!allowed) {
          expectInsufficient(response, what);
          continue;
        }
        if (what.startsWith('unknown')) {
          expect({ what, status: response.status }).toEqual({ what, status: 404 });
          continue;
        }
        expect({ what, status: response.status }).toEqual({ what, status: 200 });
        if (route.detailedOnly) expectViewOf(response.json!, view!, route.detailedOnly, what);
      }
    });

    it('collections: what the client may see, each in its view', async () => {
      for (const [what, listing] of Object.entries(LISTINGS)) {
        const response = await call(agent, set, 'GET', listing.path());
        const hidden =
          expectedView(set, listing.guard.kind, listing.guard.locality) === null ||
          (listing.seesAgent !== undefined && expectedView(set, 'agent', listing.seesAgent) === null);
        if (hidden) {
          expectInsufficient(response, what);
          continue;
        }
        expect({ what, status: response.status }).toEqual({ what, status: 200 });
        const body = JSON.parse(response.text) as Array<Record<string, unknown>>;
        const expected = listing
          .items()
          .map((item) => ({ ...item, view: expectedView(set, item.kind, item.locality) }));
        const shown = expected.filter((item) => item.view !== null);
        expect({ what, count: body.length }).toEqual({ what, count: shown.length });
        shown.forEach((item, i) => {
          if (item.detailedOnly) expectViewOf(body[i]!, item.view!, item.detailedOnly, `${what}[${i}]`);
        });
      }
    });

    it('downloads: Access activity data only; a missing file of this agent is 404 for it', async () => {
      const allowed = expectedDownload(set, 'local');
      const file = await call(agent, set, 'GET', `/api/v1/logs/get/${ids.file}`);
      const missing = await call(agent, set, 'GET', '/api/v1/logs/get/nothing_Log_20200101.tsv');
      if (!allowed) {
        expectInsufficient(file, 'download');
        expectInsufficient(missing, 'download of a missing file');
        return;
      }
      expect(file.status).toBe(200);
      expect(missing.status).toBe(404);
    });

    it('writes: only the permission that changes the kind gets past the check', async () => {
      for (const write of WRITES) {
        const response = await call(
          agent,
          set,
          write.method,
          write.path(),
          write.body !== undefined ? { body: write.body } : {},
        );
        if (!expectedWrite(set, write.kind)) {
          expectInsufficient(response, write.name);
          continue;
        }
        expect({ what: write.name, status: response.status }).toEqual({ what: write.name, status: write.permitted });
      }
    });

    it('Syslog destinations: creating or retargeting one needs Access activity data besides Modify host', async () => {
      const mayWrite = expectedWrite(set, 'output');
      const mayTarget = mayWrite && set.includes('accessActivityData');
      const syslog = { server: '127.0.0.1:5514', protocol: 'UDP' };
      const create = await call(agent, set, 'POST', `/api/v1/hosts/${ids.host}/outputs`, {
        body: { type: 'Syslog', syslog },
      });
      if (!mayTarget) expectInsufficient(create, 'create a Syslog output');
      else {
        expect(create.status).toBe(201);
        await agent.resources.outputs.remove(create.json!['id'] as string, 'test');
      }
      const hostWithSyslog = await call(agent, set, 'POST', `/api/v1/agents/${ids.local}/hosts`, {
        body: { host: 'syslog-host', type: localHostType(), outputs: [{ type: 'Syslog', syslog }] },
      });
      if (!mayTarget) expectInsufficient(hostWithSyslog, 'create a host with a Syslog output');
      else {
        expect(hostWithSyslog.status, hostWithSyslog.text).toBe(201);
        await agent.resources.hosts.remove(hostWithSyslog.json!['id'] as string, 'test');
      }

      const existing = await agent.resources.outputs.create(
        { hostId: ids.host },
        { type: 'Syslog', syslog: { server: '127.0.0.1:6514', protocol: 'TCP' } },
        'test',
      );
      try {
        const path = `/api/v1/hosts/${ids.host}/outputs/${existing.id}`;
        for (const change of [{ server: '127.0.0.1:5514' }, { protocol: 'UDP' }]) {
          const retarget = await call(agent, set, 'PATCH', path, { body: { syslog: change } });
          if (!mayTarget) expectInsufficient(retarget, `retarget ${JSON.stringify(change)}`);
          else expect(retarget.status).toBe(200);
        }
        const toSyslog = await call(agent, set, 'PATCH', `/api/v1/hosts/${ids.host}/outputs/${ids.output}`, {
          body: { type: 'Syslog', syslog },
        });
        if (!mayTarget) expectInsufficient(toSyslog, 'turn a LogFile output into a Syslog output');
        else expect(toSyslog.status).toBe(200);
        if (toSyslog.status === 200) {
          await agent.resources.outputs.update(
            ids.output,
            (o) => ({ ...o, type: 'LogFile', syslog: undefined }),
            'test',
          );
        }
        // Anything but the destination stays a Modify host change.
        const template = await call(agent, set, 'PATCH', path, { body: { syslog: { template: '{What}' } } });
        if (!mayWrite) expectInsufficient(template, 'change the template');
        else expect(template.status).toBe(200);
      } finally {
        await agent.resources.outputs.remove(existing.id, 'test');
      }
      expect(agent.settings.current.outputs.map((o) => o.id)).toEqual([ids.output]);
    });

    it('hosts under a registered agent: a client that may not see agents cannot tell it from an unknown id, and no address leaks', async () => {
      const seesAgents = expectedView(set, 'agent', 'other') !== null;
      for (const method of ['GET', 'POST'] as const) {
        const write = method === 'POST';
        const body = write ? { body: { host: 'x', type: localHostType() } } : {};
        const registered = await call(agent, set, method, `/api/v1/agents/${ids.remote}/hosts`, body);
        const unknown = await call(agent, set, method, '/api/v1/agents/AGENT-000000000000/hosts', body);
        const hostAllowed = write ? expectedWrite(set, 'host') : expectedView(set, 'host', 'other') !== null;
        if (!seesAgents || !hostAllowed) {
          expectInsufficient(registered, `${method} hosts of a registered agent`);
          expectInsufficient(unknown, `${method} hosts of an unknown agent`);
          continue;
        }
        expect(registered.status).toBe(write ? 409 : 200);
        expect(unknown.status).toBe(404);
        expect(registered.text).not.toContain('peer.example.test');
      }
    });

    it('the OpenAPI description: any client with a valid token', async () => {
      expect((await call(agent, set, 'GET', '/api/v1/openapi.json')).status).toBe(200);
    });
  },
);

it('nothing was changed by the refused and invalid writes', () => {
  const s = agent.settings.current;
  expect(s.hosts.map((h) => h.id)).toEqual([ids.host]);
  expect(s.outputs.map((o) => o.id)).toEqual([ids.output]);
  expect(s.agents.map((a) => a.id)).toEqual([ids.remote]);
  expect(s.domainOutputs.map((o) => o.id)).toEqual([ids.domainOutput]);
  expect(s.policies.map((p) => p.id)).toEqual([ids.policy]);
});
