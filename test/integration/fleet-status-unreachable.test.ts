/**
 * `vigil fleet status` on a member whose fleet database is known to be out of reach answers at
 * once (docs/fleet.md "Failure behaviour"): the server here accepts connections and never
 * answers, as one behind a silent link does, so every new connection waits out the pool's
 * connection timeout (5 s) before failing.
 */
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';

const FAST = { pollMs: 50, heartbeatMs: 500, pacing: { firstDelayMs: 50, maxDelayMs: 300 } };

describe('fleet status while the database is unreachable', () => {
  const sockets = new Set<net.Socket>();
  const silent = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  let agent: TestAgent | undefined;

  afterAll(async () => {
    await agent?.stop();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('answers without waiting for a connection that cannot succeed', async () => {
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as net.AddressInfo).port;
    agent = await startTestAgent({ fleet: FAST });
    const joined = await agent.fleet.join(`postgres://vigil@127.0.0.1:${port}/vigil`, 'secret');
    expect(joined.state).toBe('unreachable');
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const status = await agent.fleet.status();
      const elapsedMs = performance.now() - started;
      expect(status).toMatchObject({ state: 'unreachable', members: [] });
      expect(status.backlog).toBeGreaterThanOrEqual(0);
      // The connection timeout is 5 s; a status that tried the database would take that long.
      expect(elapsedMs).toBeLessThan(1_000);
    }
  }, 60_000);
});
