/**
 * A fleet database as the audit API's tests read it: a PostgreSQL server of their own, migrated,
 * a pool opened as a member opens one (its password in a data folder), and the member's audit
 * records over it, connected and read-only (writes are not what these tests are about).
 */
import type pg from 'pg';
import { openFleetPool, writeFleetPassword } from '../../agent/fleet/fleet-connection.js';
import { PgAuditRecords } from '../../agent/fleet/pg-audit-records.js';
import { migrateFleet } from '../../agent/fleet/pg-schema.js';
import { TurnQueue } from '../../agent/util/turn-queue.js';
import { startPostgres, type PostgresServer } from './postgres-server.js';
import { makeTempDir } from './temp-dir.js';

export interface ReadingFleet {
  server: PostgresServer;
  pool: pg.Pool;
  /** The member's data folder (the fleet password is in it); a local store can go beside it. */
  dataDir: string;
}

export async function startReadingFleet(prefix: string): Promise<ReadingFleet> {
  const server = await startPostgres();
  const dataDir = makeTempDir(prefix);
  writeFleetPassword(dataDir, server.password);
  const pool = openFleetPool({ database: server.url }, dataDir);
  await migrateFleet(pool);
  return { server, pool, dataDir };
}

/** The audit records of a member connected to `pool` that only reads. */
export function readingFleetRecords(pool: pg.Pool): PgAuditRecords {
  return new PgAuditRecords({
    fleet: { pool, state: () => 'connected', waitForwarded: async () => undefined, nudge: () => undefined },
    local: { write: () => Promise.reject(new Error('this test only reads')), maxSeq: () => 0 },
    turns: new TurnQueue(),
  });
}
