/**
 * The floor under the attribution overhead (docs/benchmarks.md, "What seeing the events costs";
 * docs/decisions.md, "No eBPF source"): what the kernel charges the monitored work for
 * delivering its file events, before any agent work, by the two mechanisms this kernel offers.
 * The workload of bench/attribution-overhead.ts (a tar archive of small files extracted and the
 * tree deleted, each side on a new ext4 filesystem) runs
 *   - unmonitored;
 *   - under fanotify with the agent's flags and events, read by a program that only drains the
 *     queue and pauses after each drain (kernel-floor/fanotify-drain.c), a side for each pause in
 *     VIGIL_BENCH_PAUSES (milliseconds; the agent's 5 by default);
 *   - under the cheapest eBPF source this kernel loads: programs on the raw syscall tracepoints
 *     that keep each file call's arguments and send one record a successful call to a ring buffer
 *     (kernel-floor/syscall-probe.bpf.c), less than an attribution source would have to do.
 * It also reports whether the kernel loads the eBPF programs that would see the caller without
 * tracing every system call (an fentry and a BPF LSM program, kernel-floor/trampoline-check.bpf.c).
 * The helpers are compiled into a scratch folder: gcc for the readers, clang and libbpf's headers
 * (Debian: clang, libbpf-dev) for the eBPF side, which is left out when they are missing.
 * Root and Linux.
 *
 *   npx tsx bench/attribution-kernel-floor.ts
 *   VIGIL_BENCH_FILES=100000 VIGIL_BENCH_ROUNDS=9 VIGIL_BENCH_PAUSES=5 (defaults; PAUSES=5,20,100
 *   compares the reader's pauses); VIGIL_BENCH_EBPF=0 leaves the eBPF side out
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  extractAndDelete,
  machineLoad,
  makeArchive,
  median,
  onFreshFilesystem,
  startTracer,
  stopTracer,
} from './attribution-workload.js';

const run = promisify(execFile);
const FILES = Number(process.env['VIGIL_BENCH_FILES'] ?? 100_000);
/** Rounds scatter by ±20 %: 3 are too few to tell 1.10 from 1.15. */
const ROUNDS = Number(process.env['VIGIL_BENCH_ROUNDS'] ?? 9);
const SOURCES = path.join(import.meta.dirname, 'kernel-floor');
/** The fanotify reader's pauses after each drain, in ms: a side each. */
const PAUSES = (process.env['VIGIL_BENCH_PAUSES'] ?? '5').split(',').map(Number);
const EBPF = process.env['VIGIL_BENCH_EBPF'] !== '0';

interface Helpers {
  fanotifyDrain: string;
  bpfProbe?: string;
  syscallProbe?: string;
  trampolineCheck?: string;
  bpfMissing?: string;
}

/** Compiles the readers and eBPF objects into `scratch`. */
async function compileHelpers(scratch: string): Promise<Helpers> {
  const out = (name: string) => path.join(scratch, name);
  const source = (name: string) => path.join(SOURCES, name);
  await run('gcc', ['-O2', '-Wall', '-Wextra', '-o', out('fanotify-drain'), source('fanotify-drain.c')]);
  const helpers: Helpers = { fanotifyDrain: out('fanotify-drain') };
  try {
    const triplet = (await run('gcc', ['-dumpmachine'])).stdout.trim();
    await run('gcc', ['-O2', '-Wall', '-Wextra', '-o', out('bpf-probe'), source('bpf-probe.c'), '-lbpf']);
    for (const object of ['syscall-probe', 'trampoline-check']) {
      const flags = ['-O2', '-g', '-Wall', `-I/usr/include/${triplet}`, '-target', 'bpf', '-c'];
      await run('clang', [...flags, source(`${object}.bpf.c`), '-o', out(`${object}.bpf.o`)]);
    }
    return {
      ...helpers,
      bpfProbe: out('bpf-probe'),
      syscallProbe: out('syscall-probe.bpf.o'),
      trampolineCheck: out('trampoline-check.bpf.o'),
    };
  } catch (error) {
    return { ...helpers, bpfMissing: `eBPF side left out (needs clang and libbpf-dev): ${(error as Error).message}` };
  }
}

/** Runs the workload under a reader that creates `ready` once it watches and writes its count there at exit. */
async function underReader(
  archive: string,
  watched: string,
  command: string,
  args: (ready: string) => string[],
): Promise<{ workloadMs: number; eventsRead: number }> {
  const ready = path.join(path.dirname(archive), `ready-${path.basename(command)}`);
  fs.rmSync(ready, { force: true });
  const reader = await startTracer(command, args(ready), watched, () => fs.existsSync(ready));
  let workloadMs: number;
  try {
    workloadMs = await extractAndDelete(archive, path.join(watched, 'work'));
  } finally {
    await stopTracer(reader);
  }
  const eventsRead = Number(fs.readFileSync(ready, 'utf8').trim());
  fs.rmSync(ready, { force: true });
  return { workloadMs, eventsRead };
}

interface Side {
  name: string;
  /** The workload's wall time and what the reader read, on `watched`. */
  run: (watched: string) => Promise<{ workloadMs: number; eventsRead?: number }>;
}

async function main(): Promise<void> {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) {
    console.log(JSON.stringify({ skipped: 'needs root on Linux' }));
    return;
  }
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-kernel-floor-'));
  try {
    const helpers = await compileHelpers(scratch);
    const trampolines = helpers.trampolineCheck
      ? (await run(helpers.bpfProbe!, ['check', helpers.trampolineCheck])).stdout
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as { program: string; loads: boolean; error?: string })
      : [];
    const archive = await makeArchive(scratch, FILES);
    const sides: Side[] = [
      {
        name: 'unmonitored',
        run: async (watched) => ({ workloadMs: await extractAndDelete(archive, path.join(watched, 'work')) }),
      },
      ...PAUSES.map((pause) => ({
        name: `fanotify, ${pause} ms pause`,
        run: (watched: string) =>
          underReader(archive, watched, helpers.fanotifyDrain, (ready) => [watched, ready, String(pause)]),
      })),
      ...(EBPF && helpers.bpfProbe
        ? [
            {
              name: 'eBPF on the raw syscall tracepoints',
              run: (watched: string) =>
                underReader(archive, watched, helpers.bpfProbe!, (ready) => ['run', helpers.syscallProbe!, ready]),
            },
          ]
        : []),
    ];
    const results = new Map(sides.map((side) => [side.name, [] as { workloadMs: number; eventsRead?: number }[]]));
    for (let round = 0; round < ROUNDS; round++) {
      // Each round starts with another side, each side on a new filesystem.
      for (let i = 0; i < sides.length; i++) {
        const side = sides[(round + i) % sides.length]!;
        await onFreshFilesystem(scratch, async (watched) => results.get(side.name)!.push(await side.run(watched)));
      }
      console.error(
        `round ${round + 1}/${ROUNDS}:`,
        sides.map((side) => `${side.name} ${Math.round(results.get(side.name)!.at(-1)!.workloadMs)} ms`).join(', '),
      );
    }
    const plain = results.get('unmonitored')!.map((r) => r.workloadMs);
    const plainMs = median(plain);
    const watched = sides.slice(1).map((side) => {
      const rounds = results.get(side.name)!;
      return {
        side: side.name,
        ms: rounds.map((r) => Math.round(r.workloadMs)),
        eventsRead: rounds.map((r) => r.eventsRead),
        ratio: Number((median(rounds.map((r) => r.workloadMs)) / plainMs).toFixed(3)),
        // Each round's sides ran back to back: less moved by drift across rounds.
        ratioRoundByRound: Number(median(rounds.map((r, i) => r.workloadMs / plain[i]!)).toFixed(3)),
      };
    });
    console.log(
      JSON.stringify(
        {
          files: FILES,
          rounds: ROUNDS,
          machine: { ...machineLoad(), kernel: os.release() },
          trampolinePrograms: helpers.bpfMissing ?? trampolines,
          unmonitoredMs: plain.map(Math.round),
          sides: watched,
          agentLimit: 1.1,
        },
        null,
        2,
      ),
    );
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
