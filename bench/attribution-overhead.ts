/**
 * Overhead of actor attribution (docs/attribution.md): a tar archive of small files is
 * extracted and the tree deleted by another process (`tar -xf … && rm -rf …`), first with no
 * watch, then with the fanotify addon watching the folder. Prints one JSON object: the wall
 * times, their ratio, the events delivered and the watch's counters. Root, Linux, addon built.
 *
 *   npx tsx bench/attribution-overhead.ts            (VIGIL_BENCH_FILES=100000 by default)
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { canAttribute } from '../agent/monitor/fanotify/can-attribute.js';
import { FanotifyWatch } from '../agent/monitor/fanotify/fanotify-watch.js';

const run = promisify(execFile);
const FILES = Number(process.env['VIGIL_BENCH_FILES'] ?? 100_000);
const PER_FOLDER = 1000;
const ROUNDS = Number(process.env['VIGIL_BENCH_ROUNDS'] ?? 3);

async function makeArchive(scratch: string): Promise<string> {
  const source = path.join(scratch, 'source');
  for (let i = 0; i < FILES; i++) {
    const folder = path.join(source, `d${Math.floor(i / PER_FOLDER)}`);
    if (i % PER_FOLDER === 0) fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, `f${i}.txt`), `file ${i}\n`);
  }
  const archive = path.join(scratch, 'files.tar');
  await run('tar', ['-cf', archive, '-C', source, '.'], { maxBuffer: 1 << 24 });
  fs.rmSync(source, { recursive: true });
  return archive;
}

/** Extracts and deletes once, in a child process (the watch drops the agent's own pid). */
async function workload(archive: string, target: string): Promise<number> {
  fs.mkdirSync(target);
  const started = process.hrtime.bigint();
  await run('sh', ['-c', 'tar -xf "$1" -C "$2" && rm -rf "$2"', 'sh', archive, target]);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const probe = canAttribute();
  if (!probe.ok) {
    console.log(JSON.stringify({ skipped: probe.reason }));
    return;
  }
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-attr-bench-'));
  try {
    const archive = await makeArchive(scratch);
    const watched = path.join(scratch, 'watched');
    fs.mkdirSync(watched);
    const baseline: number[] = [];
    const monitored: number[] = [];
    let events = 0;
    let unknownActors = 0;
    let stats = null;
    for (let round = 0; round < ROUNDS; round++) {
      baseline.push(await workload(archive, path.join(watched, `plain${round}`)));
      const watch = new FanotifyWatch({
        folders: [watched],
        onEvents: (batch) => {
          events += batch.length;
          unknownActors += batch.filter((e) => e.uid === null).length;
        },
      });
      watch.start();
      monitored.push(await workload(archive, path.join(watched, `watched${round}`)));
      await new Promise((resolve) => setTimeout(resolve, 1000)); // the last batches
      stats = watch.stats();
      watch.stop();
    }
    const result = {
      files: FILES,
      rounds: ROUNDS,
      baselineMs: baseline.map(Math.round),
      monitoredMs: monitored.map(Math.round),
      ratio: Number((median(monitored) / median(baseline)).toFixed(2)),
      eventsDelivered: events,
      unknownActors,
      lastWatchStats: stats,
    };
    console.log(JSON.stringify(result, null, 2));
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
