/**
 * A fleet query on a link that silently stops carrying packets (docs/fleet.md "Failure
 * behaviour"), without root: the member's pool reaches a real PostgreSQL through a TCP relay
 * that can turn into a black hole (connections stay open, nothing passes, no reset). The
 * forwarder's query must fail within its reachability check instead of the one-minute query
 * timeout, a slow query on a live server must not be cut short, and the pool must work again
 * once the link does. test/load/fleet-partition.test.ts does the same with a real network
 * namespace and whole agents.
 */
import net from 'node:net';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openFleetPool, queryWhileReachable, writeFleetPassword } from '../../agent/fleet/fleet-connection.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { makeTempDir } from '../helpers/temp-dir.js';

interface Relay {
  port: number;
  /** Stop passing bytes, on open connections and new ones, without closing anything. */
  blackHole(): void;
  /** Pass bytes again for connections made from now on. */
  restore(): void;
  close(): Promise<void>;
}

async function startRelay(targetPort: number): Promise<Relay> {
  let silent = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((inbound) => {
    sockets.add(inbound);
    inbound.on('close', () => sockets.delete(inbound));
    inbound.on('error', () => undefined);
    if (silent) return; // accepted, never answered
    const outbound = net.connect(targetPort, '127.0.0.1');
    sockets.add(outbound);
    outbound.on('error', () => inbound.destroy());
    inbound.on('data', (chunk) => silent || outbound.write(chunk));
    outbound.on('data', (chunk) => silent || inbound.write(chunk));
    inbound.on('close', () => outbound.destroy());
    outbound.on('close', () => inbound.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    blackHole: () => (silent = true),
    restore: () => (silent = false),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('a fleet query over a link that goes silent', () => {
  let server: PostgresServer;
  let relay: Relay;
  let pool: pg.Pool;

  beforeAll(async () => {
    server = await startPostgres();
    relay = await startRelay(server.port);
    const dataDir = makeTempDir();
    writeFleetPassword(dataDir, server.password);
    pool = openFleetPool({ database: `postgres://vigil@127.0.0.1:${relay.port}/vigil` }, dataDir, {
      connectionTimeoutMillis: 3_000,
    });
  });
  afterAll(async () => {
    await relay?.close();
    await pool?.end().catch(() => undefined);
    await server?.stop();
  });

  it('lets a slow query on a live server finish', async () => {
    const started = Date.now();
    const result = await queryWhileReachable(pool, 'SELECT pg_sleep(2), 42 AS answer', [], 300);
    expect(result.rows[0]).toMatchObject({ answer: 42 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
  });

  it('fails within the check once the link is silent, and works again after', async () => {
    const pending = queryWhileReachable(pool, 'SELECT pg_sleep(20)', [], 500);
    pending.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 200));
    relay.blackHole();
    const started = Date.now();
    await expect(pending).rejects.toThrow(/stopped answering/);
    // The check after 500 ms, and a new connection given up after 3 s; not the 60 s query timeout.
    expect(Date.now() - started).toBeLessThan(10_000);

    relay.restore();
    const again = await queryWhileReachable(pool, 'SELECT 1 AS one', [], 500);
    expect(again.rows[0]).toMatchObject({ one: 1 });
  });
});
