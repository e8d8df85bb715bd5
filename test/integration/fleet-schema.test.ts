/**
 * The fleet database's schema against a real PostgreSQL: members migrating together, day
 * partitions ahead with a default partition for odd times, retention by dropping whole days, and
 * the forwarder's insert storing a re-sent batch once.
 */
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../agent/log/logger.js';
import { AuditStore } from '../../agent/store/audit-store.js';
import {
  dropPartitionsBefore,
  ensurePartitions,
  FLEET_SCHEMA_VERSION,
  migrateFleet,
  utcDay,
} from '../../agent/fleet/pg-schema.js';
import { RecordForwarder } from '../../agent/fleet/record-forwarder.js';
import { insertRecords, type ForwardedRow } from '../helpers/fleet-rows.js';
import { openFleetPool, writeFleetPassword } from '../../agent/fleet/fleet-connection.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const DAY = 86_400_000;

function row(seq: number, whenMs: number, rid = `R${seq}`): ForwardedRow {
  return {
    seq,
    rid,
    when_ms: whenMs,
    who: 'alice',
    action: 'Modified',
    what: `/home/alice/file-${seq}.txt`,
    location: 'ws1',
    object_type: 'File',
    data_source: 'File Servers',
    plan_name: null,
    plan_id: null,
    item_name: null,
    workstation: null,
    details: null,
    chain: Buffer.alloc(32, seq % 256),
  };
}

describe('fleet database schema', () => {
  let server: PostgresServer;
  let dataDir: string;
  let admin: pg.Client;
  const pools: pg.Pool[] = [];

  function pool(): pg.Pool {
    const opened = openFleetPool({ database: server.url }, dataDir);
    pools.push(opened);
    return opened;
  }

  beforeAll(async () => {
    server = await startPostgres();
    dataDir = makeTempDir('vigil-fleet-schema-');
    writeFleetPassword(dataDir, server.password);
    admin = new pg.Client({ connectionString: server.adminUrl.replace(/\/postgres$/, '/vigil') });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await Promise.all(pools.map((p) => p.end()));
    await server?.stop();
  });

  it('refuses a database that does not store text as UTF-8, naming its encoding, and creates nothing there', async () => {
    await admin.query(`CREATE DATABASE vigil_latin1 OWNER vigil ENCODING 'LATIN1' TEMPLATE template0`);
    const latin1 = openFleetPool({ database: server.url.replace(/\/vigil$/, '/vigil_latin1') }, dataDir);
    pools.push(latin1);
    await expect(migrateFleet(latin1)).rejects.toThrow(/encoding is LATIN1; Vigil needs a UTF8 database/);
    const tables = await latin1.query(`SELECT count(*)::int AS n FROM pg_tables WHERE tablename LIKE 'vigil%'`);
    expect(tables.rows[0].n).toBe(0);
  });

  it('four members migrating at once make one schema, without an error', async () => {
    await Promise.all([pool(), pool(), pool(), pool()].map((p) => migrateFleet(p)));
    const versions = await admin.query('SELECT version FROM vigil_schema_migrations ORDER BY version');
    expect(versions.rows.map((r: { version: number }) => r.version)).toEqual(
      Array.from({ length: FLEET_SCHEMA_VERSION }, (_, i) => i + 1),
    );
    const tables = await admin.query(
      "SELECT count(*)::int AS n FROM pg_class WHERE relname IN ('vigil_records', 'vigil_fleet_keys', 'vigil_agents')",
    );
    expect(tables.rows[0].n).toBe(3);
  });

  it('has a partition for today and each of the next 7 days, and a default one', async () => {
    const { rows } = await admin.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'vigil_records'::regclass ORDER BY 1`,
    );
    const names = rows.map((r) => r.name);
    for (let d = 0; d <= 7; d++) {
      expect(names).toContain(`vigil_records_p${utcDay(Date.now() + d * DAY).replace(/-/g, '')}`);
    }
    expect(names).toContain('vigil_records_default');
  });

  it('stores a re-sent batch once, and a record with an odd When in the default partition without failing the batch', async () => {
    const p = pool();
    const now = Date.now();
    const batch = [row(1, now), row(2, Date.parse('1999-12-31T23:59:59Z')), row(3, Date.parse('2300-01-01T00:00:00Z'))];
    await insertRecords(p, 'AGENT-A', batch);
    await insertRecords(p, 'AGENT-A', batch);
    const { rows } = await admin.query<{ rid: string; part: string; chain: Buffer }>(
      "SELECT rid, tableoid::regclass::text AS part, chain FROM vigil_records WHERE agent_id = 'AGENT-A' ORDER BY agent_seq",
    );
    expect(rows.map((r) => r.rid)).toEqual(['R1', 'R2', 'R3']);
    expect(rows[0]!.part).toBe(`vigil_records_p${utcDay(now).replace(/-/g, '')}`);
    expect(rows[1]!.part).toBe('vigil_records_default');
    expect(rows[2]!.part).toBe('vigil_records_default');
    expect(rows[0]!.chain.equals(Buffer.alloc(32, 1))).toBe(true);
  });

  it('a day whose records sit in the default partition keeps them there when its partition would be made', async () => {
    const p = pool();
    const farDay = Date.now() + 30 * DAY;
    await insertRecords(p, 'AGENT-B', [row(1, farDay)]);
    const created = await ensurePartitions(p, farDay - 3 * DAY);
    expect(created).not.toContain(`vigil_records_p${utcDay(farDay).replace(/-/g, '')}`);
    expect(created.length).toBeGreaterThan(0);
    const { rows } = await admin.query("SELECT count(*)::int AS n FROM vigil_records WHERE agent_id = 'AGENT-B'");
    expect(rows[0].n).toBe(1);
  });

  it('retention drops whole day partitions before the cutoff and old records of the default partition', async () => {
    const p = pool();
    const now = Date.now();
    const yesterday = now - DAY;
    await ensurePartitions(p, yesterday);
    await insertRecords(p, 'AGENT-C', [row(1, yesterday), row(2, now)]);
    const dropped = await dropPartitionsBefore(p, now);
    expect(dropped).toContain(`vigil_records_p${utcDay(yesterday).replace(/-/g, '')}`);
    const left = await admin.query(
      "SELECT rid FROM vigil_records WHERE agent_id IN ('AGENT-A', 'AGENT-C') ORDER BY rid",
    );
    // Left: AGENT-A's R1 (today) and R3 (year 2300), AGENT-C's R2 (today); AGENT-A's 1999 record
    // (default partition) and AGENT-C's R1 (yesterday's partition) went.
    expect(left.rows.map((r: { rid: string }) => r.rid)).toEqual(['R1', 'R2', 'R3']);
  });

  it('forwards an agent store in seq order once, with a cursor that survives a new forwarder', async () => {
    const store = AuditStore.open({ file: path.join(dataDir, 'audit.db') });
    const records = Array.from({ length: 1200 }, (_, i) => ({
      Who: 'bob',
      Action: 'Added',
      What: `/srv/${i}`,
      When: new Date().toISOString(),
      Where: 'ws2',
      ObjectType: 'File',
      DataSource: 'File Servers',
    }));
    store.insertBatch(records);
    const options = {
      auditDb: store.file,
      pool: pool(),
      database: server.url,
      agentId: 'AGENT-D',
      log: silentLogger,
      pollMs: 20,
      prepare: async () => undefined,
    };
    const first = new RecordForwarder(options);
    await first.start();
    await first.waitForwarded(1200, 10_000);
    expect(first.backlog()).toBe(0);
    await first.stop();
    store.insertBatch(records.slice(0, 10));
    const second = new RecordForwarder(options);
    expect(second.backlog()).toBe(10);
    await second.start();
    await second.waitForwarded(1210, 10_000);
    await second.stop();
    store.close();
    const { rows } = await admin.query(
      "SELECT count(*)::int AS n, count(DISTINCT rid)::int AS distinct_rids, min(agent_seq)::int AS lo, max(agent_seq)::int AS hi FROM vigil_records WHERE agent_id = 'AGENT-D'",
    );
    expect(rows[0]).toEqual({ n: 1210, distinct_rids: 1210, lo: 1, hi: 1210 });
    const order = await admin.query(
      "SELECT bool_and(ordered) AS ok FROM (SELECT agent_seq > lag(agent_seq, 1, 0::bigint) OVER (ORDER BY seq) AS ordered FROM vigil_records WHERE agent_id = 'AGENT-D') t",
    );
    expect(order.rows[0].ok).toBe(true);
  });
});
