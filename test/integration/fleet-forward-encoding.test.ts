/**
 * The forwarder's COPY text (written by SQLite, agent/fleet/forward-copy.ts) against a real
 * PostgreSQL: records whose every text column holds what COPY's text format must escape, or
 * must pass as it is, arrive in the fleet database byte for byte as the local store has them;
 * the same for rows encoded in JavaScript (test/helpers/fleet-rows.ts, which other fleet tests
 * fill the database with). A NUL, which PostgreSQL's text cannot hold, stops the forwarder with
 * PostgreSQL's reason instead of changing the record.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../agent/log/logger.js';
import { AuditStore, rowToRecord } from '../../agent/store/audit-store.js';
import { migrateFleet, utcDay } from '../../agent/fleet/pg-schema.js';
import { RecordForwarder } from '../../agent/fleet/record-forwarder.js';
import { insertRecords, type ForwardedRow } from '../helpers/fleet-rows.js';
import { openFleetPool, writeFleetPassword } from '../../agent/fleet/fleet-connection.js';
import type { NewActivityRecord } from '../../shared/activity-record.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/** Every character COPY escapes, its escape sequences as plain text, and what passes unescaped. */
const AWKWARD = [
  'tab\there',
  'line\nbreak',
  'carriage\rreturn\r\n',
  'back\\slash\\',
  '\\N',
  '\\.',
  '\\x41\\t\\n',
  'quote\'s "double"',
  'control \u0001\u0002\u0007\u0008\u000b\u000c\u001b\u001f\u007f',
  'non-BMP 😀 𝄞 and BMP é ß 中',
  ' leading and trailing ',
  '\t',
  '\\',
  'C1 \u0085\u009f zero-width \u200b bom \ufeff',
];

const COLUMNS =
  'rid, when_ms, who, action, what, location, object_type, data_source, plan_name, plan_id, item_name, workstation, details, chain';

function awkwardRecord(text: string, i: number, when: string): NewActivityRecord {
  return {
    Who: `CORP\\${text}`,
    Action: text,
    What: `/home/${text}/${i}`,
    When: when,
    Where: text,
    ObjectType: text,
    DataSource: text,
    MonitoringPlan: { Name: text, ID: `{${text}}` },
    Item: { Name: text },
    Workstation: text,
    DetailList: [{ PropertyName: text, Before: text, After: `${text}!` }],
  };
}

describe('forwarding awkward strings', () => {
  let server: PostgresServer;
  let dataDir: string;
  let admin: pg.Client;
  let pool: pg.Pool;

  beforeAll(async () => {
    server = await startPostgres();
    dataDir = makeTempDir('vigil-fleet-encoding-');
    writeFleetPassword(dataDir, server.password);
    pool = openFleetPool({ database: server.url }, dataDir);
    await migrateFleet(pool);
    admin = new pg.Client({ connectionString: server.adminUrl.replace(/\/postgres$/, '/vigil') });
    await admin.connect();
  }, 120_000);

  afterAll(async () => {
    await pool?.end();
    await admin?.end();
    await server?.stop();
  });

  async function fleetRows(agentId: string): Promise<Record<string, unknown>[]> {
    const { rows } = await admin.query(
      `SELECT agent_seq, ${COLUMNS}, to_char(day, 'YYYY-MM-DD') AS day, json FROM vigil_records
        WHERE agent_id = $1 ORDER BY agent_seq`,
      [agentId],
    );
    return rows.map((r: Record<string, unknown>) => ({
      ...r,
      agent_seq: Number(r['agent_seq']),
      when_ms: Number(r['when_ms']),
    }));
  }

  function localRows(file: string): Record<string, unknown>[] {
    const db = new Database(file, { readonly: true });
    try {
      return (
        db.prepare(`SELECT seq AS agent_seq, ${COLUMNS} FROM activity_records ORDER BY seq`).all() as ForwardedRow[]
      ).map((r) => ({ ...r, day: utcDay(r.when_ms), json: JSON.stringify(rowToRecord(r)) }));
    } finally {
      db.close();
    }
  }

  it('stores every column byte for byte as the local store has it', async () => {
    const store = AuditStore.open({ file: path.join(dataDir, 'awkward.db') });
    // Times before 1970 with milliseconds: the day is rounded down, as utcDay does.
    const whens = [
      '2026-11-24T23:59:59.999Z',
      '1969-12-31T23:59:59.999Z',
      '1969-12-31T00:00:00.000Z',
      '2026-01-01T00:00:00.000Z',
    ];
    store.insertBatch(AWKWARD.map((text, i) => awkwardRecord(text, i, whens[i % whens.length]!)));
    // Optional columns absent: NULL, not the text "\N".
    store.insertBatch([
      {
        Who: '\\N',
        Action: 'Added',
        What: '/x',
        When: whens[0]!,
        Where: 'ws',
        ObjectType: 'File',
        DataSource: 'File Servers',
      },
    ]);
    const forwarder = new RecordForwarder({
      auditDb: store.file,
      pool,
      database: server.url,
      agentId: "AGENT-'awkward'",
      log: silentLogger,
      pollMs: 20,
    });
    await forwarder.start();
    await forwarder.waitForwarded(AWKWARD.length + 1, 20_000);
    await forwarder.stop();
    store.close();
    const local = localRows(store.file);
    const fleet = await fleetRows("AGENT-'awkward'");
    expect(fleet).toHaveLength(AWKWARD.length + 1);
    expect(fleet).toEqual(local);
    const last = fleet[fleet.length - 1]!;
    expect([last['plan_name'], last['details'], last['who']]).toEqual([null, null, '\\N']);
    expect(fleet.slice(0, 3).map((r) => r['day'])).toEqual(['2026-11-24', '1969-12-31', '1969-12-31']);
    for (const row of fleet) expect(Buffer.isBuffer(row['chain']) && (row['chain'] as Buffer).length).toBe(32);
  });

  it('encodes rows in hand the same way', async () => {
    const store = AuditStore.open({ file: path.join(dataDir, 'in-hand.db') });
    store.insertBatch(AWKWARD.map((text, i) => awkwardRecord(text, i, '1969-12-31T23:59:59.999Z')));
    store.close();
    const local = localRows(store.file);
    const rows = local.map(
      ({ agent_seq, day: _day, json: _json, ...columns }) => ({ ...columns, seq: agent_seq }) as ForwardedRow,
    );
    await insertRecords(pool, 'AGENT-IN-HAND', rows);
    await insertRecords(pool, 'AGENT-IN-HAND', rows);
    expect(await fleetRows('AGENT-IN-HAND')).toEqual(local);
  });

  it('stops at a NUL with PostgreSQL’s reason, forwarding nothing after it', async () => {
    const store = AuditStore.open({ file: path.join(dataDir, 'nul.db') });
    store.insertBatch([
      awkwardRecord('plain', 0, '2026-11-24T10:00:00.000Z'),
      awkwardRecord('nul\u0000here', 1, '2026-11-24T10:00:00.000Z'),
    ]);
    const forwarder = new RecordForwarder({
      auditDb: store.file,
      pool,
      database: server.url,
      agentId: 'AGENT-NUL',
      log: silentLogger,
      pollMs: 20,
    });
    await forwarder.start();
    await forwarder.stop();
    store.close();
    // The database answered and refuses the record: `refused` (agent/fleet/fleet-state.ts).
    expect(forwarder.state()).toBe('refused');
    expect(forwarder.problem()).toMatch(/0x00/);
    expect(forwarder.forwardedSeq()).toBe(0);
    expect(await fleetRows('AGENT-NUL')).toEqual([]);
  });
});
