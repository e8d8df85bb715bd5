/**
 * A real `vigil agent` process (the compiled CLI, as root, so with actor attribution) monitoring
 * one folder, for the attribution benchmarks (docs/benchmarks.md, "Actor attribution"). Its
 * records are read from its database (read-only, beside the agent's WAL writer).
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { localHostType } from '../agent/config/monitoring-schema.js';
import { UNKNOWN_ACTOR } from '../agent/monitor/actor.js';
import { sleep } from './attribution-workload.js';

const ENTRY = path.join(import.meta.dirname, '..', 'bin', 'vigil.js');
/** The service's `Nice=`; VIGIL_BENCH_AGENT_NICE=0 measures the agent at the default priority. */
export const AGENT_NICE = Number(process.env['VIGIL_BENCH_AGENT_NICE'] ?? 10);

export interface RecordCounts {
  added: number;
  removed: number;
  /** Added and Removed records of files (not folders). */
  addedFiles: number;
  removedFiles: number;
  other: number;
  /** Records of any action whose `Who` is unknown. */
  unknown: number;
}

export interface MonitoringAgent {
  pid: number;
  /** Kernel queue overflows the agent logged (each answered with a full scan). */
  overflows(): number;
  /** Records under `prefix` (a folder path; the folder itself excluded). */
  counts(prefix: string): RecordCounts;
  /** Waits until `done(counts)` or until the counts stop changing for `quietMs`. */
  settle(prefix: string, done: (counts: RecordCounts) => boolean, quietMs?: number): Promise<RecordCounts>;
  stop(): Promise<void>;
}

/** Starts the agent on `folder` and waits until a file created there by another process is recorded with its actor. */
export async function startMonitoringAgent(
  folder: string,
  dataDir: string,
  /** Options for node itself, e.g. `--cpu-prof`. */
  nodeOptions: string[] = [],
): Promise<MonitoringAgent> {
  const settings = {
    hosts: [{ id: 'bench-host', name: 'bench', type: localHostType(), includePaths: [folder] }],
  };
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify(settings));
  const home = path.join(dataDir, 'home');
  fs.mkdirSync(home);
  const ports = ['--api-port', '0', '--audit-port', '0', '--console-port', '0'];
  // As the service runs it (packaging/linux/vigil-agent.service `Nice=`): the bulk work at a
  // lower CPU priority, the fanotify reader back at 0 (root here, so it may).
  const command = [process.execPath, ...nodeOptions, ENTRY, 'agent', '--data-dir', dataDir, ...ports];
  const child = spawn('nice', ['-n', String(AGENT_NICE), ...command], {
    env: { ...process.env, HOME: home, VIGIL_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve()); // the ready line
    void exited.then(() => reject(new Error(`the agent exited before it was ready; stderr:\n${stderr}`)));
  });
  const db = new Database(path.join(dataDir, 'audit.db'), { readonly: true, fileMustExist: true });
  const count = db.prepare(
    `SELECT action, object_type = 'File' AS file, who = ? AS unknown, count(*) AS n FROM activity_records
      WHERE data_source = 'File System' AND substr(what, 1, ?) = ? GROUP BY 1, 2, 3`,
  );
  const counts = (prefix: string): RecordCounts => {
    const out: RecordCounts = { added: 0, removed: 0, addedFiles: 0, removedFiles: 0, other: 0, unknown: 0 };
    const under = prefix.endsWith(path.sep) ? prefix : prefix + path.sep;
    for (const row of count.all(UNKNOWN_ACTOR, under.length, under) as Array<{
      action: string;
      file: number;
      unknown: number;
      n: number;
    }>) {
      if (row.action === 'Added') out.added += row.n;
      else if (row.action === 'Removed') out.removed += row.n;
      else out.other += row.n;
      if (row.file && row.action === 'Added') out.addedFiles += row.n;
      if (row.file && row.action === 'Removed') out.removedFiles += row.n;
      if (row.unknown) out.unknown += row.n;
    }
    return out;
  };
  const settle = async (prefix: string, done: (c: RecordCounts) => boolean, quietMs = 10_000) => {
    let last = counts(prefix);
    let since = Date.now();
    while (!done(last) && Date.now() - since < quietMs) {
      await sleep(250);
      const now = counts(prefix);
      if (JSON.stringify(now) !== JSON.stringify(last)) since = Date.now();
      last = now;
    }
    return last;
  };
  // Ready: a file touched by another process is recorded with a known actor.
  const probe = path.join(folder, 'ready-probe');
  fs.mkdirSync(probe, { recursive: true });
  const deadline = Date.now() + 60_000;
  for (let attempt = 0; counts(probe).added <= counts(probe).unknown; attempt++) {
    if (Date.now() > deadline) throw new Error(`the agent recorded nothing in 60 s; stderr:\n${stderr}`);
    execFileSync('touch', [path.join(probe, `f${attempt}`)]);
    await sleep(500);
  }
  return {
    pid: child.pid!,
    overflows: () => stderr.split('fanotify event queue overflow').length - 1,
    counts,
    settle,
    stop: async () => {
      db.close();
      child.kill('SIGTERM');
      await exited;
      fs.rmSync(probe, { recursive: true, force: true });
    },
  };
}
