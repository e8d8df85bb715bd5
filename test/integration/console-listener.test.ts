/** The console listens on 127.0.0.1 only (docs/architecture.md): no other address reaches it. */
import os from 'node:os';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { startTestAgent } from '../helpers/test-agent.js';

function tryConnect(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve('timeout');
    }, 3000);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve(error.code ?? 'error');
    });
  });
}

/** Every address of this machine that is not loopback (IPv6 link-local needs a scope, so skip it). */
function nonLoopbackAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flat()
    .filter((a): a is os.NetworkInterfaceInfo => !!a && !a.internal && !a.address.startsWith('fe80:'))
    .map((a) => a.address);
}

describe('console listener', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startTestAgent();
  });
  afterAll(() => agent.stop());

  it('accepts on 127.0.0.1 (control)', async () => {
    expect(await tryConnect('127.0.0.1', agent.ports.console)).toBe('connected');
  });

  it('is not reachable on ::1 or another loopback address', async () => {
    expect(await tryConnect('::1', agent.ports.console)).toBe('ECONNREFUSED');
    expect(await tryConnect('127.0.0.2', agent.ports.console)).toBe('ECONNREFUSED');
  });

  it("is not reachable on any of this machine's non-loopback addresses", async () => {
    const addresses = nonLoopbackAddresses();
    for (const address of addresses) {
      expect({ address, result: await tryConnect(address, agent.ports.console) }).toEqual({
        address,
        result: 'ECONNREFUSED',
      });
    }
    // The agent API, bound to all interfaces, is reachable there at the TCP level (control).
    for (const address of addresses) {
      expect(await tryConnect(address, agent.ports.api)).toBe('connected');
    }
  });
});
