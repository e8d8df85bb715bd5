/**
 * Agents through the agent API over real HTTPS: the local agent is always there and
 * cannot be deleted; other agents are registered by address and port, their reachability is
 * checked in the background (loopback peers: a TLS server, a closed port, a plain TCP server,
 * a server that never answers) without ever delaying a request; changes are merge patches.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { agentViewSchema } from '../../agent/api/schemas/agent-schemas.js';
import { waitFor } from '../helpers/activity.js';
import { call, conforms, listOf } from '../helpers/resource-client.js';
import { startTestAgent } from '../helpers/test-agent.js';

const MA = ['modifyAgent'] as const;
let agent: TestAgent;
const servers: net.Server[] = [];

beforeAll(async () => {
  agent = await startTestAgent({ agentChecks: { intervalMs: 300, timeoutMs: 1500 } });
});
afterAll(async () => {
  for (const server of servers) server.close();
  await agent.stop();
});

async function listen(onConnection: (socket: net.Socket) => void): Promise<number> {
  const server = net.createServer(onConnection);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** A TCP server that counts the connections it gets and closes each at once. */
async function countingServer(): Promise<{ port: number; connections: () => number }> {
  let count = 0;
  const port = await listen((socket) => {
    count++;
    socket.destroy();
  });
  return { port, connections: () => count };
}

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function register(body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await call(agent, MA, 'POST', '/api/v1/agents', { body });
  expect(response.status, response.text).toBe(201);
  expect(response.headers['location']).toBe(response.json!['url']);
  return conforms(agentViewSchema, response.json) as Record<string, unknown>;
}

async function statusOf(id: string): Promise<{ type: string; summary: string; details: string }> {
  return (await call(agent, ['read'], 'GET', `/api/v1/agents/${id}`)).json!['status'] as {
    type: string;
    summary: string;
    details: string;
  };
}

describe('registering other agents', () => {
  it('registers an agent by address and port; lists it after the local agent', async () => {
    const registered = await register({ host: 'agent-b.example.test', apiServerPort: 14494, comment: 'lab' });
    expect(registered).toMatchObject({
      host: 'agent-b.example.test',
      apiServerPort: 14494,
      comment: 'lab',
      installState: 'Unknown',
      platformId: null,
      netbiosName: 'AGENT-B',
    });
    expect(registered['id']).toMatch(/^AGENT-[0-9A-F]{12}$/);
    const list = listOf(await call(agent, ['read'], 'GET', '/api/v1/agents'));
    expect(list[0]!['id']).toBe(agent.agentId);
    expect(list.map((a) => a['id'])).toContain(registered['id']);
    for (const a of list) conforms(agentViewSchema, a);
  });

  it('shows a Vigil agent API as reachable, with its certificate fingerprint', async () => {
    const peer = await register({ host: '127.0.0.1', apiServerPort: agent.ports.api });
    const status = await waitFor(
      () => statusOf(peer['id'] as string),
      (s) => s.type === 'OK',
      10_000,
      'reachable',
    );
    expect(status.summary).toBe('Reachable');
    expect(status.details).toContain(agent.identity.fingerprint256);
  });

  // The check is no port scanner for API clients: whatever answers that is not an agent API
  // (nothing, SSH, another HTTPS server) looks the same, without error codes or fingerprints.
  it('shows a closed port, a plain TCP server and another HTTPS server alike: "Not a Vigil agent API", nothing more', async () => {
    const closed = await register({ host: '127.0.0.1', apiServerPort: await closedPort() });
    const plain = await listen((socket) => socket.end('SSH-2.0-OpenSSH_9.2\r\n'));
    const notTls = await register({ host: '127.0.0.1', apiServerPort: plain });
    const otherHttps = await register({ host: '127.0.0.1', apiServerPort: agent.ports.audit });
    for (const peer of [closed, notTls, otherHttps]) {
      const status = await waitFor(
        () => statusOf(peer['id'] as string),
        (s) => s.summary !== 'Not checked yet',
        10_000,
        'checked',
      );
      expect(status).toMatchObject({ type: 'Error', summary: 'Not a Vigil agent API' });
      expect(status.details).not.toMatch(/ECONN|ERR_|SSL|TLS|SHA-256|certificate/i);
      expect(status.details).not.toContain(agent.identity.fingerprint256);
      const view = (await call(agent, ['read'], 'GET', `/api/v1/agents/${peer['id'] as string}`)).json!;
      expect(view['errorMessage']).toBe(status.details);
    }
  });

  it('never waits for a check: a peer that never answers the handshake does not delay requests', async () => {
    const silent = await listen(() => undefined); // accepts, says nothing
    const started = Date.now();
    const peer = await register({ host: '127.0.0.1', apiServerPort: silent });
    const list = await call(agent, ['read'], 'GET', '/api/v1/agents');
    expect(list.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1000); // the check's timeout is 1.5 s
    expect(listOf(list).find((a) => a['id'] === peer['id'])!['status']).toMatchObject({ summary: 'Not checked yet' });
    const status = await waitFor(
      () => statusOf(peer['id'] as string),
      (s) => s.summary !== 'Not checked yet',
      10_000,
      'timed out',
    );
    expect(status).toMatchObject({ type: 'Error', summary: 'Not a Vigil agent API' });
  });

  it('probes each agent at most once per interval: re-pointing it at port after port scans nothing', async () => {
    const first = await countingServer();
    const peer = await register({ host: '127.0.0.1', apiServerPort: first.port });
    await waitFor(
      () => statusOf(peer['id'] as string),
      (s) => s.summary !== 'Not checked yet',
      10_000,
      'checked',
    );
    expect(first.connections()).toBe(1);
    const others = await Promise.all([countingServer(), countingServer(), countingServer()]);
    for (const other of others) {
      const moved = await call(agent, MA, 'PATCH', `/api/v1/agents/${peer['id'] as string}`, {
        body: { apiServerPort: other.port },
      });
      expect(moved.status).toBe(200);
    }
    await new Promise((resolve) => setTimeout(resolve, 1500)); // five rounds of checks at 300 ms
    expect(others.map((o) => o.connections())).toEqual([0, 0, 0]);
    expect(await statusOf(peer['id'] as string)).toMatchObject({ summary: 'Not checked yet' });
  });

  it.each([
    [{ host: 'bad host!' }, 'host'],
    [{ host: '' }, 'host'],
    [{ apiServerPort: 4494 }, 'host'],
    [{ host: 'h.example', apiServerPort: 70_000 }, 'apiServerPort'],
    [{ host: 'h.example', apiServerPort: '4494' }, 'apiServerPort'],
    [{ host: 'h.example', password: 'x' }, 'password'],
    [{ host: 'h.example', installState: 'Installed' }, 'installState'],
  ])('refuses %j naming %s', async (body, field) => {
    const response = await call(agent, MA, 'POST', '/api/v1/agents', { body });
    expect(response.status, response.text).toBe(400);
    expect(response.json).toMatchObject({ error: 'invalid_request', field });
  });

  it('refuses the same address and port twice: 409 conflict naming the field and the agent registered there', async () => {
    const first = await register({ host: 'twice.example.test', apiServerPort: 4494 });
    const again = await call(agent, MA, 'POST', '/api/v1/agents', { body: { host: 'TWICE.example.test' } });
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ error: 'conflict', field: 'host', holderId: first['id'] });
    expect(again.json!['error_description']).toMatch(/already registered/);
  });

  it('changes a registered agent with a merge patch and forgets it on DELETE', async () => {
    const peer = await register({ host: 'patch-me.example.test', apiServerPort: 5000, comment: 'x' });
    const url = `/api/v1/agents/${peer['id'] as string}`;
    const patched = await call(agent, MA, 'PATCH', url, { body: { apiServerPort: null, comment: 'moved' } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json).toMatchObject({ host: 'patch-me.example.test', apiServerPort: 4494, comment: 'moved' });
    for (const [body, field] of [
      [{ apiServerIpWhitelist: ['10.0.0.1'] }, 'apiServerIpWhitelist'],
      [{ host: null }, 'host'],
      [{ version: '2' }, 'version'],
    ] as const) {
      const response = await call(agent, MA, 'PATCH', url, { body });
      expect({ body, status: response.status, field: response.json?.['field'] }).toEqual({ body, status: 400, field });
    }
    expect((await call(agent, MA, 'DELETE', url)).status).toBe(204);
    expect((await call(agent, ['read'], 'GET', url)).status).toBe(404);
    expect((await call(agent, MA, 'DELETE', url)).status).toBe(404);
  });

  it('knows no hosts or domain of a registered agent, and configures none there', async () => {
    const peer = await register({ host: 'remote.example.test', apiServerPort: 4494 });
    const base = `/api/v1/agents/${peer['id'] as string}`;
    expect((await call(agent, ['read'], 'GET', `${base}/hosts`)).text).toBe('[]');
    const body = { body: { host: 'x', type: 'Linux' } };
    const post = await call(agent, ['read', 'modifyHost'], 'POST', `${base}/hosts`, body);
    expect(post.status).toBe(409);
    expect(post.json!['error_description']).toContain("through that agent's own API");
    expect(post.text).not.toContain('remote.example.test');
    // Modify host alone may not see agents: a registered agent answers like an unknown id.
    const hidden = await call(agent, ['modifyHost'], 'POST', `${base}/hosts`, body);
    const unknown = await call(agent, ['modifyHost'], 'POST', '/api/v1/agents/AGENT-000000000000/hosts', body);
    expect([hidden.status, hidden.json!['error']]).toEqual([401, 'insufficient_permission']);
    expect(unknown.json).toEqual(hidden.json);
    expect((await call(agent, ['read'], 'GET', `${base}/domain`)).status).toBe(404);
    expect((await call(agent, ['read'], 'GET', '/api/v1/agents/AGENT-000000000000/hosts')).status).toBe(404);
  });
});

describe('the local agent', () => {
  it('cannot be deleted', async () => {
    const response = await call(agent, MA, 'DELETE', `/api/v1/agents/${agent.agentId}`);
    expect(response.status).toBe(409);
    expect(response.json).toMatchObject({ error: 'conflict' });
    expect((await call(agent, ['read'], 'GET', `/api/v1/agents/${agent.agentId}`)).status).toBe(200);
  });

  it('takes a comment, log storage limits and an allow-list that still admits the caller', async () => {
    const url = `/api/v1/agents/${agent.agentId}`;
    const patched = await call(agent, MA, 'PATCH', url, {
      body: {
        comment: 'front desk',
        apiServerIpWhitelist: ['127.0.0.1', '::1', '10.0.0.0/8'],
        minLocalFreeSpace: 128 * 1024 ** 2,
      },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(conforms(agentViewSchema, patched.json)).toMatchObject({
      comment: 'front desk',
      apiServerIpWhitelist: ['127.0.0.1', '::1', '10.0.0.0/8'],
      minLocalFreeSpace: 128 * 1024 ** 2,
    });
    expect(agent.allowList.current).toEqual(['127.0.0.1', '::1', '10.0.0.0/8']);
    expect(agent.settings.current.logStorage.minLocalFreeSpace).toBe(128 * 1024 ** 2);

    const cases: Array<[unknown, string, RegExp?]> = [
      [{ apiServerIpWhitelist: ['10.0.0.0/8'] }, 'apiServerIpWhitelist', /does not admit/],
      [{ apiServerIpWhitelist: [] }, 'apiServerIpWhitelist', /shut every client out/],
      [{ apiServerIpWhitelist: ['10.0.0.1/8'] }, 'apiServerIpWhitelist[0]'],
      [{ maxLocalSize: 1000 }, 'maxLocalSize'],
      [{ host: 'elsewhere' }, 'host', /read-only/],
      [{ apiServerPort: 1 }, 'apiServerPort', /read-only/],
      [{ status: null }, 'status', /read-only/],
    ];
    for (const [body, field, message] of cases) {
      const response = await call(agent, MA, 'PATCH', url, { body });
      expect({ body, status: response.status, field: response.json?.['field'] }).toEqual({ body, status: 400, field });
      if (message) expect(response.json!['error_description']).toMatch(message);
    }
    expect(agent.allowList.current).toEqual(['127.0.0.1', '::1', '10.0.0.0/8']);
    const reset = await call(agent, MA, 'PATCH', url, { body: { comment: null, minLocalFreeSpace: null } });
    expect(reset.json).toMatchObject({ comment: '', minLocalFreeSpace: 64 * 1024 ** 2 });
  });

  it('answers its domain: 404 while it reads none, then the first enabled domain', async () => {
    const url = `/api/v1/agents/${agent.agentId}/domain`;
    expect((await call(agent, ['read'], 'GET', url)).status).toBe(404);
    expect((await call(agent, ['accessActivityData'], 'GET', url)).status).toBe(404);
    await agent.resources.domains.add({ name: 'off.example', ldapServer: 'ldap://10.0.0.5', isEnabled: false }, 'test');
    await agent.resources.domains.add({ name: 'corp.example', ldapServer: 'ldaps://dc.corp.example:636' }, 'test');
    const domain = await call(agent, ['read'], 'GET', url);
    expect(domain.status).toBe(200);
    expect(domain.json).toMatchObject({ id: 'CORP', name: 'corp.example' });
  });

  it('keeps registered agents across a restart', async () => {
    const peer = await register({ host: 'kept.example.test', apiServerPort: 4494 });
    const dataDir = agent.dataDir;
    await agent.stop();
    agent = await startTestAgent({ dataDir, agentChecks: { intervalMs: 300, timeoutMs: 1500 } });
    const again = await call(agent, ['read'], 'GET', `/api/v1/agents/${peer['id'] as string}`);
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ host: 'kept.example.test', apiServerPort: 4494 });
  });
});

describe('the checks of all agents together', () => {
  let limited: TestAgent;
  beforeAll(async () => {
    limited = await startTestAgent({ agentChecks: { intervalMs: 300, timeoutMs: 1500, probesPerMinute: 3 } });
  });
  afterAll(() => limited.stop());

  it('are capped per minute: registering many agents probes no more than the cap', async () => {
    const servers = await Promise.all(Array.from({ length: 6 }, () => countingServer()));
    for (const server of servers) {
      const response = await call(limited, MA, 'POST', '/api/v1/agents', {
        body: { host: '127.0.0.1', apiServerPort: server.port },
      });
      expect(response.status).toBe(201);
    }
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(servers.reduce((sum, server) => sum + server.connections(), 0)).toBe(3);
  });
});
