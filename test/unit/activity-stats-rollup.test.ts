/**
 * The activity rollup (agent/store/activity-rollup.ts) on real SQLite: every chart bucket and
 * every top-10 entry equals what the audit search counts for the same filter; records written
 * after a catch-up are counted by the next view, or in the background soon after a commit;
 * retention's deletions leave the counts.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditStore } from '../../agent/store/audit-store.js';
import { AuditReader } from '../../agent/store/audit-reader.js';
import { compileSearch } from '../../agent/store/audit-query.js';
import { ActivityRollup, type ActivityStats } from '../../agent/store/activity-rollup.js';
import { FOLDER_WHAT_BYTES, NAME_CHARS } from '../../agent/store/activity-rollup-schema.js';
import { EventLoopMonitor } from '../../agent/status/event-loop-monitor.js';
import { textCondition, whenCondition, type FilterCondition } from '../../shared/audit-filters.js';
import type { NewActivityRecord } from '../../shared/activity-record.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 10, 20, 12, 40);
const ACTIONS = ['Added', 'Modified', 'Removed', 'Renamed'];
const USERS = ['WS\\alice', 'WS\\bob', 'WS\\carol', 'WS\\dave'];
const FOLDERS = ['/home/alice/docs', '/home/bob', '/srv/share', 'C:\\Users\\carol'];
const PROCESSES = ['/usr/bin/cp', '/usr/bin/rsync', 'C:\\Windows\\explorer.exe'];

let seed = 7;
const rnd = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;

function makeRecord(i: number, spanMs: number): NewActivityRecord {
  const folder = pick(FOLDERS);
  const sep = folder.includes('\\') ? '\\' : '/';
  const record: NewActivityRecord = {
    Who: pick(USERS),
    Action: pick(ACTIONS),
    What: `${folder}${sep}file-${i}.txt`,
    When: new Date(NOW - Math.floor(rnd() * spanMs)).toISOString(),
    Where: 'ws',
    ObjectType: rnd() < 0.9 ? 'File' : 'user',
    DataSource: 'File System',
  };
  if (rnd() < 0.7) record.DetailList = [{ PropertyName: 'Process', Message: pick(PROCESSES) }];
  return record;
}

let store: AuditStore;
let reader: AuditReader;
let rollup: ActivityRollup;

beforeAll(() => {
  const dir = makeTempDir();
  store = AuditStore.open({ file: path.join(dir, 'audit.db'), synchronous: 'NORMAL' });
  // Eight days, so the 7-day view has records on both sides of its start.
  store.insertBatch(Array.from({ length: 3000 }, (_, i) => makeRecord(i, 8 * 24 * HOUR)));
  reader = new AuditReader({ file: store.file });
  // Slices of about a millisecond: many slices, each its own transaction.
  rollup = new ActivityRollup(store, { viewStepMs: 1, now: () => NOW });
});
afterAll(() => {
  reader.close();
  store.close();
});

async function search(conditions: FilterCondition[]): Promise<NewActivityRecord[]> {
  const compiled = compileSearch(conditions, { reference: NOW });
  const seqs: number[] = [];
  let after = 0;
  for (;;) {
    const page = await reader.findPage(compiled, after, 1000);
    if (page.seqs.length === 0) break;
    seqs.push(...page.seqs);
    after = page.through;
  }
  const records: NewActivityRecord[] = [];
  for (let at = 0; at < seqs.length; at += 500) {
    for (const row of reader.fetchRaw(seqs.slice(at, at + 500))) {
      records.push({ Who: row[3], Action: row[4], What: row[5] } as NewActivityRecord);
    }
  }
  return records;
}

const between = (from: number, to: number): FilterCondition =>
  whenCondition('Equals', { from: new Date(from).toISOString(), to: new Date(to).toISOString() }, '/w');

async function expectMatchesSearch(stats: ActivityStats): Promise<void> {
  for (const bucket of stats.buckets) {
    const found = await search([between(bucket.start, bucket.start + stats.bucketMs)]);
    const byAction: Record<string, number> = {};
    for (const r of found) byAction[r.Action] = (byAction[r.Action] ?? 0) + 1;
    expect(bucket.counts, new Date(bucket.start).toISOString()).toEqual(byAction);
  }
  const range = between(stats.from, stats.to);
  for (const entry of stats.top.who) {
    expect((await search([range, textCondition('Who', 'Equals', entry.value, '/')])).length).toBe(entry.count);
  }
  for (const entry of stats.top.process) {
    expect((await search([range, textCondition('Detail', 'Equals', entry.value, '/')])).length).toBe(entry.count);
  }
  const inRange = await search([range, textCondition('ObjectType', 'Equals', 'File', '/')]);
  for (const entry of stats.top.folder) {
    const sep = entry.value.includes('\\') ? '\\' : '/';
    const direct = inRange.filter((r) => r.What.slice(0, r.What.lastIndexOf(sep)) === entry.value);
    expect(direct.length, entry.value).toBe(entry.count);
  }
}

describe('activity rollup', () => {
  it('counts each 24-hour and 7-day bucket and top entry as the search does', async () => {
    const day = await rollup.stats('24h');
    expect(day.buckets).toHaveLength(96);
    expect(day.to).toBe(Date.UTC(2026, 10, 20, 13));
    expect(day.top.who.map((e) => e.value).sort()).toEqual([...USERS].sort());
    expect(day.top.folder.map((e) => e.value).sort()).toEqual([...FOLDERS].sort());
    expect(day.top.process.map((e) => e.value).sort()).toEqual([...PROCESSES].sort());
    await expectMatchesSearch(day);
    const week = await rollup.stats('7d');
    expect(week.buckets).toHaveLength(168);
    await expectMatchesSearch(week);
  });

  it('counts records written after the last view, in slices', async () => {
    const before = await rollup.stats('24h');
    const total = (s: ActivityStats): number =>
      s.buckets.reduce((n, b) => n + Object.values(b.counts).reduce((a, c) => a + c, 0), 0);
    store.insertBatch(Array.from({ length: 1000 }, (_, i) => makeRecord(5000 + i, 2 * HOUR)));
    const after = await rollup.stats('24h');
    expect(total(after)).toBe(total(before) + 1000);
    await expectMatchesSearch(after);
  });

  it('counts new records in the background after a commit, before any view asks', async () => {
    const dir = makeTempDir();
    const own = AuditStore.open({ file: path.join(dir, 'audit.db'), synchronous: 'NORMAL' });
    const background = new ActivityRollup(own, { now: () => NOW, backgroundDelayMs: 20, backgroundStepMs: 1 });
    const throughSeq = (): number =>
      own.db.prepare('SELECT through_seq FROM activity_rollup_state WHERE id = 1').pluck().get() as number;
    own.insertBatch(Array.from({ length: 1000 }, (_, i) => makeRecord(9000 + i, 2 * HOUR)));
    background.soon();
    background.soon(); // a burst of commits shares one run
    const last = own.db.prepare('SELECT max(seq) FROM activity_records').pluck().get() as number;
    await expect.poll(throughSeq, { timeout: 10_000 }).toBe(last);
    // Read as it stands, without a catch-up: all 1,000 are there.
    const stats = background.read('24h', NOW);
    expect(stats.buckets.reduce((n, b) => n + Object.values(b.counts).reduce((a, c) => a + c, 0), 0)).toBe(1000);

    // Stopped: a commit after that is left for the next view, not counted behind its back.
    await background.stop();
    own.insertBatch(Array.from({ length: 10 }, (_, i) => makeRecord(9500 + i, HOUR)));
    background.soon();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(throughSeq()).toBe(last);
    own.close();
  });

  it('bounds the text one slice reads: a large record is counted in a slice of its own', async () => {
    const dir = makeTempDir();
    const own = AuditStore.open({ file: path.join(dir, 'audit.db'), synchronous: 'NORMAL' });
    const sliced = new ActivityRollup(own, { now: () => NOW });
    const when = new Date(NOW).toISOString();
    const base = { Who: 'u', Action: 'Added', When: when, Where: 'ws', ObjectType: 'File', DataSource: 'File System' };
    const big = `/srv/${'x'.repeat(300_000)}/big.txt`;
    own.insertBatch(['/a/1.txt', big, '/a/2.txt', '/a/3.txt', big].map((What) => ({ ...base, What })));
    const throughSeq = (): number =>
      own.db.prepare('SELECT through_seq FROM activity_rollup_state WHERE id = 1').pluck().get() as number;
    const ends: number[] = [];
    while (sliced.step(1000, 256 * 1024)) ends.push(throughSeq());
    // Slices: the small one with the big one that passes the budget, the two small ones with the
    // next big one, never two big ones together.
    expect(ends).toEqual([2, 5]);
    // A What longer than any path counts no folder (activity-rollup-schema.ts FOLDER_WHAT_BYTES).
    expect(sliced.read('24h', NOW).top.folder.map((e) => [e.value, e.count])).toEqual([['/a', 3]]);
    expect(sliced.read('24h', NOW).top.who).toEqual([{ value: 'u', count: 5 }]);
    own.close();
  });

  it('keeps the event loop turning while it counts: slices sized by time, a long What costing little', async () => {
    const dir = makeTempDir();
    const own = AuditStore.open({ file: path.join(dir, 'audit.db'), synchronous: 'NORMAL' });
    const when = new Date(NOW).toISOString();
    const base = { Who: 'u', Action: 'Added', When: when, Where: 'ws', ObjectType: 'File', DataSource: 'File System' };
    // 80,000 distinct characters without a separator: the folder expression's rtrim, given the
    // whole value as its set, compared every one with every other (3.8 s for this one record).
    const distinct = Array.from({ length: 80_000 }, (_, i) =>
      String.fromCodePoint(0x4e00 + (i % 20_000) + (i >= 20_000 ? 0x10000 : 0)),
    );
    // Deep paths just under and just over the size a folder is looked for (7 bytes a level), a
    // file name longer than any and one just short of the longest.
    const deep = (levels: number): string => `/x${'/目录'.repeat(levels)}`;
    const under = Math.floor((FOLDER_WHAT_BYTES - 6) / 7);
    const longName = `/srv/files/${distinct.slice(0, NAME_CHARS + 40).join('')}`;
    const named = `/srv/files/${distinct.slice(0, NAME_CHARS - 5).join('')}`;
    own.insertBatch(Array.from({ length: 20_000 }, (_, i) => ({ ...base, What: `/srv/share/f-${i}.txt` })));
    const odd = [`/y/${distinct.join('')}`, `${deep(under)}/f.txt`, `${deep(under + 1)}/f.txt`, longName, named];
    own.insertBatch(odd.map((What) => ({ ...base, What })));
    const counting = new ActivityRollup(own, { now: () => NOW });
    const monitor = new EventLoopMonitor();
    try {
      const stats = await counting.stats('24h');
      const loop = monitor.snapshot();
      // No turn of 100 ms (docs/architecture.md): a view's slices last about 25 ms each.
      expect(loop.blocked?.maxMs ?? loop.maxMs, JSON.stringify(loop)).toBeLessThan(100);
      expect(stats.top.who).toEqual([{ value: 'u', count: 20_005 }]);
      // The folders that are paths are named; the values that are not count none.
      expect(stats.top.folder.map((e) => [e.value, e.count])).toEqual([
        ['/srv/share', 20_000],
        ['/srv/files', 1],
        [deep(under), 1],
      ]);
    } finally {
      monitor.stop();
      own.close();
    }
  });

  it('counts again under the new folder expression after the upgrade that bounded it (migration 7)', async () => {
    const dir = makeTempDir();
    const file = path.join(dir, 'audit.db');
    const old = AuditStore.open({ file, synchronous: 'NORMAL' });
    const when = new Date(NOW).toISOString();
    const base = { Who: 'u', Action: 'Added', When: when, Where: 'ws', ObjectType: 'File', DataSource: 'File System' };
    old.insertBatch(['/a/1.txt', '/a/2.txt'].map((What) => ({ ...base, What })));
    await new ActivityRollup(old, { now: () => NOW }).stats('24h');
    // What version 6 may have counted: a folder the new expression does not name.
    old.db
      .prepare("INSERT INTO activity_rollup VALUES ('folder', ?, ?, 7)")
      .run(NOW - (NOW % HOUR), 'x'.repeat(20_000));
    old.db.pragma('user_version = 6');
    old.close();
    const upgraded = AuditStore.open({ file, synchronous: 'NORMAL' });
    try {
      expect(upgraded.db.prepare('SELECT through_seq FROM activity_rollup_state').pluck().get()).toBe(0);
      const stats = await new ActivityRollup(upgraded, { now: () => NOW }).stats('24h');
      expect(stats.top.folder).toEqual([{ value: '/a', count: 2 }]);
      expect(stats.top.who).toEqual([{ value: 'u', count: 2 }]);
    } finally {
      upgraded.close();
    }
  });

  it('takes records deleted by retention out of the counts', async () => {
    const cutoff = NOW - 3 * 24 * HOUR - 17 * 60_000;
    let deleted = 0;
    for (let n = store.deleteOlderThan(cutoff, 400); n > 0; n = store.deleteOlderThan(cutoff, 400)) deleted += n;
    expect(deleted).toBeGreaterThan(0);
    const week = await rollup.stats('7d');
    await expectMatchesSearch(week);
  });

  it('names a root folder and leaves paths without a folder out', async () => {
    const dir = makeTempDir();
    const small = AuditStore.open({ file: path.join(dir, 'audit.db'), synchronous: 'NORMAL' });
    const when = new Date(NOW).toISOString();
    const base = { Who: 'u', Action: 'Added', When: when, Where: 'ws', ObjectType: 'File', DataSource: 'File System' };
    small.insertBatch(
      ['/top.txt', 'C:\\top.txt', 'no-folder.txt', '/a/b/', 'D:\\x\\y.txt'].map((What) => ({ ...base, What })),
    );
    const stats = await new ActivityRollup(small, { now: () => NOW }).stats('24h');
    expect(stats.top.folder.map((e) => e.value).sort()).toEqual(['/', '/a/b', 'C:\\', 'D:\\x'].sort());
    small.close();
  });
});
