/**
 * The allow-list is enforced when a connection is accepted, before any TLS byte, and changes
 * at run time without a restart (issue 2; security.md §0.8).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../../agent/agent.js';
import { startTestAgent } from '../helpers/test-agent.js';
import { handshake, rawConnect } from '../helpers/tls-probe.js';

describe('IP allow-list on the agent and audit listeners', () => {
  let agent: RunningAgent;

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
