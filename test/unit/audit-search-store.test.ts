/**
 * The read side against an independent oracle (test/helpers/reference-filter.ts): for random
 * searches over records with awkward values (`%`, `_`, `\`, quotes, non-ASCII, missing fields),
 * paging through the SQL search returns exactly the records the oracle accepts, in `seq`
 * order — with the substring index complete, partial or absent (docs/security.md, X14).
 */
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditStore } from '../../agent/store/audit-store.js';
import { AuditReader } from '../../agent/store/audit-reader.js';
import { SearchIndexer } from '../../agent/store/search-indexer.js';
import { compileSearch } from '../../agent/store/audit-query.js';
import {
  FILTER_SPECS,
  textCondition,
  whenCondition,
  workingHoursCondition,
  type FilterCondition,
  type TextFilter,
} from '../../shared/audit-filters.js';
import type { ActivityRecord, NewActivityRecord } from '../../shared/activity-record.js';
import { referenceMatches } from '../helpers/reference-filter.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const WORDS = [
  'alice',
  'Bob',
  'carol',
  'DAVE',
  'Müller',
  'MÜLLER',
  'ünïcode',
  '100%',
  'a_b',
  'back\\slash',
  "o'neil",
  'x"y',
  'éte',
  'zed',
];
const ACTIONS = ['Added', 'Modified', 'Removed', 'Renamed', 'Moved', 'Read (Failed Attempt)'];

function makeRecord(i: number, rnd: () => number): NewActivityRecord {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  const record: NewActivityRecord = {
    Who: `HOST\\${pick(WORDS)}`,
    Action: pick(ACTIONS),
    What: `/home/${pick(WORDS)}/${pick(WORDS)}-${i}.txt`,
    When: new Date(Date.UTC(2026, 10, 1) + Math.floor(rnd() * 40 * 86_400_000)).toISOString(),
    Where: pick(['host-a', 'HOST-B', 'höst']),
    ObjectType: pick(['File', 'Folder', 'user']),
    DataSource: pick(['File System', 'Vigil API', 'Vigil Agent']),
  };
  if (rnd() < 0.6) record.MonitoringPlan = { Name: pick(['Local files', 'Plan %1', 'plan_2']) };
  if (rnd() < 0.4) record.Item = { Name: `${pick(WORDS)} (Integration)` };
  if (rnd() < 0.7) record.Workstation = pick(['ws-1', 'WS-2', 'wß']);
  if (rnd() < 0.5) {
    record.DetailList = [{ PropertyName: pick(['Size', 'Owner', 'name']), Before: pick(WORDS), After: pick(WORDS) }];
    if (rnd() < 0.3) record.DetailList.push({ PropertyName: 'Message', Message: pick(WORDS) });
  }
  return record;
}

let dir: string;
let store: AuditStore;
let records: Array<ActivityRecord & { seq: number }>;
const reference = Date.UTC(2026, 10, 20, 12);

beforeAll(() => {
  dir = makeTempDir();
  store = AuditStore.open({ file: path.join(dir, 'audit.db'), synchronous: 'NORMAL' });
  let s = 42;
  const rnd = (): number => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const stored = store.insertBatch(Array.from({ length: 600 }, (_, i) => makeRecord(i, rnd)));
  records = stored.map((r, i) => ({ ...r, seq: i + 1 }));
});
afterAll(() => store.close());

const texts: TextFilter[] = Object.keys(FILTER_SPECS).filter(
  (f) => f !== 'When' && f !== 'WorkingHours',
) as TextFilter[];

const valueArb = fc.oneof(
  fc.constantFrom(
    ...WORDS,
    'li',
    'ü',
    '%',
    '_',
    '\\',
    'host',
    'file',
    'SYSTEM',
    'plan',
    '-1',
    '.txt',
    'Read (',
    'Added',
    'HOST\\alice',
  ),
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
  .map((d) =>
    new Date(Date.UTC(2026, 9, 30) + d * 86_400_000).toISOString().replace('.000Z', '+02:00').replace(/T\d\d/, 'T05'),
  );
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
  {
    minLength: 1,
    maxLength: 4,
  },
);

async function pageAll(reader: AuditReader, conditions: FilterCondition[], count: number): Promise<number[]> {
  const compiled = compileSearch(conditions, { reference });
  const seen: number[] = [];
  let after = 0;
  for (let guard = 0; guard < 1000; guard++) {
    const page = await reader.findPage(compiled, after, count);
    if (page.seqs.length === 0) return seen;
    seen.push(...page.seqs);
    after = page.through;
  }
  throw new Error('paging did not end');
}

describe('audit search on SQLite', () => {
  it('equals the reference filter with no index, a partial index and a full index', async () => {
    const searchFile = path.join(dir, 'audit-search.db');
    const plain = new AuditReader({ file: store.file });
    const indexer = new SearchIndexer({ audit: store.file, search: searchFile });
    indexer.step(250); // the index covers the first 250 records only
    const partial = new AuditReader({ file: store.file, searchFile });
    await fc.assert(
      fc.asyncProperty(searchArb, fc.integer({ min: 1, max: 50 }), async (conditions, count) => {
        const expected = records.filter((r) => referenceMatches(r, conditions, reference)).map((r) => r.seq);
        expect(await pageAll(plain, conditions, count)).toEqual(expected);
        expect(await pageAll(partial, conditions, count)).toEqual(expected);
      }),
      { numRuns: 150 },
    );
    indexer.catchUp();
    const full = new AuditReader({ file: store.file, searchFile });
    await fc.assert(
      fc.asyncProperty(searchArb, async (conditions) => {
        const expected = records.filter((r) => referenceMatches(r, conditions, reference)).map((r) => r.seq);
        expect(await pageAll(full, conditions, 13)).toEqual(expected);
      }),
      { numRuns: 150 },
    );
    for (const r of [plain, partial, full]) r.close();
    indexer.close();
  });

  it('matches LIKE metacharacters and quotes literally', async () => {
    const reader = new AuditReader({ file: store.file });
    for (const value of ['%', '_', '\\', "'", '"', "' OR 1=1--"]) {
      const conditions = [textCondition('What', 'Contains', value, '/')];
      const expected = records.filter((r) => r.What.includes(value)).map((r) => r.seq);
      expect(await pageAll(reader, conditions, 1000)).toEqual(expected);
    }
    reader.close();
  });

  it('finds the records with non-ASCII values case-insensitively', async () => {
    const reader = new AuditReader({ file: store.file });
    const conditions = [textCondition('Who', 'Contains', 'mÜller', '/')];
    const seqs = await pageAll(reader, conditions, 1000);
    expect(seqs.length).toBeGreaterThan(0);
    expect(seqs.length).toBe(records.filter((r) => /müller/i.test(r.Who)).length);
    reader.close();
  });

  it('pages a time window both ways as a full walk would, when its records lie in two runs far apart, in none, or in more than its span is read for', async () => {
    // Records a minute apart (seq order is time order), then some written late with old times
    // (as the audit API's writers may): a window's seqs are then two runs far apart.
    const own = AuditStore.open({ file: path.join(makeTempDir(), 'audit.db'), synchronous: 'NORMAL' });
    const start = Date.UTC(2026, 9, 1);
    const at = (minute: number): NewActivityRecord => ({
      Who: `HOST\\user${minute % 7}`,
      Action: ACTIONS[minute % ACTIONS.length]!,
      What: `/f/${minute}`,
      When: new Date(start + minute * 60_000).toISOString(),
      Where: 'h',
      ObjectType: 'File',
      DataSource: 'File System',
    });
    const minutes = [...Array.from({ length: 30_000 }, (_, i) => i), 90, 95, 29_000, 5];
    for (let i = 0; i < minutes.length; i += 5_000) own.insertBatch(minutes.slice(i, i + 5_000).map(at));
    const reader = new AuditReader({ file: own.file });
    const iso = (minute: number): string => new Date(start + minute * 60_000).toISOString();
    const expected = (from: number, to: number, who?: string): number[] =>
      minutes.flatMap((m, i) =>
        m >= from && m < to && (who === undefined || `HOST\\${who}` === at(m).Who) ? [i + 1] : [],
      );
    const check = async (from: number, to: number, who?: string, count = 17): Promise<void> => {
      const conditions = [
        whenCondition('Equals', { from: iso(from), to: iso(to) }, '/w'),
        ...(who === undefined ? [] : [textCondition('Who', 'Equals', `HOST\\${who}`, '/u')]),
      ];
      const search = compileSearch(conditions, { reference });
      const forward: number[] = [];
      for (let after = 0, guard = 0; guard < 100; guard++) {
        const page = await reader.findPage(search, after, count);
        expect(page.through).toBeGreaterThanOrEqual(after);
        forward.push(...page.seqs);
        if (page.seqs.length < count) break;
        after = page.through;
      }
      expect(forward).toEqual(expected(from, to, who));
      const backward: number[] = [];
      for (let before = Number.MAX_SAFE_INTEGER, guard = 0; before > 0 && guard < 100; guard++) {
        const page = await reader.findPageBefore(search, before, count);
        backward.push(...page.seqs);
        before = page.through;
      }
      expect(backward.reverse()).toEqual(expected(from, to, who));
    };
    await check(60, 120); // an hour: its own 60 minutes at seq 61–120, then two written late
    await check(0, 10); // the first records, and one written last
    await check(29_990, 30_000, 'user3'); // the newest, one account
    await check(28_999, 29_001); // one minute written twice, 1,000 records apart
    await check(40_000, 40_060); // no record
    await check(100, 25_100, undefined, 1_000); // more records than the index is read for: a full walk
    reader.close();
    own.close();
  });

  it("bounds each record's test: a substring filter sees the first 4,096 characters of a field", async () => {
    const own = AuditStore.open({ file: path.join(makeTempDir(), 'audit.db'), synchronous: 'NORMAL' });
    const base = {
      Who: 'HOST\\x',
      Action: 'Read',
      When: '2026-11-20T10:00:00Z',
      Where: 'h',
      ObjectType: 'File',
      DataSource: 'File System',
    };
    const far = 'a'.repeat(5000) + 'NEEDLE-ü';
    const near = 'a'.repeat(4000) + 'NEEDLE-ü';
    own.insertBatch([
      { ...base, What: far, DetailList: [{ PropertyName: 'p', Before: far }] },
      { ...base, What: near, DetailList: [{ PropertyName: 'p', Before: near }] },
      { ...base, What: 'short needle-Ü' },
    ]);
    const reader = new AuditReader({ file: own.file });
    const find = async (conditions: FilterCondition[]): Promise<number[]> => {
      const page = await reader.findPage(compileSearch(conditions, { reference }), 0, 100);
      const newest = await reader.findPageBefore(compileSearch(conditions, { reference }), 100, 100);
      expect([...newest.seqs].reverse()).toEqual(page.seqs);
      return page.seqs;
    };
    const t = (filter: TextFilter, op: string, value: string): FilterCondition => textCondition(filter, op, value, '/');
    expect(await find([t('What', 'Contains', 'needle')])).toEqual([2, 3]);
    expect(await find([t('What', 'Contains', 'needle-Ü')])).toEqual([2, 3]);
    expect(await find([t('What', 'DoesNotContain', 'needle')])).toEqual([1]);
    expect(await find([t('What', 'EndsWith', 'needle-Ü')])).toEqual([1, 2, 3]);
    expect(await find([t('What', 'EndsWith', 'needle-ü'), t('What', 'StartsWith', 'short')])).toEqual([1, 2, 3]);
    expect(await find([t('What', 'Equals', near.toUpperCase())])).toEqual([2]);
    expect(await find([t('Before', 'Contains', 'NEEDLE')])).toEqual([2]);
    expect(await find([t('Detail', 'EndsWith', 'needle-ü')])).toEqual([1, 2]);
    // Several non-ASCII values of one filter are tested together, with the ASCII ones beside.
    expect(
      await find([
        t('What', 'DoesNotContain', 'ü1'),
        t('What', 'DoesNotContain', 'ü2'),
        t('What', 'Contains', 'short'),
      ]),
    ).toEqual([3]);
    expect(
      await find([t('What', 'Contains', 'zz-ü'), t('What', 'Contains', 'short'), t('What', 'DoesNotContain', 'Ü')]),
    ).toEqual([]);
    reader.close();
    own.close();
  });
});
