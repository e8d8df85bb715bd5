/**
 * The fleet database's audit search against the same oracle as the SQLite store's
 * (test/helpers/reference-filter.ts), on a real PostgreSQL: random searches over records with
 * awkward values (`%`, `_`, `\`, quotes, letters only Unicode folds, fields past the 4,096
 * characters a substring test reads, missing fields) page to exactly the records the oracle
 * accepts; the records' JSON and XML rows, and the slices of a page, are those of the SQLite store.
 */
import path from 'node:path';
import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openFleetPool, writeFleetPassword } from '../../agent/fleet/fleet-connection.js';
import { compilePgSearch } from '../../agent/fleet/pg-audit-query.js';
import type { PgAuditRecords } from '../../agent/fleet/pg-audit-records.js';
import { insertRecords, type ForwardedRow } from '../helpers/fleet-rows.js';
import { AuditReader } from '../../agent/store/audit-reader.js';
import { AuditStore } from '../../agent/store/audit-store.js';
import type { ActivityRecord, NewActivityRecord } from '../../shared/activity-record.js';
import {
  FILTER_SPECS,
  textCondition,
  whenCondition,
  workingHoursCondition,
  type FilterCondition,
  type TextFilter,
} from '../../shared/audit-filters.js';
import type { PostgresServer } from '../helpers/postgres-server.js';
import { readingFleetRecords, startReadingFleet } from '../helpers/fleet-reading.js';
import { referenceMatches } from '../helpers/reference-filter.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const WORDS = [
  'alice',
  'Bob',
  'DAVE',
  'Müller',
  'MÜLLER',
  'ünïcode',
  '100%',
  'a_b',
  'back\\slash',
  "o'neil",
  'x"y',
  'ΟΔΟΣ', // a final sigma when lower-cased
  '\u212AELVIN', // U+212A KELVIN SIGN: lower-cases to an ASCII k, which ASCII folding must not do
  'İstanbul', // lower-cases to two code points
  'straße',
];
const ACTIONS = ['Added', 'Modified', 'Removed', 'Read (Failed Attempt)'];
const LONG = 'a'.repeat(5000) + 'NEEDLE-ü';

function makeRecord(i: number, rnd: () => number): NewActivityRecord {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  const record: NewActivityRecord = {
    Who: `HOST\\${pick(WORDS)}`,
    Action: pick(ACTIONS),
    What: i % 50 === 0 ? LONG : `/home/${pick(WORDS)}/${pick(WORDS)}-${i}.txt`,
    When: new Date(Date.UTC(2026, 10, 1) + Math.floor(rnd() * 40 * 86_400_000)).toISOString(),
    Where: pick(['host-a', 'HOST-B', 'höst']),
    ObjectType: pick(['File', 'Folder', 'user']),
    DataSource: pick(['File System', 'Vigil API']),
  };
  if (rnd() < 0.6) record.MonitoringPlan = { Name: pick(['Local files', 'Plan %1', 'plan_2']) };
  if (rnd() < 0.4) record.Item = { Name: `${pick(WORDS)} (Integration)` };
  if (rnd() < 0.7) record.Workstation = pick(['ws-1', 'WS-2', 'wß']);
  if (rnd() < 0.5) {
    record.DetailList = [{ PropertyName: pick(['Size', 'Owner', 'name']), Before: pick(WORDS), After: pick(WORDS) }];
    if (rnd() < 0.3) record.DetailList.push({ PropertyName: 'Message', Message: i % 7 === 0 ? LONG : pick(WORDS) });
  }
  return record;
}

const reference = Date.UTC(2026, 10, 20, 12);
let server: PostgresServer;
let pool: pg.Pool;
let store: AuditStore;
let reader: AuditReader;
let fleetStore: PgAuditRecords;
let records: ActivityRecord[];
/** The fleet seq of each record, in the order of `records`. */
let fleetSeqs: number[];

beforeAll(async () => {
  let dataDir: string;
  ({ server, pool, dataDir } = await startReadingFleet('vigil-fleet-query-'));
  store = AuditStore.open({ file: path.join(dataDir, 'audit.db'), synchronous: 'NORMAL' });
  let s = 7;
  const rnd = (): number => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  records = store.insertBatch(Array.from({ length: 500 }, (_, i) => makeRecord(i, rnd)));
  const rows = store.db
    .prepare(
      `SELECT seq, rid, when_ms, who, action, what, location, object_type, data_source, plan_name, plan_id,
              item_name, workstation, details, chain FROM activity_records ORDER BY seq`,
    )
    .all() as ForwardedRow[];
  // Another agent's records first, so fleet positions differ from the local ones.
  await insertRecords(pool, 'other-agent', [{ ...rows[0]!, seq: 1, rid: 'OTHER' }]);
  for (let i = 0; i < rows.length; i += 100) await insertRecords(pool, 'agent-a', rows.slice(i, i + 100));
  const found = await pool.query<{ seq: string }>(
    "SELECT seq FROM vigil_records WHERE agent_id = 'agent-a' ORDER BY agent_seq",
  );
  fleetSeqs = found.rows.map((r) => Number(r.seq));
  await pool.query("DELETE FROM vigil_records WHERE rid = 'OTHER'");
  reader = new AuditReader({ file: store.file });
  fleetStore = readingFleetRecords(pool);
}, 120_000);

afterAll(async () => {
  reader?.close(true);
  store?.close();
  await pool?.end();
  await server?.stop();
});

const texts = Object.keys(FILTER_SPECS).filter((f) => f !== 'When' && f !== 'WorkingHours') as TextFilter[];
const valueArb = fc.oneof(
  fc.constantFrom(...WORDS, 'li', 'ü', 'σ', 'ς', 'k', 'i̇', 'SS', '%', '_', '\\', 'host', '.txt', 'needle'),
  fc.constantFrom(...WORDS).map((w) => w.slice(1, 4)),
);
const textConditionArb = fc
  .record({ filter: fc.constantFrom(...texts), op: fc.nat(20), value: valueArb })
  .map(({ filter, op, value }) => {
    const operators = FILTER_SPECS[filter].operators.filter((o) => o !== 'InGroup' && o !== 'NotInGroup');
    return textCondition(filter, operators[op % operators.length], value, '/t');
  });
const dateArb = fc
  .integer({ min: 0, max: 45 })
  .map((d) => new Date(Date.UTC(2026, 9, 30) + d * 86_400_000).toISOString().replace('.000Z', '+02:00'));
const whenArb = fc.oneof(
  fc
    .constantFrom('Today', 'Yesterday', 'LastSevenDays', 'LastThirtyDays')
    .map((t) => whenCondition(undefined, { timeframe: t as 'Today' }, '/w')),
  fc
    .tuple(dateArb, dateArb, fc.boolean())
    .filter(([a, b]) => Date.parse(a) < Date.parse(b))
    .map(([from, to, neg]) => whenCondition(neg ? 'NotEqualTo' : 'Equals', { from, to }, '/w')),
);
const hoursArb = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 23 }), fc.boolean())
  .filter(([a, b]) => a !== b)
  .map(([a, b, neg]) =>
    workingHoursCondition(
      neg ? 'NotEqualTo' : 'Equals',
      `${String(a).padStart(2, '0')}:00:00+01:00`,
      `${String(b).padStart(2, '0')}:30:00Z`,
      '/h',
    ),
  );
const searchArb: fc.Arbitrary<FilterCondition[]> = fc.array(
  fc.oneof(
    { weight: 6, arbitrary: textConditionArb },
    { weight: 1, arbitrary: whenArb },
    { weight: 1, arbitrary: hoursArb },
  ),
  { minLength: 1, maxLength: 4 },
);

const GROUPS = new Map([
  ['admins', ['host\\alice', 'host\\dave']],
  ['foreign', ['host\\müller', 'host\\οδος']],
]);

/** The records of every page of `conditions`, as indexes into `records`. */
async function pageAll(conditions: FilterCondition[], count: number): Promise<number[]> {
  const query = { conditions, reference, groupMembers: (group: string) => GROUPS.get(group) ?? [] };
  const seen: number[] = [];
  let after = 0;
  for (let guard = 0; guard < 1000; guard++) {
    const page = await fleetStore.findPage(query, after, count, () => false);
    if (page.seqs.length === 0) return seen.map((seq) => fleetSeqs.indexOf(seq));
    seen.push(...page.seqs);
    after = page.through;
  }
  throw new Error('paging did not end');
}

const expected = (conditions: FilterCondition[]): number[] =>
  records.flatMap((r, i) => (referenceMatches(r, conditions, reference, GROUPS) ? [i] : []));

describe('audit search on the fleet database', () => {
  it('equals the reference filter for random searches, page by page', async () => {
    await fc.assert(
      fc.asyncProperty(searchArb, fc.integer({ min: 1, max: 60 }), async (conditions, count) => {
        expect(await pageAll(conditions, count)).toEqual(expected(conditions));
      }),
      { numRuns: 80 },
    );
  }, 180_000);

  it('folds letters as the SQLite store does: ASCII values fold ASCII letters only, others by Unicode', async () => {
    const t = (filter: TextFilter, op: string, value: string): FilterCondition => textCondition(filter, op, value, '/');
    const cases: FilterCondition[][] = [
      [t('Who', 'Contains', 'k')],
      [t('Who', 'Contains', 'elvin')],
      [t('Who', 'EndsWith', 'οδος')], // final sigma on both sides
      [t('Who', 'EndsWith', 'ΟΔΟΣ')],
      [t('Who', 'StartsWith', 'host\\i̇st')],
      [t('Who', 'Equals', 'HOST\\STRASSE')], // ß does not become ss
      [t('What', 'Contains', 'needle')], // past the first 4,096 characters: not seen
      [t('What', 'EndsWith', 'NEEDLE-Ü')], // EndsWith reads the end
      [t('Detail', 'Contains', 'needle-ü')],
      [t('Detail', 'EndsWith', 'needle-ü')],
      [t('What', 'Contains', '100%')],
      [t('What', 'Contains', 'a_b')],
      [t('Before', 'Contains', 'x"y')],
      [t('Who', 'InGroup', 'admins')],
      [t('Who', 'NotInGroup', 'foreign')],
      [t('Who', 'InGroup', 'foreign')],
    ];
    for (const conditions of cases) {
      const want = expected(conditions);
      expect(await pageAll(conditions, 1000), JSON.stringify(conditions)).toEqual(want);
    }
    expect(expected([t('What', 'EndsWith', 'NEEDLE-Ü')]).length).toBeGreaterThan(0);
    expect(expected([t('Who', 'Contains', 'kelvin')])).toEqual([]); // the Kelvin sign is not an ASCII K
    expect(expected([t('Who', 'Contains', 'elvin')]).length).toBeGreaterThan(0);
    expect(await pageAll([t('Who', 'Contains', 'kelvin')], 1000)).toEqual([]);
  });

  it('answers the same JSON bytes, XML rows and slices as the SQLite store', async () => {
    const local = Array.from({ length: records.length }, (_, i) => i + 1);
    const sparse = fleetSeqs.filter((_, i) => i % 3 === 0);
    const sparseLocal = local.filter((_, i) => i % 3 === 0);
    expect((await fleetStore.fetchJson(fleetSeqs)).toString()).toBe(reader.fetchJson(local).toString());
    expect((await fleetStore.fetchJson(sparse)).toString()).toBe(reader.fetchJson(sparseLocal).toString());
    const withoutSeq = (rows: unknown[][]): unknown[][] => rows.map((row) => row.slice(1));
    expect(withoutSeq(await fleetStore.fetchRaw(sparse))).toEqual(withoutSeq(reader.fetchRaw(sparseLocal)));
    const toLocal = (slices: number[][]): number[][] =>
      slices.map((slice) => slice.map((seq) => fleetSeqs.indexOf(seq) + 1));
    // Cut by the sizes an enumeration page read along, and by measuring rows no page has chosen.
    const enumeration = { conditions: [], reference, groupMembers: () => [] };
    const page = await fleetStore.findPage(enumeration, 0, fleetSeqs.length, () => false);
    expect(page.seqs).toEqual(fleetSeqs);
    for (const store of [fleetStore, readingFleetRecords(pool)]) {
      for (const maxBytes of [20_000, 8 * 1024 * 1024]) {
        expect(toLocal(await store.slices(fleetSeqs, 100, maxBytes))).toEqual(reader.slices(local, 100, maxBytes));
        const sparseSlices = await store.slices(sparse, 10, maxBytes / 10);
        expect(toLocal(sparseSlices)).toEqual(reader.slices(sparseLocal, 10, maxBytes / 10));
      }
    }
  });

  it('reads a search page day by day with the same rows, JSON and slices as the SQLite store', async () => {
    const conditions = [textCondition('Who', 'Equals', 'HOST\\alice', '/')];
    const page = await fleetStore.findPage({ conditions, reference, groupMembers: () => [] }, 0, 1000, () => false);
    const local = page.seqs.map((seq) => fleetSeqs.indexOf(seq) + 1);
    expect(local).toEqual(expected(conditions).map((i) => i + 1));
    const days = await pool.query<{ n: number }>(
      'SELECT count(DISTINCT day)::int AS n FROM vigil_records WHERE seq = ANY($1::bigint[])',
      [page.seqs],
    );
    expect(days.rows[0]!.n).toBeGreaterThan(3); // spread over day partitions and the default one
    expect((await fleetStore.fetchJson(page.seqs)).toString()).toBe(reader.fetchJson(local).toString());
    const toLocal = (slices: number[][]): number[][] =>
      slices.map((slice) => slice.map((seq) => fleetSeqs.indexOf(seq) + 1));
    expect(toLocal(await fleetStore.slices(page.seqs, 7, 3000))).toEqual(reader.slices(local, 7, 3000));
  });

  it('lets PostgreSQL answer Who and Action Equals from the folded index and a When range from its days only', async () => {
    const plan = async (conditions: FilterCondition[]): Promise<string> => {
      const search = compilePgSearch(conditions, { reference, unicodeCollation: null });
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('SET LOCAL enable_seqscan = off'); // a table this small would be read whole
        const result = await client.query(`EXPLAIN SELECT a.seq FROM vigil_records AS a WHERE ${search.where}`, [
          ...search.params,
        ]);
        await client.query('ROLLBACK');
        return result.rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n');
      } finally {
        client.release();
      }
    };
    expect(await plan([textCondition('Who', 'Equals', 'HOST\\Alice', '/')])).toMatch(/Index Cond: \(lower\(/);
    // Who with Action: both answered by the index, not the action tested on every account's record.
    const movedBy = await plan([
      textCondition('Who', 'Equals', 'HOST\\Alice', '/'),
      textCondition('Action', 'Equals', 'moved', '/a'),
    ]);
    expect(movedBy).toMatch(/Index Cond: \(\(lower\(\(who\)::text\) = [^\n]*\) AND \(lower\(\(action\)::text\) = /);
    // Two accounts: one array test, still answered by the index.
    expect(
      await plan([
        textCondition('Who', 'Equals', 'HOST\\Alice', '/'),
        textCondition('Who', 'Equals', 'HOST\\Bob', '/b'),
      ]),
    ).toMatch(/Index Cond: \(lower\(\(who\)::text\) = ANY/);
    // Action alone is not written for the index: its second column would make PostgreSQL read all of it.
    expect(await plan([textCondition('Action', 'Equals', 'moved', '/a')])).not.toContain('lower((action)');
    const day = Date.now() + 86_400_000; // tomorrow: a day partition of its own
    const from = new Date(Math.floor(day / 86_400_000) * 86_400_000 + 3_600_000).toISOString();
    const to = new Date(Date.parse(from) + 3_600_000).toISOString();
    const window = await plan([whenCondition('Equals', { from, to }, '/w')]);
    const read = new Set(window.match(/vigil_records_p\d{8}/g));
    expect([...read]).toEqual([`vigil_records_p${from.slice(0, 10).replace(/-/g, '')}`]);
    expect(window).not.toContain('vigil_records_default');
  });

  it("reads a page of one account's records, and of its moves, in seq order from the index instead of sorting them all", async () => {
    const pagePlan = async (conditions: FilterCondition[]): Promise<string> => {
      const search = compilePgSearch(conditions, { reference, unicodeCollation: null });
      const n = search.params.length;
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        // A table this small would be read whole or sorted: the plans compared are the ones
        // PostgreSQL picks on millions of records (docs/benchmarks.md, "Fleet audit API").
        await client.query('SET LOCAL enable_seqscan = off; SET LOCAL enable_sort = off');
        const result = await client.query(
          `EXPLAIN SELECT a.seq FROM vigil_records AS a WHERE a.seq > $${n + 1} AND (${search.where})
             ORDER BY a.seq LIMIT $${n + 2}`,
          [...search.params, 0, 1000],
        );
        await client.query('ROLLBACK');
        return result.rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n');
      } finally {
        client.release();
      }
    };
    // One test of the account, not the folded one ANDed with the ILIKE: PostgreSQL multiplied
    // their selectivities, guessed one row a partition and sorted all of the account's records.
    const compiled = compilePgSearch([textCondition('Who', 'Equals', 'HOST\\Alice', '/')], {
      reference,
      unicodeCollation: null,
    });
    expect(compiled.where).toBe('((lower(a.who COLLATE "C") = $1))');
    const account = await pagePlan([textCondition('Who', 'Equals', 'HOST\\Alice', '/')]);
    expect(account).toMatch(/Index Cond: \(\(lower\(\(who\)::text\) = 'host\\alice'::text\) AND \(seq > /);
    expect(account).not.toMatch(/^\s*(->\s+)?(Incremental )?Sort {2}\(/m); // a Sort node, not the Merge Append's Sort Key
    const moves = await pagePlan([
      textCondition('Who', 'Equals', 'HOST\\Alice', '/'),
      textCondition('Action', 'Equals', 'moved', '/a'),
    ]);
    expect(moves).toMatch(
      /Index Cond: \(\(lower\(\(who\)::text\) = '[^']*'::text\) AND \(lower\(\(action\)::text\) = 'moved'::text\) AND \(seq > /,
    );
    expect(moves).not.toMatch(/^\s*(->\s+)?(Incremental )?Sort {2}\(/m); // a Sort node, not the Merge Append's Sort Key
  });

  it('gives every member the same mark key, made once', async () => {
    const dataDir = makeTempDir('vigil-fleet-query-');
    writeFleetPassword(dataDir, server.password);
    const otherPool = openFleetPool({ database: server.url }, dataDir);
    try {
      const other = readingFleetRecords(otherPool);
      const [a, b] = await Promise.all([fleetStore.markKey(), other.markKey()]);
      expect(a).toHaveLength(32);
      expect(b.equals(a)).toBe(true);
      const stored = await pool.query('SELECT count(*)::int AS n FROM vigil_fleet_keys');
      expect(stored.rows[0].n).toBe(1);
    } finally {
      await otherPool.end();
    }
  });
});
