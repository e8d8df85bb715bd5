/**
 * Builds the store of the audit API benchmark (bench/audit-api.bench.ts runs this in a child
 * process, so the measuring process starts with a clean heap): inserts the records through
 * AuditStore.insertBatch (synchronous=FULL, batches of 1,000) with the substring indexer first
 * idle and then running, waits for the index to catch up, and writes the records as a TSV file
 * for ripgrep. Prints one JSON line with the figures; writes them to <dir>/build.json too.
 */
import fs from 'node:fs';
import path from 'node:path';
import { dataPaths } from '../dist/agent/config/data-dir.js';
import { silentLogger } from '../dist/agent/log/logger.js';
import { AuditStore } from '../dist/agent/store/audit-store.js';
import { SearchIndex } from '../dist/agent/store/search-index.js';
import type { NewActivityRecord } from '../shared/activity-record.js';

export const RARE = 'zebediah.quux';
const BATCH = 1000;

/** A workstation-like mix: 200 accounts on 20 hosts, file paths, some details; a rare account. */
function generator(): (i: number) => NewActivityRecord {
  let s = 7;
  const rnd = (): number => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const words = ['projects', 'docs', 'src', 'build', 'reports', 'photos', 'music', 'tmp', 'cache', 'notes'];
  const actions = ['Added', 'Modified', 'Removed', 'Renamed', 'Moved'];
  // Within the default retention (180 days) of the day the store is built: the agent's record
  // retention must not delete the store while the benchmark measures it.
  const start = Math.floor(Date.now() / 86_400_000 - 60) * 86_400_000;
  return (i) => {
    const user = i % 100_000 === 4242 ? RARE : `user${Math.floor(rnd() * 200)}`;
    const host = `HOST${Math.floor(rnd() * 20)}`;
    const record: NewActivityRecord = {
      Who: `${host}\\${user}`,
      Action: actions[Math.floor(rnd() * actions.length)]!,
      What: `/home/${user}/${words[Math.floor(rnd() * 10)]}/${words[Math.floor(rnd() * 10)]}/file-${i}.txt`,
      When: new Date(start + i * 3000).toISOString(),
      Where: `${host}.corp.local`,
      ObjectType: rnd() < 0.9 ? 'File' : 'Folder',
      DataSource: 'File System',
      MonitoringPlan: { Name: 'Local files', ID: '{42F64379-163E-4A43-A9C5-4514C5A23798}' },
      Workstation: host,
    };
    if (rnd() < 0.3) record.DetailList = [{ PropertyName: 'Size', Before: String(i), After: String(i + 10) }];
    return record;
  };
}

function insertRange(store: AuditStore, make: (i: number) => NewActivityRecord, from: number, to: number): number {
  const started = performance.now();
  for (let i = from; i < to; i += BATCH) {
    const batch: NewActivityRecord[] = [];
    for (let j = i; j < Math.min(to, i + BATCH); j++) batch.push(make(j));
    store.insertBatch(batch);
  }
  return (to - from) / ((performance.now() - started) / 1000);
}

function exportTsv(store: AuditStore, file: string): void {
  const out = fs.openSync(file, 'w');
  let buffer: string[] = [];
  const clean = (v: unknown): string => (v === null ? '' : String(v).replace(/[\t\n\r]/g, ' '));
  for (const row of store.db
    .prepare(
      'SELECT rid, when_ms, who, action, what, location, object_type, data_source, plan_name, item_name, workstation, details FROM activity_records ORDER BY seq',
    )
    .raw(true)
    .iterate() as Iterable<unknown[]>) {
    buffer.push(row.map(clean).join('\t'));
    if (buffer.length === 10_000) {
      fs.writeSync(out, buffer.join('\n') + '\n');
      buffer = [];
    }
  }
  fs.writeSync(out, buffer.join('\n') + '\n');
  fs.closeSync(out);
}

async function build(dir: string, records: number): Promise<void> {
  const paths = dataPaths(dir);
  const make = generator();
  const store = AuditStore.open({ file: paths.auditDb });
  const fifth = Math.floor(records / 5);
  const idleRate = insertRange(store, make, 0, fifth);
  const indexStarted = performance.now();
  const index = SearchIndex.start({ audit: paths.auditDb, search: paths.auditSearchDb, log: silentLogger, pollMs: 50 });
  const busyRate = insertRange(store, make, fifth, 2 * fifth);
  insertRange(store, make, 2 * fifth, records);
  const insertsDone = performance.now();
  if (!(await index.waitUntil(records, 600_000))) throw new Error('the index did not catch up in 10 minutes');
  const indexSeconds = (performance.now() - indexStarted) / 1000;
  const catchUpSeconds = (performance.now() - insertsDone) / 1000;
  await index.stop();
  exportTsv(store, path.join(dir, 'records.tsv'));
  store.db.pragma('wal_checkpoint(TRUNCATE)');
  store.close();
  const result = { records, idleRate, busyRate, indexRate: records / indexSeconds, catchUpSeconds };
  fs.writeFileSync(path.join(dir, 'build.json'), JSON.stringify(result));
  process.stdout.write(JSON.stringify(result) + '\n');
}

build(process.argv[2]!, Number(process.argv[3])).catch((error: Error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
