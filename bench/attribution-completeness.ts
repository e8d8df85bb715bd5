/**
 * Completeness of actor attribution (docs/benchmarks.md, "Actor attribution"): one burst of
 * small files extracted into a monitored folder and deleted again (the overhead benchmark's
 * workload), seen at the same time by a `vigil agent` process (fanotify, docs/attribution.md),
 * by fatrace (fanotify, `-f CW`: files closed after writing, i.e. the files the burst created)
 * and by `inotifywait -m -r` (creates and deletes). Prints, per run and as the median of the
 * runs, the files each of them saw created and deleted, and the agent's records whose actor
 * is unknown. Goal: the agent has every file (Added and Removed), each with its actor.
 * Root, Linux, the addon built, fatrace and inotify-tools installed, `npx tsc -b`.
 *
 *   npx tsx bench/attribution-completeness.ts        (VIGIL_BENCH_FILES=100000 VIGIL_BENCH_ROUNDS=3)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { canAttribute } from '../agent/monitor/fanotify/can-attribute.js';
import { startMonitoringAgent } from './attribution-agent.js';
import {
  entriesOf,
  extractAndDelete,
  machineLoad,
  makeArchive,
  median,
  sleep,
  startTracer,
  stopTracer,
} from './attribution-workload.js';

const FILES = Number(process.env['VIGIL_BENCH_FILES'] ?? 100_000);
const ROUNDS = Number(process.env['VIGIL_BENCH_ROUNDS'] ?? 3);

interface Seen {
  created: number;
  deleted: number | null;
}

/** Distinct files under `target` that fatrace saw closed after writing (`comm(pid): CW /path`). */
function fatraceSeen(output: string, target: string): Seen {
  const files = new Set<string>();
  for (const line of fs.readFileSync(output, 'utf8').split('\n')) {
    const at = line.indexOf(`: `);
    if (at < 0) continue;
    const [types, ...rest] = line
      .slice(at + 2)
      .trim()
      .split(/\s+/);
    const file = rest.join(' ').replace(/ \(deleted\)$/, ''); // deleted before fatrace read the event
    if (types?.includes('W') && file.startsWith(target + path.sep)) files.add(file);
  }
  // fatrace 0.17 names only the folder of a create or delete (`+`, `D`): no count of deleted files.
  return { created: files.size, deleted: null };
}

/** Files under `target` that inotifywait saw created and deleted (`EVENTS PATH` lines). */
function inotifySeen(output: string, target: string): Seen {
  const created = new Set<string>();
  const deleted = new Set<string>();
  for (const line of fs.readFileSync(output, 'utf8').split('\n')) {
    const space = line.indexOf(' ');
    const events = line.slice(0, space).split(',');
    const file = line.slice(space + 1);
    if (events.includes('ISDIR') || !file.startsWith(target + path.sep)) continue;
    if (events.includes('CREATE')) created.add(file);
    if (events.includes('DELETE')) deleted.add(file);
  }
  return { created: created.size, deleted: deleted.size };
}

async function round(archive: string, scratch: string, n: number) {
  const watched = path.join(scratch, `watched${n}`);
  fs.mkdirSync(watched);
  const agent = await startMonitoringAgent(watched, path.join(scratch, `agent-data${n}`));
  const fatraceOut = path.join(scratch, `fatrace${n}.txt`);
  const inotifyOut = path.join(scratch, `inotify${n}.txt`);
  const fatrace = await startTracer('fatrace', ['-c', '-f', 'CW', '-o', fatraceOut], watched, () =>
    fs.existsSync(fatraceOut),
  );
  const inotifyErr = path.join(scratch, `inotify${n}.err`);
  const inotify = spawn(
    'sh',
    ['-c', 'exec inotifywait -m -r -q -e create -e delete --format "%e %w%f" -o "$1" "$2" 2>"$3"', 'sh'].concat([
      inotifyOut,
      watched,
      inotifyErr,
    ]),
  );
  await sleep(1500); // inotifywait has no quiet-mode readiness signal; fatrace's marks are set once its file exists
  const target = path.join(watched, 'burst');
  try {
    const workloadMs = await extractAndDelete(archive, target);
    const { files } = entriesOf(FILES);
    const agentCounts = await agent.settle(target, (c) => c.addedFiles >= files && c.removedFiles >= files, 20_000);
    await sleep(1000);
    await stopTracer(fatrace);
    await stopTracer(inotify);
    return {
      workloadMs: Math.round(workloadMs),
      agent: {
        created: agentCounts.addedFiles,
        deleted: agentCounts.removedFiles,
        unknownActors: agentCounts.unknown,
        overflows: agent.overflows(),
      },
      fatrace: fatraceSeen(fatraceOut, target),
      inotifywait: inotifySeen(inotifyOut, target),
      inotifyOverflow: fs.readFileSync(inotifyOut, 'utf8').includes('Q_OVERFLOW'),
    };
  } finally {
    if (fatrace.exitCode === null) fatrace.kill('SIGKILL');
    if (inotify.exitCode === null) inotify.kill('SIGKILL');
    await agent.stop();
  }
}

async function main(): Promise<void> {
  const probe = canAttribute();
  if (!probe.ok) {
    console.log(JSON.stringify({ skipped: probe.reason }));
    return;
  }
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-attr-complete-'));
  try {
    const archive = await makeArchive(scratch, FILES);
    const runs: Array<Awaited<ReturnType<typeof round>>> = [];
    const load: number[] = [];
    for (let n = 0; n < ROUNDS; n++) {
      load.push(machineLoad().loadAverage1m);
      runs.push(await round(archive, scratch, n));
      console.error(`round ${n + 1}/${ROUNDS}`, JSON.stringify(runs.at(-1)));
    }
    const med = (pick: (r: (typeof runs)[number]) => number | null) => {
      const values = runs.map(pick).filter((v): v is number => v !== null);
      return values.length > 0 ? median(values) : null;
    };
    const result = {
      files: FILES,
      rounds: ROUNDS,
      machine: { ...machineLoad(), loadAverage1mAtEachRound: load },
      median: {
        agent: { created: med((r) => r.agent.created), deleted: med((r) => r.agent.deleted) },
        agentUnknownActors: med((r) => r.agent.unknownActors),
        fatrace: { created: med((r) => r.fatrace.created), deleted: null },
        inotifywait: { created: med((r) => r.inotifywait.created), deleted: med((r) => r.inotifywait.deleted) },
      },
      agentHasEveryFile: runs.every((r) => r.agent.created === FILES && r.agent.deleted === FILES),
      runs,
    };
    console.log(JSON.stringify(result, null, 2));
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
