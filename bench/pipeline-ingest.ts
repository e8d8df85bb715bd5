/**
 * Ingest benchmark: records through the whole pipeline — normalise (file change →
 * activity record) → bounded queue → AuditStore (WAL, synchronous=FULL, whatever indexes its
 * migrations create) → LogFile output (TSV, flushed to disk inside each batch transaction) —
 * against a bare better-sqlite3 batched insert of the same rows into a table without
 * secondary indexes, measured in the same run. Limits: ≥ 100,000 records/s and ≥ 25 % of bare;
 * and the record chain (docs/integrity.md) at most 5 % slower than the same pipeline without
 * it: each round runs the pipeline with the chain, with the store's chain values replaced by
 * zeros (nothing else changed), and with the whole batch hashed before its inserts instead of
 * each INSERT's rows just before it, in alternating order; the medians are compared in
 * records/s and in CPU time per record (`process.cpuUsage`, every thread of the process). The
 * machine's drift between rounds is larger than the chain's cost: bench/chain-cost.bench.ts
 * measures it in short turns.
 *
 *   npm run bench:pipeline            (RECORDS=300000 RUNS=3 to change the size)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { fileChangeToItem, type FileChange } from '../agent/monitor/file-change.js';
import { RidGenerator } from '../agent/store/rid.js';
import { SCHEMA_VERSION } from '../agent/store/audit-schema.js';
import { account, changes, host, openBenchPipeline, type Variant } from './pipeline-fixture.js';

const RECORDS = Number(process.env['RECORDS'] ?? 300_000);
const RUNS = Number(process.env['RUNS'] ?? 3);
const CHUNK = 5000; // what one watcher flush submits at most

interface PipelineRun {
  rate: number;
  /** CPU time of the whole process (all threads) per record, in µs. */
  cpuMicros: number;
  longestCommitMs: number;
}

async function pipelineRun(dir: string, input: FileChange[], variant: Variant): Promise<PipelineRun> {
  const bench = await openBenchPipeline(dir, variant);
  const cpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  const submitted: Array<Promise<unknown>> = [];
  for (let i = 0; i < input.length; i += CHUNK) {
    submitted.push(bench.write(input.slice(i, i + CHUNK)));
    if (i % (CHUNK * 4) === 0) await new Promise((resolve) => setImmediate(resolve)); // let the writer run
  }
  await Promise.all(submitted);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpuBefore);
  bench.checkHolds(input.length);
  const { longestCommitMs } = bench.pipeline.stats();
  await bench.close();
  return { rate: input.length / seconds, cpuMicros: (cpu.user + cpu.system) / input.length, longestCommitMs };
}

function bareRun(dir: string, input: FileChange[]): number {
  // The same rows, prepared the same way (RIDs, record times), into a table with only its rowid.
  const rids = new RidGenerator();
  const rows = input.map((c) => {
    const item = fileChangeToItem(c, host, account);
    const whenMs = Date.parse(item.record.When);
    const r = item.record;
    return [
      rids.next(whenMs),
      whenMs,
      r.Who,
      r.Action,
      r.What,
      r.Where,
      r.ObjectType,
      r.DataSource,
      r.MonitoringPlan?.Name ?? null,
      r.MonitoringPlan?.ID ?? null,
      r.Item?.Name ?? null,
      r.Workstation ?? null,
      null,
    ];
  });
  const db = new Database(path.join(dir, 'bare.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE t (seq INTEGER PRIMARY KEY, rid TEXT, when_ms INTEGER, who TEXT, action TEXT, what TEXT,
    location TEXT, object_type TEXT, data_source TEXT, plan_name TEXT, plan_id TEXT, item_name TEXT,
    workstation TEXT, details TEXT)`);
  const insert = db.prepare(
    'INSERT INTO t (rid, when_ms, who, action, what, location, object_type, data_source, plan_name, plan_id, item_name, workstation, details) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)',
  );
  const batch = db.transaction((slice: unknown[][]) => {
    for (const row of slice) insert.run(row);
  });
  const started = process.hrtime.bigint();
  for (let i = 0; i < rows.length; i += CHUNK) batch(rows.slice(i, i + CHUNK));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  db.close();
  return rows.length / seconds;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const input = changes(RECORDS);
const runs = {
  bare: [] as number[],
  chained: [] as PipelineRun[],
  fallback: [] as PipelineRun[],
  unchained: [] as PipelineRun[],
};
for (let run = 0; run < RUNS; run++) {
  // Alternating order: neither variant always runs on a warmer (or busier) machine.
  const order =
    run % 2 === 0
      ? (['bare', 'chained', 'fallback', 'unchained'] as const)
      : (['unchained', 'fallback', 'chained', 'bare'] as const);
  for (const kind of order) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `vigil-bench-${kind}-`));
    try {
      if (kind === 'bare') runs.bare.push(bareRun(dir, input));
      else runs[kind].push(await pipelineRun(dir, input, kind));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
}
const rate = (kind: Variant): number => median(runs[kind].map((r) => r.rate));
const cpu = (kind: Variant): number => median(runs[kind].map((r) => r.cpuMicros));
const pipelineRate = rate('chained');
const bareRate = median(runs.bare);
const ratio = pipelineRate / bareRate;
const slower = rate('unchained') / pipelineRate - 1;
// Each round's own ratio too: the machine's speed drifts between rounds more than the chain costs.
const slowerByRound = median(runs.chained.map((run, i) => runs.unchained[i]!.rate / run.rate - 1));
const cpuShare = cpu('chained') / cpu('unchained') - 1;
const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;
const verdict = (ok: boolean): string => (ok ? 'pass' : 'FAIL');
const load = os
  .loadavg()
  .map((l) => l.toFixed(1))
  .join(' ');
console.log(`### Ingest through the pipeline (${new Date().toISOString().slice(0, 16)}, ${os.cpus().length} cores, load average ${load} at the end, Node ${process.version})

${fmt(RECORDS)} file records per run, ${RUNS} rounds (bare; the pipeline with the chain, with it hashed by node:crypto, without it; alternating order), medians; audit store schema version ${SCHEMA_VERSION}.

| what | result | limit | |
|---|---|---|---|
| normalise → queue → AuditStore with the chain (WAL, FULL) → LogFile TSV and sidecar (fdatasync per batch) | ${fmt(pipelineRate)} records/s, ${cpu('chained').toFixed(2)} µs CPU/record | ≥ 100,000 records/s | ${verdict(pipelineRate >= 100_000)} |
| the chain hashed by node:crypto before the inserts (no addon) | ${fmt(rate('fallback'))} records/s, ${cpu('fallback').toFixed(2)} µs CPU/record, ${pct(rate('unchained') / rate('fallback') - 1)} slower than without | — | — |
| the same pipeline without the chain (its values zeros) | ${fmt(rate('unchained'))} records/s, ${cpu('unchained').toFixed(2)} µs CPU/record | — | — |
| the chain's cost: records/s without it / with it − 1 | ${pct(slower)} | ≤ 5 % | ${verdict(slower <= 0.05)} |
| the same, round by round (median of each round's ratio) | ${pct(slowerByRound)} | — | — |
| the chain's CPU time: CPU/record with it / without it − 1 (all threads) | ${pct(cpuShare)} (${(cpu('chained') - cpu('unchained')).toFixed(2)} µs/record) | — | — |
| bare better-sqlite3, same rows, batches of ${CHUNK}, no secondary index (WAL, NORMAL) | ${fmt(bareRate)} records/s | — | — |
| pipeline / bare | ${pct(ratio)} | ≥ 25 % | ${verdict(ratio >= 0.25)} |

Runs (records/s): with the chain ${runs.chained.map((r) => fmt(r.rate)).join(', ')}; fallback ${runs.fallback.map((r) => fmt(r.rate)).join(', ')}; without ${runs.unchained.map((r) => fmt(r.rate)).join(', ')}; bare ${runs.bare.map(fmt).join(', ')}.
CPU µs/record: with the chain ${runs.chained.map((r) => r.cpuMicros.toFixed(2)).join(', ')}; fallback ${runs.fallback.map((r) => r.cpuMicros.toFixed(2)).join(', ')}; without ${runs.unchained.map((r) => r.cpuMicros.toFixed(2)).join(', ')}.
Longest commit (event loop held, batches of ${CHUNK}, with the chain): ${runs.chained.map((r) => r.longestCommitMs.toFixed(1)).join(', ')} ms.`);
if (pipelineRate < 100_000 || ratio < 0.25 || slower > 0.05) process.exitCode = 1;
