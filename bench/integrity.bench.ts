/**
 * Cost of tamper evidence (docs/integrity.md, docs/benchmarks.md):
 * 1. ingest: records stored through AuditStore.insertBatch (which chains them) against the
 *    chain computation alone over the same records, as the store does it (chainRows over the
 *    bound values of each 32-row slice), in the same run: the chain's share of ingest; and
 *    the same computation through the node:crypto fallback (without the native addon);
 * 2. `vigil verify`'s database check (verifyStore) over the whole store, in records/s, with its
 *    default worker threads and with one thread. It runs from the compiled agent (dist/, built
 *    by `npx tsc -b`) as `vigil verify` does: threads started from the TypeScript sources
 *    would spend seconds compiling their modules first.
 *
 *     tsx bench/integrity.bench.ts [records, default 1000000]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { AuditStore } from '../agent/store/audit-store.js';
import { chainAddon } from '../agent/store/chain-addon.js';
import { CHAIN_BYTES, GENESIS, chainRows, chainRowsJs } from '../agent/store/record-chain.js';
import type { verifyStore as VerifyStore } from '../agent/integrity/verify-store.js';
import type { NewActivityRecord } from '../shared/activity-record.js';

const total = Number(process.argv[2] ?? 1_000_000);
const BATCH = 5_000;
const SLICE = 32; // rows per INSERT, and per chainRows call, in AuditStore
const STRIDE = 14; // values bound per row: the 13 canonical ones and the chain

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

/** The chain of a batch as insertRows computes it (the bound values, chainRows per slice); returns the new head. */
function chainAlone(
  records: NewActivityRecord[],
  at: number,
  previous: Buffer,
  hash: (p: Buffer, values: unknown[], rows: number, stride: number) => Buffer,
): Buffer {
  let chain = previous;
  const args = new Array<unknown>(STRIDE * SLICE);
  for (let from = 0; from < records.length; from += SLICE) {
    const rows = Math.min(SLICE, records.length - from);
    for (let i = 0; i < rows; i++) {
      const r = records[from + i]!;
      const o = i * STRIDE;
      args[o] = `0000019aa1b2c3d4-${at + from + i}`;
      args[o + 1] = Date.UTC(2026, 10, 20) + at;
      args[o + 2] = r.Who;
      args[o + 3] = r.Action;
      args[o + 4] = r.What;
      args[o + 5] = r.Where;
      args[o + 6] = r.ObjectType;
      args[o + 7] = r.DataSource;
      args[o + 8] = null;
      args[o + 9] = null;
      args[o + 10] = null;
      args[o + 11] = null;
      args[o + 12] = null;
      args[o + 13] = chain;
    }
    chain = hash(chain, args, rows, STRIDE).subarray((rows - 1) * CHAIN_BYTES);
  }
  return chain;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-integrity-bench-'));
const file = path.join(dir, 'audit.db');
const store = AuditStore.open({ file, synchronous: 'NORMAL' });
let ingestMs = 0;
let chainMs = 0;
let fallbackMs = 0;
let chain = GENESIS;
let fallbackChain = GENESIS;
for (let at = 0; at < total; at += BATCH) {
  const records = batch(at);
  let started = performance.now();
  store.insertBatch(records);
  ingestMs += performance.now() - started;
  started = performance.now();
  chain = chainAlone(records, at, chain, chainRows);
  chainMs += performance.now() - started;
  started = performance.now();
  fallbackChain = chainAlone(records, at, fallbackChain, chainRowsJs);
  fallbackMs += performance.now() - started;
}
store.close();
const withoutChainMs = ingestMs - chainMs;
const share = (ms: number): string => `${((ms / withoutChainMs) * 100).toFixed(1)} % slower than without`;
console.log(
  JSON.stringify({
    records: total,
    nativeAddon: chainAddon() !== null,
    ingestRecordsPerSecond: Math.round(total / (ingestMs / 1000)),
    ingestWithoutChainRecordsPerSecond: Math.round(total / (withoutChainMs / 1000)),
    chainShareOfIngest: share(chainMs),
    chainMicrosecondsPerRecord: Number(((chainMs * 1000) / total).toFixed(3)),
    fallbackShareOfIngest: share(fallbackMs),
    fallbackMicrosecondsPerRecord: Number(((fallbackMs * 1000) / total).toFixed(3)),
  }),
);

const compiled = new URL('../dist/agent/integrity/verify-store.js', import.meta.url);
if (!fs.existsSync(compiled)) throw new Error('build the agent first (npx tsc -b): verify runs from dist/');
const { verifyStore } = (await import(compiled.href)) as { verifyStore: typeof VerifyStore };
for (const workers of [undefined, 1]) {
  const started = performance.now();
  const checked = await verifyStore(file, null, workers === undefined ? {} : { workers });
  const verifyMs = performance.now() - started;
  console.log(
    JSON.stringify({
      workers: workers ?? `default (${Math.min(os.availableParallelism(), 8)})`,
      verifiedRecords: checked.records,
      problems: checked.problems.length,
      verifyRecordsPerSecond: Math.round(checked.records / (verifyMs / 1000)),
    }),
  );
}
fs.rmSync(dir, { recursive: true, force: true });
