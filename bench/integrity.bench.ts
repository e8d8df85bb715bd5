/**
 * Cost of tamper evidence (docs/integrity.md, docs/benchmarks.md):
 * 1. ingest: the same batches stored through AuditStore.insertBatch into three stores, batch by
 *    batch in turn: one chaining as the agent does (SQLite, through the native addon), one
 *    whose chain values are zeros (the store without the chain's work), one chaining through
 *    the node:crypto fallback; the chain's cost is the first against the second, in wall time
 *    and in CPU time (`process.cpuUsage`, all threads);
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
import { everyOrder, withoutChain } from './chain-variant.js';
import type { verifyStore as VerifyStore } from '../agent/integrity/verify-store.js';
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

type Variant = 'chained' | 'unchained' | 'fallback';

/** A store of the variant: its chain values as the agent computes them, zeros, or by node:crypto. */
function openStore(dir: string, variant: Variant): AuditStore {
  const file = path.join(dir, `${variant}.db`);
  const store = AuditStore.open({ file, synchronous: 'NORMAL', chainInJavaScript: variant === 'fallback' });
  if (variant === 'unchained') withoutChain(store);
  return store;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-integrity-bench-'));
const variants: Variant[] = ['chained', 'unchained', 'fallback'];
const ORDERS = everyOrder(variants);
const stores = new Map(variants.map((v) => [v, openStore(dir, v)]));
const wallMs = new Map(variants.map((v) => [v, 0]));
const cpuMs = new Map(variants.map((v) => [v, 0]));
for (let at = 0, turn = 0; at < total; at += BATCH, turn++) {
  const records = batch(at);
  // Every order of the three in turn: none always runs on a warmer cache or a quieter moment,
  // and none always follows the fallback, whose garbage the next one's collections pay for
  // (rotating one order only put the agent's store after it two batches in three).
  for (const variant of ORDERS[turn % ORDERS.length]!) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    stores.get(variant)!.insertBatch(records);
    wallMs.set(variant, wallMs.get(variant)! + performance.now() - started);
    const used = process.cpuUsage(cpu);
    cpuMs.set(variant, cpuMs.get(variant)! + (used.user + used.system) / 1000);
  }
}
for (const store of stores.values()) store.close();
const file = path.join(dir, 'chained.db');
const slower = (variant: Variant, of: Map<Variant, number>): string =>
  `${((of.get(variant)! / of.get('unchained')! - 1) * 100).toFixed(1)} % more than without`;
const perRecord = (variant: Variant, of: Map<Variant, number>): number =>
  Number((((of.get(variant)! - of.get('unchained')!) * 1000) / total).toFixed(3));
console.log(
  JSON.stringify({
    records: total,
    nativeAddon: chainAddon() !== null,
    loadAverage: os.loadavg().map((l) => Number(l.toFixed(1))),
    ingestRecordsPerSecond: Math.round(total / (wallMs.get('chained')! / 1000)),
    ingestWithoutChainRecordsPerSecond: Math.round(total / (wallMs.get('unchained')! / 1000)),
    chainShareOfIngest: slower('chained', wallMs),
    chainMicrosecondsPerRecord: perRecord('chained', wallMs),
    chainCpuShareOfIngest: slower('chained', cpuMs),
    chainCpuMicrosecondsPerRecord: perRecord('chained', cpuMs),
    fallbackShareOfIngest: slower('fallback', wallMs),
    fallbackMicrosecondsPerRecord: perRecord('fallback', wallMs),
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
