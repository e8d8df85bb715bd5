/**
 * The JSON of an enumeration page is the same bytes from both stores: the fleet database writes
 * it in SQL (agent/fleet/pg-audit-rows.ts), the SQLite store in SQL too (raw-record.ts), and
 * both must equal JSON.stringify of the record as the API describes it. Records with awkward
 * text (quotes, backslashes, every control character but NUL, non-BMP characters, numbers as
 * text, times before 1970 and near year 10000) and random ones, paged as the audit API pages an
 * enumeration: findPage, slices, the JSON of each slice.
 */
import path from 'node:path';
import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PgAuditRecords } from '../../agent/fleet/pg-audit-records.js';
import { insertRecords, type ForwardedRow } from '../helpers/fleet-rows.js';
import { AuditReader } from '../../agent/store/audit-reader.js';
import type { AuditRecords } from '../../agent/store/audit-records.js';
import { AuditStore, rowToRecord, type RecordRow } from '../../agent/store/audit-store.js';
import { SqliteAuditRecords } from '../../agent/store/sqlite-audit-records.js';
import type { NewActivityRecord } from '../../shared/activity-record.js';
import type { PostgresServer } from '../helpers/postgres-server.js';
import { readingFleetRecords, startReadingFleet } from '../helpers/fleet-reading.js';
import { recordArbitrary } from '../helpers/record-arbitrary.js';

/** Every control character PostgreSQL text can hold (NUL it cannot), and the ones JSON leaves alone. */
const CONTROLS = Array.from({ length: 31 }, (_, i) => String.fromCharCode(i + 1)).join('') + '\u007f\u0085';
const AWKWARD = [
  'say "hi"',
  'C:\\Users\\back\\slash\\',
  `ctl ${CONTROLS}`,
  '\\"\\u0041\\n', // escapes as literal text
  'non-BMP 😀 𝄞 \u{10FFFF}',
  '\u2028 line and paragraph \u2029',
  "</script><!-- & '",
  '12345',
  '-0',
  '1e21',
  '0.1',
  'NaN',
  'null',
  '{"not":"json"}',
  'ü é ß İ',
  ' leading and trailing ',
];
const WHENS = [
  '1970-01-01T00:00:00.000Z',
  '1969-12-31T23:59:59.999Z',
  '1901-02-03T04:05:06.789Z',
  '1000-01-01T00:00:00.000Z',
  '9999-12-31T23:59:59.999Z',
  '2026-11-24T12:00:00.500Z',
];

function awkwardRecord(i: number): NewActivityRecord {
  const text = (k: number): string => AWKWARD[(i + k) % AWKWARD.length]!;
  const record: NewActivityRecord = {
    Who: text(0),
    Action: text(1),
    What: text(2),
    When: WHENS[i % WHENS.length]!,
    Where: text(3),
    ObjectType: text(4),
    DataSource: text(5),
  };
  // Every combination of the optional fields.
  if (i & 1) record.MonitoringPlan = i & 16 ? { Name: text(6), ID: text(7) } : { Name: text(6) };
  if (i & 2) record.Item = { Name: text(8) };
  if (i & 4) record.Workstation = text(9);
  if (i & 8) {
    record.DetailList = [
      { PropertyName: text(10), Before: text(11), After: text(12) },
      { PropertyName: 'Message', Message: text(13) },
    ];
  }
  return record;
}

// Any code point but NUL (PostgreSQL text cannot hold it) and lone surrogates (the API refuses them).
const text = fc.string({ unit: 'binary', minLength: 1, maxLength: 24 }).filter((s) => !s.includes('\u0000'));
const randomRecord = recordArbitrary(text);

let server: PostgresServer;
let pool: pg.Pool;
let store: AuditStore;
let reader: AuditReader;
let sqliteRecords: SqliteAuditRecords;
let fleetRecords: PgAuditRecords;
/** JSON.stringify of each record as the API describes it, in seq order. */
let expected: string[];

beforeAll(async () => {
  let dataDir: string;
  ({ server, pool, dataDir } = await startReadingFleet('vigil-fleet-json-'));
  store = AuditStore.open({ file: path.join(dataDir, 'audit.db'), synchronous: 'NORMAL' });
  const records = [
    ...Array.from({ length: 64 }, (_, i) => awkwardRecord(i)),
    ...fc.sample(randomRecord, { numRuns: 2400, seed: 17 }),
  ];
  for (let i = 0; i < records.length; i += 500) store.insertBatch(records.slice(i, i + 500));
  const rows = store.db.prepare('SELECT * FROM activity_records ORDER BY seq').all() as Array<RecordRow & ForwardedRow>;
  expected = rows.map((row) => JSON.stringify(rowToRecord(row)));
  for (let i = 0; i < rows.length; i += 500) await insertRecords(pool, 'agent-a', rows.slice(i, i + 500));
  reader = new AuditReader({ file: store.file });
  const refuse = (): Promise<never> => Promise.reject(new Error('this test only reads'));
  sqliteRecords = new SqliteAuditRecords({ reader, writer: { write: refuse } as never, markKey: Buffer.alloc(32) });
  fleetRecords = readingFleetRecords(pool);
}, 120_000);

afterAll(async () => {
  reader?.close(true);
  store?.close();
  await pool?.end();
  await server?.stop();
});

/** Every page of an enumeration as the audit API builds it: the JSON of its slices joined. */
async function enumerate(records: AuditRecords, count: number, maxBytes: number): Promise<Buffer[]> {
  const query = { conditions: [], reference: Date.now(), groupMembers: () => [] };
  const pages: Buffer[] = [];
  let after = 0;
  for (let guard = 0; guard < 1000; guard++) {
    const page = await records.findPage(query, after, count, () => false);
    if (page.seqs.length === 0) return pages;
    const slices = await records.slices(page.seqs, 1000, maxBytes);
    const json = await Promise.all(slices.map((slice) => records.fetchJson(slice)));
    pages.push(Buffer.from(json.map((b) => b.toString('utf8')).join(','), 'utf8'));
    after = page.through;
  }
  throw new Error('the enumeration did not end');
}

describe('the JSON of an enumeration page', () => {
  it('is the same bytes from PostgreSQL and SQLite, and equals JSON.stringify of each record', async () => {
    for (const [count, maxBytes] of [
      [10_000, 8 * 1024 * 1024], // one page, slices of 1,000 records
      [700, 2_000], // slices cut by size
    ] as const) {
      const fleet = await enumerate(fleetRecords, count, maxBytes);
      const sqlite = await enumerate(sqliteRecords, count, maxBytes);
      expect(fleet.length).toBe(Math.ceil(expected.length / count));
      expect(fleet.map((page) => page.length)).toEqual(sqlite.map((page) => page.length));
      for (let i = 0; i < fleet.length; i++) expect(fleet[i]!.equals(sqlite[i]!), `page ${i}`).toBe(true);
      expect(Buffer.concat(fleet.flatMap((page, i) => (i === 0 ? [page] : [Buffer.from(','), page]))).toString()).toBe(
        expected.join(','),
      );
    }
  });

  it('is the same bytes for records forwarded before the fleet stored their JSON (PostgreSQL writes it)', async () => {
    // From here on the fleet sends PostgreSQL's JSON for these records (the same bytes).
    const { rowCount } = await pool.query('UPDATE vigil_records SET json = NULL');
    expect(rowCount).toBe(expected.length);
    for (const [count, maxBytes] of [
      [10_000, 8 * 1024 * 1024],
      [700, 2_000],
    ] as const) {
      const written = await enumerate(fleetRecords, count, maxBytes);
      const sqlite = await enumerate(sqliteRecords, count, maxBytes);
      expect(written.length).toBe(sqlite.length);
      for (let i = 0; i < written.length; i++) expect(written[i]!.equals(sqlite[i]!), `page ${i}`).toBe(true);
    }
  });

  it('keeps every awkward character: the records parse back to what was stored', async () => {
    const [page] = await enumerate(fleetRecords, 64, 8 * 1024 * 1024);
    const parsed = JSON.parse(`[${page!.toString('utf8')}]`) as Array<Record<string, unknown>>;
    expect(parsed.map((r) => r['Who'])).toEqual(Array.from({ length: 64 }, (_, i) => awkwardRecord(i).Who));
    expect(parsed[0]!['What']).toBe(`ctl ${CONTROLS}`); // AWKWARD[2]
    expect(parsed[1]!['When']).toBe('1969-12-31T23:59:59Z'); // floored to the second, before 1970 too
    expect(parsed[4]!['When']).toBe('9999-12-31T23:59:59Z');
  });
});
