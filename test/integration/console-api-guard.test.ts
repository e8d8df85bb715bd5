/**
 * Every console API endpoint behind the same three fences ("Console API tests";
 * docs/console.md, docs/security.md, C02, C04–C06): no credentials → 401; a Host that is not the console's
 * loopback name → 403 before anything runs; a change sent with the session cookie from another
 * origin → 403 and nothing changed. Changes are never made by GET.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { consoleLogin, consoleRequest, withToken } from '../helpers/console-client.js';
import { startTestAgent } from '../helpers/test-agent.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { monitorFolders } from '../helpers/activity.js';

let agent: TestAgent;
/** The session cookie and key, as the web app sends them. */
let signedIn: Record<string, string>;
let origin: string;
let clientId: string;
let hostId: string;
let outputId: string;
let watched: string;
let another: string;

beforeAll(async () => {
  agent = await startTestAgent();
  watched = makeTempDir('vigil-watched-');
  another = makeTempDir('vigil-another-');
  hostId = await monitorFolders(agent, [watched]);
  outputId = agent.settings.current.outputs[0]!.id;
  origin = `http://127.0.0.1:${agent.ports.console}`;
  const session = await consoleLogin(agent);
  signedIn = { Cookie: session.cookie, 'X-Vigil-Session': session.sessionKey };
  const client = await consoleRequest(agent, {
    method: 'POST',
    path: '/api/clients',
    headers: withToken(agent),
    body: { name: 'existing', permissions: ['read'] },
  });
  clientId = client.json?.['clientId'] as string;
  const user = await consoleRequest(agent, {
    method: 'POST',
    path: '/api/audit-users',
    headers: withToken(agent),
    body: { name: 'existing', roles: ['reader'], password: 'a long password' },
  });
  expect(user.status).toBe(201);
});
afterAll(() => agent.stop());

const READS = [
  '/api/status',
  '/api/monitoring',
  '/api/hosts',
  '/api/outputs',
  '/api/settings',
  '/api/clients',
  '/api/audit-users',
  '/api/log-files',
  '/api/log-files/h_Log_20260101.tsv/lines',
  '/api/log-files/h_Log_20260101.tsv/content',
  '/api/log-files/h_Log_20260101.tsv/follow',
  '/api/activity/feed',
];

interface Change {
  method: string;
  path: () => string;
  body: unknown;
}

const CHANGES: Change[] = [
  { method: 'PUT', path: () => '/api/monitoring', body: { paused: true } },
  { method: 'PATCH', path: () => '/api/settings', body: { allowList: ['0.0.0.0/1'] } },
  { method: 'POST', path: () => '/api/clients', body: { name: 'csrf', permissions: ['read'] } },
  { method: 'PUT', path: () => `/api/clients/${clientId}/permissions`, body: { permissions: ['modifyAgent'] } },
  { method: 'POST', path: () => `/api/clients/${clientId}/secret`, body: {} },
  { method: 'DELETE', path: () => `/api/clients/${clientId}`, body: undefined },
  {
    method: 'POST',
    path: () => '/api/audit-users',
    body: { name: 'csrf', roles: ['reader'], password: 'long enough' },
  },
  { method: 'PUT', path: () => '/api/audit-users/existing/password', body: { password: 'another one!' } },
  { method: 'PUT', path: () => '/api/audit-users/existing/roles', body: { roles: ['contributor'] } },
  { method: 'DELETE', path: () => '/api/audit-users/existing', body: undefined },
  { method: 'POST', path: () => '/api/activity/search', body: {} },
  { method: 'PUT', path: () => `/api/hosts/${hostId}`, body: { enabled: false } },
  {
    method: 'POST',
    path: () => `/api/hosts/${hostId}/folders`,
    get body() {
      return { path: another }; // known once the agent runs
    },
  },
  {
    method: 'DELETE',
    path: () => `/api/hosts/${hostId}/folders?path=${encodeURIComponent(watched)}`,
    body: undefined,
  },
  { method: 'PUT', path: () => `/api/outputs/${outputId}`, body: { enabled: false } },
];

/** What the changes above would alter: it must stay as it was after every refused attempt. */
function state(): string {
  const s = agent.settings.current;
  return JSON.stringify([s.allowList, s.clients, s.auditUsers, s.hosts, s.outputs, agent.monitoring.paused]);
}

describe('console API without credentials', () => {
  it.each(READS)('GET %s → 401 with a Bearer challenge', async (path) => {
    const response = await consoleRequest(agent, { path });
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/^Bearer realm="vigil-console"/);
    expect(response.json?.['error']).toBe('unauthorized');
  });

  it.each(CHANGES.map((c) => [`${c.method} ${c.path().replaceAll('undefined', '{id}')}`, c] as const))(
    '%s → 401 and nothing changes',
    async (_m, change) => {
      const before = state();
      const response = await consoleRequest(agent, { method: change.method, path: change.path(), body: change.body });
      expect(response.status).toBe(401);
      expect(state()).toBe(before);
    },
  );
});

describe('console API with a foreign Host (DNS rebinding)', () => {
  it.each(READS)('GET %s with the token but Host evil.example → 403', async (path) => {
    const response = await consoleRequest(agent, { path, headers: withToken(agent, { Host: 'evil.example' }) });
    expect(response.status).toBe(403);
    expect(response.json?.['error']).toBe('forbidden_host');
  });

  it.each(CHANGES.map((c) => [`${c.method} ${c.path().replaceAll('undefined', '{id}')}`, c] as const))(
    '%s with Host 127.0.0.1.nip.io → 403',
    async (_m, change) => {
      const before = state();
      const response = await consoleRequest(agent, {
        method: change.method,
        path: change.path(),
        body: change.body,
        headers: { ...signedIn, Origin: origin, Host: `127.0.0.1.nip.io:${agent.ports.console}` },
      });
      expect(response.status).toBe(403);
      expect(response.json?.['error']).toBe('forbidden_host');
      expect(state()).toBe(before);
    },
  );
});

describe('console API changes from another origin (CSRF)', () => {
  const attempts: Array<[string, Record<string, string>]> = [
    ['Origin http://evil.example', { Origin: 'http://evil.example' }],
    ['Origin null', { Origin: 'null' }],
    ['no Origin', {}],
    ['Sec-Fetch-Site cross-site', { Origin: 'ORIGIN', 'Sec-Fetch-Site': 'cross-site' }],
  ];
  for (const change of CHANGES) {
    it.each(attempts)(
      `${change.method} ${change.path().replaceAll('undefined', '{id}')}: %s → 403`,
      async (_label, extra) => {
        const before = state();
        const headers = Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, v.replace('ORIGIN', origin)]));
        const response = await consoleRequest(agent, {
          method: change.method,
          path: change.path(),
          body: change.body,
          headers: { ...signedIn, ...headers },
        });
        expect(response.status, `${change.method} ${change.path()}`).toBe(403);
        expect(response.json?.['error']).toBe('forbidden_origin');
        expect(state()).toBe(before);
      },
    );
  }

  it('accepts the same change from the console itself (control)', async () => {
    const response = await consoleRequest(agent, {
      method: 'PUT',
      path: '/api/audit-users/existing/roles',
      body: { roles: ['reader', 'contributor'] },
      headers: { ...signedIn, Origin: origin, 'Sec-Fetch-Site': 'same-origin' },
    });
    expect(response.status).toBe(200);
    expect(agent.audit.users.get('existing')?.roles).toEqual(['reader', 'contributor']);
  });
});

describe('no change by GET (C06)', () => {
  it('answers 405 to GET on revoke and remove paths, and nothing changes', async () => {
    const before = state();
    for (const path of [
      `/api/clients/${clientId}`,
      '/api/audit-users/existing',
      `/api/clients/${clientId}/secret`,
      `/api/hosts/${hostId}`,
      `/api/hosts/${hostId}/folders?path=${encodeURIComponent(watched)}`,
      `/api/outputs/${outputId}`,
    ]) {
      const response = await consoleRequest(agent, { path, headers: signedIn });
      expect(response.status, path).toBe(405);
      expect(response.headers['allow']).toBeDefined();
    }
    const settings = await consoleRequest(agent, {
      path: '/api/settings?allowList=0.0.0.0/1',
      headers: signedIn,
    });
    expect(settings.status).toBe(200);
    expect(state()).toBe(before);
  });
});
