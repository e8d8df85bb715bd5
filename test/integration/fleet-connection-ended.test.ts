/**
 * A fleet connection the server ends as soon as it is ready (docs/fleet.md): PostgreSQL sends
 * the end of the connection handshake and, a moment later, a FATAL error (here its idle-session
 * timeout of 1 ms; in life a server shutting down, `pg_ctl stop -m fast`). When the agent's
 * event loop is busy, both arrive in one read, and the driver hands the connection over and
 * reports the error in the same turn. The member's query path must take that error as the work's
 * failure; an error event with no listener would end the agent's process (seen in CI, where the
 * fleet tests stop their server under members that are connecting).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openFleetPool, queryWhileReachable, writeFleetPassword } from '../../agent/fleet/fleet-connection.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const ATTEMPTS = 20;

/** Keeps the event loop busy `ms` out of every turn, as an agent under load is, until stopped. */
function busyLoop(ms: number): () => void {
  let running = true;
  const turn = (): void => {
    if (!running) return;
    const until = Date.now() + ms;
    while (Date.now() < until) {
      // busy: socket data piles up until the next poll reads it in one chunk
    }
    setImmediate(turn);
  };
  setImmediate(turn);
  return () => void (running = false);
}

describe('a fleet connection ended by the server right after it is ready', () => {
  let server: PostgresServer;
  let pool: pg.Pool;

  beforeAll(async () => {
    server = await startPostgres();
    const admin = new pg.Client({ connectionString: server.adminUrl });
    await admin.connect();
    await admin.query(`ALTER ROLE vigil SET idle_session_timeout = 1`);
    await admin.end();
    const dataDir = makeTempDir('vigil-fleet-ended-');
    writeFleetPassword(dataDir, server.password);
    pool = openFleetPool({ database: server.url }, dataDir);
  }, 120_000);
  afterAll(async () => {
    await pool?.end();
    await server?.stop();
  });

  it('fails the work with the server’s reason, and no error goes unhandled', async () => {
    const stop = busyLoop(5);
    const outcomes: string[] = [];
    try {
      for (let i = 0; i < ATTEMPTS; i++) {
        try {
          await queryWhileReachable(pool, 'SELECT 1', []);
          outcomes.push('answered');
        } catch (error) {
          outcomes.push((error as Error).message);
        }
      }
    } finally {
      stop();
    }
    // The session ends 1 ms after it is ready: a query sent in that millisecond may still be
    // answered; every other attempt names the server's reason, never a lost listener's crash.
    for (const outcome of outcomes) {
      expect(outcome).toMatch(/^(answered|terminating connection due to idle-session timeout)$/);
    }
    expect(outcomes.filter((o) => o !== 'answered').length).toBeGreaterThan(0);
  }, 60_000);
});
