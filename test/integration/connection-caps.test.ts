/**
 * Each listener caps open connections per address and in total at accept time, so one client
 * cannot hold the agent at its file descriptor limit (docs/security.md, F14).
 */
import net from 'node:net';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { startTestAgent } from '../helpers/test-agent.js';
import { apiRequest } from '../helpers/api-client.js';
import { handshake } from '../helpers/tls-probe.js';
import { consoleRequest, withToken } from '../helpers/console-client.js';
import { ConsolePaths } from '../../shared/console-api.js';

const PER_ADDRESS = 4;

/** Opens a raw TCP connection (the server sees it at once; nothing is sent). */
async function openRaw(port: number, localAddress?: string): Promise<net.Socket> {
  const socket = net.connect({ host: '127.0.0.1', port, ...(localAddress ? { localAddress } : {}) });
  await once(socket, 'connect');
  return socket;
}

function closedWithin(socket: net.Socket, waitMs: number): Promise<boolean> {
  if (socket.destroyed || socket.readableEnded) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), waitMs);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

describe('connection caps on the listeners', () => {
  let agent: TestAgent;

  beforeAll(async () => {
    agent = await startTestAgent({ connectionLimits: { maxPerAddress: PER_ADDRESS }, headersTimeoutMs: 30_000 });
    await agent.settings.update((s) => {
      s.allowList = ['127.0.0.1', '127.0.0.2'];
    });
  });
  afterAll(() => agent.stop());

  for (const listener of ['api', 'audit', 'console'] as const) {
    it(`${listener}: connections past the per-address cap are closed at once; a new one works after they close`, async () => {
      const port = agent.ports[listener];
      const held = await Promise.all(Array.from({ length: PER_ADDRESS }, () => openRaw(port)));
      const extra = await Promise.all(Array.from({ length: 3 }, () => openRaw(port)));
      try {
        expect(await Promise.all(extra.map((s) => closedWithin(s, 2000)))).toEqual([true, true, true]);
        expect(await Promise.all(held.map((s) => closedWithin(s, 200)))).toEqual(held.map(() => false));
        if (listener !== 'console') {
          // Another address is not affected by the first one's connections.
          const other = await handshake({
            host: '127.0.0.1',
            port,
            localAddress: '127.0.0.2',
            rejectUnauthorized: false,
          });
          expect(other.ok).toBe(true);
        }
      } finally {
        for (const socket of [...held, ...extra]) socket.destroy();
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      if (listener === 'api') {
        const answer = await apiRequest(agent, { path: '/api/v1/openapi.json' });
        expect(answer.status).toBeLessThan(500);
      } else if (listener === 'audit') {
        expect((await handshake({ host: '127.0.0.1', port, rejectUnauthorized: false })).ok).toBe(true);
      } else {
        const response = await consoleRequest(agent, { path: ConsolePaths.status, headers: withToken(agent) });
        expect(response.status).toBe(200);
      }
    });
  }
});
