/**
 * Cost of tamper evidence (docs/integrity.md, docs/benchmarks.md):
 * 1. ingest: records stored through AuditStore.insertBatch (which chains them) against the
 *    chain computation alone over the same records, in the same run: the chain's share of ingest;
 * 2. `vigil verify`'s database check (verifyStore) over the whole store, in records/s.
 *
 *     tsx bench/integrity.bench.ts [records, default 1000000]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { AuditStore } from '../agent/store/audit-store.js';
import { GENESIS, canonicalRecord, nextChain } from '../agent/store/record-chain.js';
import { verifyStore } from '../agent/integrity/verify-store.js';
import type { NewActivityRecord } from '../shared/activity-record.js';

const total = Number(process.argv[2] ?? 1_000_000);
const BATCH = 5_000;

function batch(from: number): NewActivityRecord[] {
  const when = new Date(Date.UTC(2026, 10, 20) + from).toISOString();
  return Array.from({ length: BATCH }, (_, i) => ({
    Who: 'WS42\\alice',
    Action: 'Modified',
    What: `/home/alice/projects/report-${from + i}.docx`,
    When: when,
    Where: 'WS42',
    ObjectType: 'File',
    DataSource: 'File System',
  }));
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-integrity-bench-'));
const file = path.join(dir, 'audit.db');
const store = AuditStore.open({ file, synchronous: 'NORMAL' });
let ingestMs = 0;
let chainMs = 0;
let chain = GENESIS;
for (let at = 0; at < total; at += BATCH) {
  const records = batch(at);
  let started = performance.now();
  store.insertBatch(records);
  ingestMs += performance.now() - started;
  started = performance.now();
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    chain = nextChain(
      chain,
      canonicalRecord([
        `rid-${at + i}`,
        0,
        r.Who,
        r.Action,
        r.What,
        r.Where,
        r.ObjectType,
        r.DataSource,
        null,
        null,
        null,
        null,
        null,
      ]),
    );
  }
  chainMs += performance.now() - started;
}
store.close();
const withoutChainMs = ingestMs - chainMs;
console.log(
  JSON.stringify({
    records: total,
    ingestRecordsPerSecond: Math.round(total / (ingestMs / 1000)),
    chainShareOfIngest: `${((chainMs / withoutChainMs) * 100).toFixed(1)} % slower than without`,
  }),
);

const started = performance.now();
const checked = await verifyStore(file, null);
const verifyMs = performance.now() - started;
console.log(
  JSON.stringify({
    verifiedRecords: checked.records,
    problems: checked.problems.length,
    verifyRecordsPerSecond: Math.round(checked.records / (verifyMs / 1000)),
  }),
);
fs.rmSync(dir, { recursive: true, force: true });
