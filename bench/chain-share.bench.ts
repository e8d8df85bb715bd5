/**
 * The record chain's share of the committing thread, sampled (docs/integrity.md; goal: ingest
 * at most 5 % slower with the chain than without it). bench/chain-cost.bench.ts compares wall
 * time, turn by turn, and on this shared VM its turn ratios scatter by ±10 %, more than the chain
 * costs. This counts where the CPU goes instead: the agent's pipeline (bench/pipeline-fixture.ts,
 * 'chained') ingests RECORDS records in bursts under `perf record -g`, and the samples of the
 * pipeline's thread (the main thread, which commits) whose stack is inside the store's chain
 * function (native/src/chain/sqlite_chain.cc `ChainRow`, `ChainFrom`) are counted against all of
 * that thread's samples. The committing thread is the pipeline's bottleneck, so the chain's own
 * work makes ingest slower by share / (1 − share); what it does to the rest of the thread (its
 * caches) is not in these samples and shows only in CPU time (chain-cost.bench.ts,
 * pipeline-ingest.ts).
 *
 *   npx tsx bench/chain-share.bench.ts    (RECORDS=1000000; needs perf: apt-get install linux-perf;
 *   exit 1 when the chain's cost so computed is over 5 %)
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { changes, openBenchPipeline } from './pipeline-fixture.js';

const RECORDS = Number(process.env['RECORDS'] ?? 1_000_000);
const BLOCK = 50_000; // submitted at once, in batches of CHUNK, as chain-cost.bench.ts does
const CHUNK = 5000;
const FREQUENCY = 999; // samples a second
const LIMIT = 0.05;
const CHAIN_FRAME = /::(ChainRow|ChainFrom)$/;

/** The profiled child: ingest RECORDS records through the agent's pipeline, then stop. */
async function ingest(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-chain-share-'));
  try {
    const bench = await openBenchPipeline(dir, 'chained');
    const input = changes(RECORDS);
    const started = process.hrtime.bigint();
    for (let i = 0; i < input.length; i += BLOCK) {
      const submitted: Array<Promise<unknown>> = [];
      for (let j = i; j < Math.min(i + BLOCK, input.length); j += CHUNK)
        submitted.push(bench.write(input.slice(j, j + CHUNK)));
      await Promise.all(submitted);
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    bench.checkHolds(RECORDS);
    await bench.close();
    console.log(JSON.stringify({ recordsPerSecond: Math.round(RECORDS / seconds), seconds }));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function run(command: string, args: string[]): string {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (result.error) throw new Error(`${command}: ${result.error.message} (perf: apt-get install linux-perf)`);
  if (result.status !== 0) throw new Error(`${command} ${args[0]} failed: ${result.stderr.slice(-2000)}`);
  return result.stdout;
}

async function profile(): Promise<void> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-chain-perf-'));
  try {
    const data = path.join(scratch, 'perf.data');
    const self = fileURLToPath(import.meta.url);
    const child = run('perf', [
      'record',
      '-F',
      String(FREQUENCY),
      '-g',
      '-o',
      data,
      '--',
      process.execPath,
      '--import',
      'tsx',
      self,
      'ingest',
    ]);
    const last = child.trim().split('\n').pop()!;
    const { recordsPerSecond, seconds } = JSON.parse(last) as { recordsPerSecond: number; seconds: number };
    // One sample a paragraph: "pid/tid" and then its stack, innermost frame first.
    const samples = run('perf', ['script', '-i', data, '-F', 'pid,tid,ip,sym']).split('\n\n');
    let thread = 0;
    let inChain = 0;
    for (const sample of samples) {
      const lines = sample.trim().split('\n');
      const ids = /^\s*(\d+)\/(\d+)/.exec(lines[0] ?? '');
      if (!ids || ids[1] !== ids[2]) continue; // another thread than the main one
      thread++;
      // Each frame: its address, then its symbol.
      if (lines.slice(1).some((frame) => CHAIN_FRAME.test(frame.trim().replace(/^[0-9a-f]+\s+/, '')))) inChain++;
    }
    if (thread === 0 || inChain === 0)
      throw new Error(`no samples of the pipeline's thread or of the chain (${thread}, ${inChain})`);
    const share = inChain / thread;
    const cost = share / (1 - share);
    const load = os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ');
    console.log(`### The chain's share of the committing thread, sampled (${new Date().toISOString().slice(0, 16)}, ${os.cpus().length} cores, load average ${load} at the end, Node ${process.version})

\`RECORDS=${RECORDS} npx tsx bench/chain-share.bench.ts\`: ${RECORDS.toLocaleString('en-US')} records through the agent's pipeline in bursts of ${BLOCK.toLocaleString('en-US')} under \`perf record -F ${FREQUENCY} -g\` (${recordsPerSecond.toLocaleString('en-US')} records/s while profiled).

| the pipeline's thread | samples |
|---|---|
| all (${(thread / FREQUENCY).toFixed(1)} s on CPU, start-up included, for an ingest of ${seconds.toFixed(1)} s) | ${thread.toLocaleString('en-US')} |
| inside the chain function (\`vigil_chain\`, \`vigil_chain_from\`) | ${inChain.toLocaleString('en-US')} (**${(share * 100).toFixed(1)} %**, ${((inChain / FREQUENCY / RECORDS) * 1e6).toFixed(2)} µs a record) |

The chain's own work makes ingest slower by ${(share * 100).toFixed(1)} % / (1 − ${(share * 100).toFixed(1)} %) = **${(cost * 100).toFixed(1)} %** (limit ≤ 5 %; its effect on the rest of the thread not included): ${cost <= LIMIT ? 'under' : 'OVER'} the limit.`);
    if (cost > LIMIT) process.exitCode = 1;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'ingest') await ingest();
else await profile();
