/**
 * The record chain's cost on ingest (docs/integrity.md; goal: the pipeline at most 5 % slower
 * with the chain than without it), measured in short turns. bench/pipeline-ingest.ts runs each
 * variant for a few seconds in turn, and this machine's speed drifts between such runs by more
 * than the chain costs (rounds of one variant 87,000–106,000 records/s, round ratios −11 % to
 * +16 %). Here the pipelines stay open side by side: the agent's (SQLite computes each row's
 * chain value as it inserts it), the same pipeline whose chain values are zeros, and with
 * FALLBACK=1 the store's way without the native addon (the batch hashed by node:crypto before
 * its inserts). Each turn submits BLOCK records to one of them at once, in
 * batches of 5,000 as a watcher's flushes do (the pipeline saturated, as in a burst), and waits
 * until all are committed; they take turns in a rotating order (every order equally often), so
 * a drift of the machine falls on all alike. Each turn is timed from the first
 * submission to the last commit (normalising, queue, store, log file and sidecar with their
 * fdatasyncs), with the process's CPU time (all threads) over the same window.
 *
 *   npx tsx bench/chain-cost.bench.ts    (RECORDS=3000000 per variant, BLOCK=50000; exit 1 when the
 *   median of the turn-by-turn ratios is over 5 %)
 *   BLOCK=5000: one batch a turn (the pipeline idle between batches)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { everyOrder } from './chain-variant.js';
import { changes, openBenchPipeline, type BenchPipeline, type Variant } from './pipeline-fixture.js';

const RECORDS = Number(process.env['RECORDS'] ?? 3_000_000);
const BLOCK = Number(process.env['BLOCK'] ?? 50_000);
const CHUNK = 5000; // what one watcher flush submits at most
const WARM_UP_BATCHES = 4;
const LIMIT = 0.05;
/**
 * FALLBACK=1 adds the store's way without the addon. Left out by default: its garbage is
 * collected during the turns after it, which is noise on the two that are judged.
 */
const WITH_FALLBACK = process.env['FALLBACK'] === '1';
const VARIANTS: readonly Variant[] = WITH_FALLBACK ? ['chained', 'unchained', 'fallback'] : ['chained', 'unchained'];
/** Every order of the variants; turn k runs in ORDERS[k % ORDERS.length]. */
const ORDERS = everyOrder(VARIANTS);

interface Totals {
  ns: number;
  cpuMicros: number;
  /** Wall ns of each turn, in order. */
  turns: number[];
}

const sorted = (xs: number[]): number[] => [...xs].sort((a, b) => a - b);
const quantile = (xs: number[], q: number): number => sorted(xs)[Math.min(xs.length - 1, Math.floor(xs.length * q))]!;
const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;
const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

/** Submits `block` in batches of CHUNK, all at once, and waits until every one is committed. */
async function timedTurn(bench: BenchPipeline, block: ReturnType<typeof changes>, totals: Totals): Promise<void> {
  const cpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  const submitted: Array<Promise<unknown>> = [];
  for (let i = 0; i < block.length; i += CHUNK) submitted.push(bench.write(block.slice(i, i + CHUNK)));
  await Promise.all(submitted);
  const ns = Number(process.hrtime.bigint() - started);
  const cpu = process.cpuUsage(cpuBefore);
  totals.ns += ns;
  totals.cpuMicros += cpu.user + cpu.system;
  totals.turns.push(ns);
}

const dirs = VARIANTS.map((variant) => fs.mkdtempSync(path.join(os.tmpdir(), `vigil-chain-cost-${variant}-`)));
const benches = new Map<Variant, BenchPipeline>();
try {
  for (const [i, variant] of VARIANTS.entries()) benches.set(variant, await openBenchPipeline(dirs[i]!, variant));
  // The input is made a block at a time: millions of changes held at once make a large heap,
  // whose collections fall on whichever turn is running (the likely cause of one variant's 3.5
  // µs a record more CPU in a 6,000,000-record run, docs/benchmarks.md).
  const start = Date.now();
  const warmUp = changes(WARM_UP_BATCHES * CHUNK, 0, start);
  for (let i = 0; i < warmUp.length; i += CHUNK) {
    for (const variant of VARIANTS) await benches.get(variant)!.write(warmUp.slice(i, i + CHUNK));
  }
  const totals = new Map<Variant, Totals>(VARIANTS.map((v) => [v, { ns: 0, cpuMicros: 0, turns: [] }]));
  for (let i = 0, k = 0; i < RECORDS; i += BLOCK, k++) {
    const block = changes(Math.min(BLOCK, RECORDS - i), warmUp.length + i, start);
    for (const variant of ORDERS[k % ORDERS.length]!)
      await timedTurn(benches.get(variant)!, block, totals.get(variant)!);
  }
  for (const bench of benches.values()) bench.checkHolds(warmUp.length + RECORDS);

  const of = (variant: Variant): Totals => totals.get(variant)!;
  const rate = (variant: Variant): number => RECORDS / (of(variant).ns / 1e9);
  const cpuPerRecord = (variant: Variant): number => of(variant).cpuMicros / RECORDS;
  const cost = (variant: Variant): number => of(variant).ns / of('unchained').ns - 1;
  const turnRatios = (variant: Variant): number[] =>
    of(variant).turns.map((ns, k) => ns / of('unchained').turns[k]! - 1);
  // Judged turn by turn: an outlier turn (a checkpoint, a slow fdatasync) moves the totals by
  // several points, whichever variant it falls on (docs/benchmarks.md).
  const chainCost = quantile(turnRatios('chained'), 0.5);
  const load = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  const row = (variant: Variant, what: string): string => {
    const ratios = turnRatios(variant);
    const spread = `${pct(quantile(ratios, 0.25))} … ${pct(quantile(ratios, 0.75))}`;
    const costCells =
      variant === 'unchained'
        ? '— | —'
        : `${pct(cost(variant))} | ${pct(quantile(ratios, 0.5))} (middle half ${spread})`;
    return `| ${what} | ${fmt(rate(variant))} | ${cpuPerRecord(variant).toFixed(2)} | ${costCells} |`;
  };
  console.log(`### The chain's cost, in turns of ${fmt(BLOCK)} records (${new Date().toISOString().slice(0, 16)}, ${os.cpus().length} cores, load average ${load} at the end, Node ${process.version})

\`RECORDS=${RECORDS} BLOCK=${BLOCK} npx tsx bench/chain-cost.bench.ts\`: ${fmt(RECORDS / BLOCK)} turns of ${fmt(BLOCK)} records (submitted at once in batches of ${fmt(CHUNK)}) through each of ${VARIANTS.length} pipelines, taking turns in rotating order, each timed from the first submission to the last commit.

| pipeline | records/s | CPU µs/record (all threads) | slower than without the chain (total time) | the same, turn by turn (median) |
|---|---|---|---|---|
${row('chained', 'with the chain, computed by SQLite as it inserts each row (the agent)')}
${WITH_FALLBACK ? `${row('fallback', 'with the chain hashed by node:crypto before its inserts (no addon)')}\n` : ''}${row('unchained', 'without the chain (its values zeros)')}

The chain's cost, turn by turn (median): **${pct(chainCost)}** (limit ≤ 5 %): ${chainCost <= LIMIT ? 'met' : 'MISSED'}; CPU +${(cpuPerRecord('chained') - cpuPerRecord('unchained')).toFixed(2)} µs/record.`);
  if (chainCost > LIMIT) process.exitCode = 1;
} finally {
  for (const bench of benches.values()) await bench.close();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
}
