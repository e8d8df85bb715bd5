/**
 * The allow-list is enforced when a connection is accepted, before any TLS byte, and changes
 * at run time without a restart (docs/security.md).
 */
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { call } from '../helpers/resource-client.js';
import { startTestAgent } from '../helpers/test-agent.js';
import { handshake, rawConnect } from '../helpers/tls-probe.js';

describe('IP allow-list on the agent and audit listeners', () => {
  let agent: TestAgent;

  beforeAll(async () => {
    agent = await startTestAgent();
    await agent.settings.update((s) => {
      s.allowList = ['127.0.0.1'];
    });
  });
  afterAll(() => agent.stop());

  it('first run allows loopback only', async () => {
    const fresh = await startTestAgent();
    try {
      expect(fresh.settings.current.allowList).toEqual(['127.0.0.1', '::1']);
    } finally {
      await fresh.stop();
    }
  });

  for (const listener of ['api', 'audit'] as const) {
    it(`${listener}: a client from 127.0.0.2 is closed before any TLS byte`, async () => {
      const result = await rawConnect({ host: '127.0.0.1', port: agent.ports[listener], localAddress: '127.0.0.2' });
      expect(result.connected).toBe(true);
      expect(result.bytesReceived).toBe(0);
      const tlsResult = await handshake({
        host: '127.0.0.1',
        port: agent.ports[listener],
        localAddress: '127.0.0.2',
        rejectUnauthorized: false,
      });
      expect(tlsResult.ok).toBe(false);
    });

    it(`${listener}: the same bytes from 127.0.0.1 get a TLS answer (control)`, async () => {
      const result = await rawConnect({ host: '127.0.0.1', port: agent.ports[listener] });
      expect(result.bytesReceived).toBeGreaterThan(0);
    });
  }

  it('IPv6 loopback is refused until ::1 is listed', async () => {
    const before = await handshake({ host: '::1', port: agent.ports.api, rejectUnauthorized: false });
    expect(before.ok).toBe(false);
    await agent.settings.update((s) => {
      s.allowList.push('::1');
    });
    const after = await handshake({ host: '::1', port: agent.ports.api, rejectUnauthorized: false });
    expect(after.ok).toBe(true);
  });

  it('adding 127.0.0.0/8 at run time lets 127.0.0.2 in, removing it shuts it out again', async () => {
    await agent.settings.update((s) => {
      s.allowList.push('127.0.0.0/8');
    });
    const allowed = await handshake({
      host: '127.0.0.1',
      port: agent.ports.api,
      localAddress: '127.0.0.2',
      rejectUnauthorized: false,
    });
    expect(allowed.ok).toBe(true);
    await agent.settings.update((s) => {
      s.allowList = s.allowList.filter((e) => e !== '127.0.0.0/8');
    });
    const refused = await handshake({
      host: '127.0.0.1',
      port: agent.ports.audit,
      localAddress: '127.0.0.2',
      rejectUnauthorized: false,
    });
    expect(refused.ok).toBe(false);
  });

  it('removing an address closes its open keep-alive connections (N12)', async () => {
    await agent.settings.update((s) => {
      s.allowList.push('127.0.0.0/8');
    });
    const socket = tls.connect({
      socket: net.connect({ host: '127.0.0.1', port: agent.ports.api, localAddress: '127.0.0.2' }),
      rejectUnauthorized: false,
    });
    await once(socket, 'secureConnect');
    const closed = once(socket, 'close');
    await agent.settings.update((s) => {
      s.allowList = s.allowList.filter((e) => e !== '127.0.0.0/8');
    });
    await closed; // bounded by the test timeout
    expect(socket.destroyed).toBe(true);
  });

  it('a forwarded-for header cannot talk a refused client in (N11)', async () => {
    const result = await rawConnect({ host: '127.0.0.1', port: agent.ports.api, localAddress: '127.0.0.2' });
    expect(result.bytesReceived).toBe(0);
    // Even an allowed TLS client gets no say in who it is: only the socket address counts.
    const response = await new Promise<number>((resolve, reject) => {
      const request = https.request(
        {
          host: '127.0.0.1',
          port: agent.ports.api,
          path: '/api/v1/nothing',
          rejectUnauthorized: false,
          localAddress: '127.0.0.2',
          headers: { 'X-Forwarded-For': '127.0.0.1', Forwarded: 'for=127.0.0.1' },
        },
        (res) => resolve(res.statusCode ?? 0),
      );
      request.on('error', reject);
      request.end();
    }).catch((e: NodeJS.ErrnoException) => e.code);
    expect(response).toBe('ECONNRESET');
  });

  it('plain HTTP to the agent API gets no HTTP answer (N07)', async () => {
    const result = await new Promise<string>((resolve) => {
      const socket = net.connect({ host: '127.0.0.1', port: agent.ports.api });
      let data = '';
      socket.on('connect', () => socket.write('GET /api/v1/agents HTTP/1.1\r\nHost: localhost\r\n\r\n'));
      socket.on('data', (chunk: Buffer) => (data += chunk.toString('latin1')));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(data));
      setTimeout(() => socket.destroy(), 5000);
    });
    expect(result).not.toMatch(/^HTTP\/1\.1 2/);
  });

  it.each(['::ffff:0:0/96', '::/8', '::/1', '0.0.0.0/1'])(
    'a Modify agent client cannot open the APIs to every IPv4 address with %s: 400 naming the field and the entry',
    async (entry) => {
      const before = [...agent.settings.current.allowList];
      const response = await call(agent, ['modifyAgent'], 'PATCH', `/api/v1/agents/${agent.agentId}`, {
        body: { apiServerIpWhitelist: ['127.0.0.1', '::1', entry] },
      });
      expect(response.status, response.text).toBe(400);
      expect(response.json).toMatchObject({ error: 'invalid_request', field: 'apiServerIpWhitelist[2]' });
      expect(response.json?.['error_description']).toContain(`"${entry}"`);
      expect(agent.settings.current.allowList).toEqual(before);
    },
  );

  it('an invalid entry is rejected with the field named, and the list in force is unchanged', async () => {
    const before = [...agent.allowList.current];
    await expect(
      agent.settings.update((s) => {
        s.allowList.push('10.0.0.0/33');
      }),
    ).rejects.toThrow(/allowList\[\d+\].*prefix/);
    expect(agent.allowList.current).toEqual(before);
  });
});
