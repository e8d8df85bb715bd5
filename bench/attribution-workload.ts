/**
 * The file-heavy workload of the attribution benchmarks (docs/benchmarks.md, "Actor
 * attribution"): a tar archive of small files, extracted into a folder and the tree deleted
 * again by another process (`tar -xf … && rm -rf …`), plus the little readings every
 * benchmark prints beside its figures: the median of repeated runs, the machine's load, a
 * process's CPU time and resident memory from /proc.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Files per folder of the archive (a deep tree of one folder each would be a different workload). */
const PER_FOLDER = 1000;

/** Folders plus files the workload creates and deletes under its target (the target excluded). */
export function entriesOf(files: number): { files: number; folders: number } {
  return { files, folders: Math.ceil(files / PER_FOLDER) };
}

/** A tar archive of `files` files of a few bytes each, in `scratch`. */
export async function makeArchive(scratch: string, files: number): Promise<string> {
  const source = path.join(scratch, 'source');
  for (let i = 0; i < files; i++) {
    const folder = path.join(source, `d${Math.floor(i / PER_FOLDER)}`);
    if (i % PER_FOLDER === 0) fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, `f${i}.txt`), `file ${i}\n`);
  }
  const archive = path.join(scratch, 'files.tar');
  await run('tar', ['-cf', archive, '-C', source, '.']);
  fs.rmSync(source, { recursive: true });
  return archive;
}

/**
 * Extracts the archive into `target` (created first) and deletes it, in a child shell; wall ms.
 * Dirty pages of what ran before are written out first, and the disk given a moment, so that
 * no set-up starts with another's writeback.
 */
export async function extractAndDelete(archive: string, target: string): Promise<number> {
  fs.mkdirSync(target);
  await run('sync');
  await sleep(3000);
  const started = process.hrtime.bigint();
  await run('sh', ['-c', 'tar -xf "$1" -C "$2" && rm -rf "$2"', 'sh', archive, target]);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/**
 * Runs `side` on a new, empty ext4 filesystem (an image file in `scratch`, loop-mounted), then
 * unmounts and deletes it. Why: when ext4 allocates an inode it skips those deleted in the last
 * minutes (`recently_deleted`, which reads each one's inode block). After one side had deleted
 * 100,000 files, the next side's extraction on the same filesystem spent 15–50 s of system time
 * in that scan (perf, 2026-11-25), growing round by round, against 3.5–4.5 s on a fresh
 * filesystem: each side's time depended on what had run before it, not on who was watching.
 * VIGIL_BENCH_FRESH_FS=0 runs every side in one folder of `scratch`'s filesystem instead.
 */
export async function onFreshFilesystem<T>(scratch: string, side: (folder: string) => Promise<T>): Promise<T> {
  if (process.env['VIGIL_BENCH_FRESH_FS'] === '0') {
    const folder = path.join(scratch, 'watched');
    fs.mkdirSync(folder, { recursive: true });
    return side(folder);
  }
  const image = path.join(scratch, 'fs.img');
  const mountPoint = path.join(scratch, 'fs');
  fs.mkdirSync(mountPoint, { recursive: true });
  await run('truncate', ['-s', '3G', image]);
  await run('mkfs.ext4', ['-q', '-F', '-N', '300000', image]); // inodes for the archive's files and more
  await run('mount', ['-o', 'loop', image, mountPoint]);
  try {
    return await side(mountPoint);
  } finally {
    await unmount(mountPoint);
    fs.rmSync(image, { force: true });
  }
}

/** Unmounts, waiting up to 10 s for a watcher's last descriptors on it to close; then lazily. */
async function unmount(mountPoint: string): Promise<void> {
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      await run('umount', [mountPoint]);
      return;
    } catch {
      await sleep(500);
    }
  }
  await run('umount', ['--lazy', mountPoint]);
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** What else the machine was doing: cores and the 1-minute load average. */
export function machineLoad(): { cores: number; loadAverage1m: number } {
  return { cores: os.cpus().length, loadAverage1m: Number(os.loadavg()[0]!.toFixed(2)) };
}

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** User plus system CPU time of a process (all its threads), in ms, from /proc/PID/stat. */
export function cpuMsOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (in parentheses, which may contain spaces): utime is the 14th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/** Resident memory of a process in KiB (/proc/PID/status VmRSS). */
export function rssKiBOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts a tracer (fatrace, inotifywait) in `cwd` and waits until `ready` says it watches. */
export async function startTracer(
  command: string,
  args: string[],
  cwd: string,
  ready: () => boolean,
): Promise<ChildProcess> {
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const deadline = Date.now() + 10_000;
  while (!ready()) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`${command} did not start: ${stderr}`);
    await sleep(100);
  }
  return child;
}

export async function stopTracer(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGINT');
  await exited;
}
