/**
 * The console's settings (ports, allow-list, audit vendor) and audit users: changes
 * are validated with errors naming the field, applied at once where the agent can (allow-list,
 * vendor) and flagged "restart needed" where it cannot (ports), and recorded in the self-audit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import type { AuditUserSummary, ConsoleSettingsView } from '../../shared/console-api.js';
import { MemoryChangeRecorder } from '../../agent/pipeline/change-recorder.js';
import { consoleRequest, withToken } from '../helpers/console-client.js';
import { startTestAgent } from '../helpers/test-agent.js';
import { handshake } from '../helpers/tls-probe.js';
import { AuditClient } from '../helpers/audit-client.js';

let agent: TestAgent;
const recorder = new MemoryChangeRecorder();

beforeAll(async () => {
  agent = await startTestAgent({ changeRecorder: recorder });
});
afterAll(() => agent.stop());

const call = (method: string, path: string, body?: unknown): ReturnType<typeof consoleRequest> =>
  consoleRequest(agent, { method, path, headers: withToken(agent), body });
const patch = (body: unknown): ReturnType<typeof consoleRequest> => call('PATCH', '/api/settings', body);
const viewOf = (r: { text: string }): ConsoleSettingsView => JSON.parse(r.text) as ConsoleSettingsView;

describe('settings', () => {
  it('shows the editable settings and the ports in use', async () => {
    const response = await call('GET', '/api/settings');
    expect(response.status).toBe(200);
    expect(viewOf(response)).toEqual({
      settings: {
        agentApi: { port: 4494 },
        auditApi: { port: 9699, vendor: 'vigil' },
        console: { port: 4495 },
        allowList: ['127.0.0.1', '::1'],
      },
      running: { agentApiPort: agent.ports.api, auditApiPort: agent.ports.audit, consolePort: agent.ports.console },
      restartNeeded: [],
    });
  });

  it('applies an allow-list change at once: ::1 is refused as soon as it is removed', async () => {
    expect((await handshake({ host: '::1', port: agent.ports.api, rejectUnauthorized: false })).ok).toBe(true);
    const response = await patch({ allowList: ['127.0.0.1', ' 10.0.0.0/8 '] });
    expect(response.status, response.text).toBe(200);
    expect(viewOf(response).settings.allowList).toEqual(['127.0.0.1', '10.0.0.0/8']);
    expect(viewOf(response).restartNeeded).toEqual([]);
    expect((await handshake({ host: '::1', port: agent.ports.api, rejectUnauthorized: false })).ok).toBe(false);
    expect(recorder.changes.at(-1)).toEqual({
      actor: 'console',
      action: 'Modified',
      objectType: 'Settings',
      what: 'Agent settings',
      id: agent.agentId,
      details: [{ PropertyName: 'allowList', Before: '127.0.0.1, ::1', After: '127.0.0.1, 10.0.0.0/8' }],
    });
  });

  it.each([
    [['127.0.0.1', '10.0.0.1/8'], 'allowList[1]', /network is 10\.0\.0\.0\/8/],
    [['not an address'], 'allowList[0]', /not an IPv4 or IPv6 address/],
    [['0.0.0.0/0'], 'allowList[0]', /every address/],
    [['127.0.0.1', '127.0.0.1'], 'allowList[1]', /listed twice/],
    [[7], 'allowList[0]', /string/],
  ])('refuses allow-list %j naming %s, and keeps the list', async (list, field, message) => {
    const before = agent.settings.current.allowList;
    const response = await patch({ allowList: list });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ error: 'invalid_request', field });
    expect(response.json?.['error_description']).toMatch(message);
    expect(agent.settings.current.allowList).toEqual(before);
  });

  it('applies a new audit vendor at once: the old path is gone, the new one answers', async () => {
    const users = await call('POST', '/api/audit-users', {
      name: 'siem',
      roles: ['reader'],
      password: 'vendor test password',
    });
    expect(users.status).toBe(201);
    const client = new AuditClient(agent, 'siem:vendor test password');
    try {
      const response = await patch({ auditApi: { vendor: 'netwrix' } });
      expect(response.status).toBe(200);
      expect(viewOf(response).restartNeeded).toEqual([]);
      expect((await client.request({ path: '/vigil/api/v1/activity_records/enum?count=1' })).status).toBe(404);
      expect((await client.request({ path: '/netwrix/api/v1/activity_records/enum?count=1' })).status).toBe(200);
      expect(agent.urls().auditUrl).toMatch(/\/netwrix\/api\/v1$/);
      const bad = await patch({ auditApi: { vendor: 'Net Wrix' } });
      expect(bad.status).toBe(400);
      expect(bad.json?.['field']).toBe('auditApi.vendor');
    } finally {
      client.close();
    }
  });

  it('saves a port for the next start and says a restart is needed; refuses two listeners on one port', async () => {
    const response = await patch({ agentApi: { port: 14494 }, console: { port: 14495 } });
    expect(response.status).toBe(200);
    expect(viewOf(response).restartNeeded).toEqual(['agentApi.port', 'console.port']);
    expect(viewOf(response).running.agentApiPort).toBe(agent.ports.api); // still where it was
    const clash = await patch({ auditApi: { port: 14494 } });
    expect(clash.status).toBe(400);
    expect(clash.json?.['field']).toBe('auditApi.port');
    const range = await patch({ agentApi: { port: 70000 } });
    expect(range.status).toBe(400);
    expect(range.json?.['field']).toBe('agentApi.port');
    const back = await patch({ agentApi: { port: 4494 }, console: { port: 4495 } });
    expect(viewOf(back).restartNeeded).toEqual([]);
  });

  it('refuses fields that are not editable here', async () => {
    for (const [body, field] of [
      [{ hosts: [] }, 'hosts'],
      [{ agentApi: { bindAddress: '0.0.0.0' } }, 'agentApi.bindAddress'],
      [{ agentApi: { port: '4494' } }, 'agentApi.port'],
      [{ allowList: '127.0.0.1' }, 'allowList'],
    ] as const) {
      const response = await patch(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.json?.['field']).toBe(field);
    }
  });
});

describe('audit users', () => {
  it('adds, changes roles and password, lists and removes a user; the API follows each change', async () => {
    const add = await call('POST', '/api/audit-users', {
      name: 'CORP\\collector',
      roles: ['reader'],
      password: 'first password',
    });
    expect(add.status, add.text).toBe(201);
    expect(add.text).not.toContain('first password');
    expect(JSON.parse(add.text)).toMatchObject({ name: 'CORP\\collector', roles: ['reader'] });
    const client = (password: string): AuditClient => new AuditClient(agent, `CORP\\collector:${password}`);
    const first = client('first password');
    const writeBody = JSON.stringify([
      { Who: 'x', Action: 'Added', What: 'y', When: '2026-01-01T00:00:00Z', Where: 'h', ObjectType: 'File' },
    ]);
    const write = (c: AuditClient): Promise<number> =>
      c
        .request({ path: 'activity_records/?format=json', body: writeBody, contentType: 'application/json' })
        .then((r) => r.status);
    try {
      expect((await first.request({ path: 'activity_records/enum?count=1' })).status).toBe(200);
      expect(await write(first)).toBe(403);

      const roles = await call('PUT', `/api/audit-users/${encodeURIComponent('corp\\COLLECTOR')}/roles`, {
        roles: ['reader', 'contributor'],
      });
      expect(roles.status, roles.text).toBe(200);
      expect(await write(first)).toBe(200);

      const password = await call('PUT', `/api/audit-users/${encodeURIComponent('CORP\\collector')}/password`, {
        password: 'second password',
      });
      expect(password.status).toBe(200);
      expect((await first.request({ path: 'activity_records/enum?count=1' })).status).toBe(401);
      const second = client('second password');
      expect((await second.request({ path: 'activity_records/enum?count=1' })).status).toBe(200);
      second.close();

      const list = await call('GET', '/api/audit-users');
      expect((JSON.parse(list.text) as AuditUserSummary[]).map((u) => [u.name, u.roles])).toContainEqual([
        'CORP\\collector',
        ['reader', 'contributor'],
      ]);
      const removed = await call('DELETE', `/api/audit-users/${encodeURIComponent('CORP\\collector')}`);
      expect(removed.json).toEqual({ name: 'CORP\\collector', removed: true });
      expect((await call('GET', '/api/audit-users')).text).not.toContain('collector');
    } finally {
      first.close();
    }
    const changes = recorder.changes.filter((c) => c.objectType === 'Audit user' && c.what === 'CORP\\collector');
    expect(changes.map((c) => [c.actor, c.action])).toEqual([
      ['console', 'Added'],
      ['console', 'Modified'],
      ['console', 'Modified'],
      ['console', 'Removed'],
    ]);
    expect(JSON.stringify(recorder.changes)).not.toContain('password"');
  });

  it.each([
    [{ name: 'a:b', roles: ['reader'], password: 'long enough' }, 400, 'name'],
    [{ name: 'ok', roles: ['admin'], password: 'long enough' }, 400, 'roles'],
    [{ name: 'ok', roles: [], password: 'long enough' }, 400, 'roles'],
    [{ name: 'ok', roles: ['reader'], password: 'short' }, 400, 'password'],
    [{ name: 'ok', roles: ['reader'] }, 400, 'password'],
    [{ name: 'ok', roles: 'reader', password: 'long enough' }, 400, 'roles'],
    [{ name: 'SIEM', roles: ['reader'], password: 'long enough' }, 409, 'name'],
  ])('refuses %j with %i naming %s', async (body, status, field) => {
    const response = await call('POST', '/api/audit-users', body);
    expect(response.status).toBe(status);
    expect(response.json?.['field']).toBe(field);
    expect(typeof response.json?.['error_description']).toBe('string');
  });

  it('answers 404 for an unknown user', async () => {
    const response = await call('DELETE', '/api/audit-users/ghost');
    expect(response.status).toBe(404);
    expect(response.json?.['error_description']).toMatch(/no audit user named "ghost"/);
  });
});
