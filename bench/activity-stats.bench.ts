/**
 * Activity at a glance benchmark (docs/benchmarks.md "Activity at a glance"): 1,000,000 records
 * over the last 7 days inserted through the AuditStore, then the p50/p95 of each console view
 * (24 h by 15 minutes, 7 days by hour, with the top-10 lists) read through ActivityRollup:
 * with the rollup up to date, and right after 10,000 new records (the view catches up first).
 * Limit: p95 under 200 ms.
 *
 *   npx tsx bench/activity-stats.bench.ts      (RECORDS=1000000 RUNS=40 to change the size)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AuditStore } from '../agent/store/audit-store.js';
import { ActivityRollup, type StatsRange } from '../agent/store/activity-rollup.js';
import type { NewActivityRecord } from '../shared/activity-record.js';

const RECORDS = Number(process.env['RECORDS'] ?? 1_000_000);
const RUNS = Number(process.env['RUNS'] ?? 40);
const AFTER_NEW = 10_000;
const SPAN_MS = 7 * 24 * 3_600_000;
const ACTIONS = ['Added', 'Modified', 'Modified', 'Modified', 'Removed', 'Renamed', 'Moved'];
const PROCESSES = Array.from({ length: 25 }, (_, i) => `/usr/bin/tool-${i}`);

let seed = 1;
const rnd = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;

function record(i: number, whenMs: number): NewActivityRecord {
  const user = Math.floor(rnd() ** 2 * 60); // a few busy actors, many quiet ones
  const record: NewActivityRecord = {
    Who: `WS\\user${user}`,
    Action: ACTIONS[Math.floor(rnd() * ACTIONS.length)]!,
    What: `/home/user${user}/project-${Math.floor(rnd() * 40)}/file-${i}.txt`,
    When: new Date(whenMs).toISOString(),
    Where: 'ws1',
    ObjectType: 'File',
    DataSource: 'File System',
  };
  if (rnd() < 0.8) record.DetailList = [{ PropertyName: 'Process', Message: PROCESSES[Math.floor(rnd() * 25)]! }];
  return record;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const ms = (n: number): string => `${n.toFixed(1)} ms`;

async function time(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-activity-stats-'));
  const store = AuditStore.open({ file: path.join(dir, 'audit.db') });
  try {
    const now = Date.now();
    const start = performance.now();
    for (let at = 0; at < RECORDS; at += 10_000) {
      const batch: NewActivityRecord[] = [];
      // In time order, as the pipeline writes them.
      for (let i = at; i < Math.min(RECORDS, at + 10_000); i++)
        batch.push(record(i, now - SPAN_MS + (i / RECORDS) * SPAN_MS));
      store.insertBatch(batch);
    }
    console.log(`inserted ${RECORDS.toLocaleString()} records in ${ms(performance.now() - start)}`);

    const rollup = new ActivityRollup(store);
    console.log(`first catch-up (every record): ${ms(await time(() => rollup.catchUp()))}`);
    const rows = store.db.prepare('SELECT count(*) AS n FROM activity_rollup').get() as { n: number };
    console.log(`rollup rows: ${rows.n.toLocaleString()}`);

    const results: string[] = [];
    for (const range of ['24h', '7d'] as StatsRange[]) {
      const upToDate: number[] = [];
      for (let i = 0; i < RUNS; i++) upToDate.push(await time(() => rollup.stats(range)));
      const afterNew: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        store.insertBatch(Array.from({ length: AFTER_NEW }, (_, j) => record(RECORDS + i * AFTER_NEW + j, Date.now())));
        afterNew.push(await time(() => rollup.stats(range)));
      }
      for (const [label, samples] of [
        ['up to date', upToDate],
        [`after ${AFTER_NEW.toLocaleString()} new records`, afterNew],
      ] as const) {
        const sorted = [...samples].sort((a, b) => a - b);
        results.push(
          `| ${range} | ${label} | ${samples.length} | ${ms(percentile(sorted, 50))} | ${ms(percentile(sorted, 95))} |`,
        );
      }
    }
    console.log('| View | Rollup | Runs | p50 | p95 |\n|---|---|---|---|---|');
    for (const line of results) console.log(line);
  } finally {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
