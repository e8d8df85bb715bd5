/**
 * One agent per data directory: lowdb allows one writer per file (deps.md §3) and SQLite
 * state is per agent. The lock file also tells admin commands where the running agent's
 * console listens, so they can go through it instead of writing files behind its back.
 */
import fs from 'node:fs/promises';
import { writeFileDurably } from './durable-file.js';

export interface LockInfo {
  pid: number;
  consoleUrl: string | null;
  startedAt: string;
}

export class AgentAlreadyRunningError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`another Vigil agent (pid ${pid}) is already using the data directory ${dataDir}`);
    this.name = 'AgentAlreadyRunningError';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function readLock(file: string): Promise<LockInfo | null> {
  try {
    const info = JSON.parse(await fs.readFile(file, 'utf8')) as LockInfo;
    return typeof info.pid === 'number' && isAlive(info.pid) ? info : null;
  } catch {
    return null; // missing, half-written or stale: nobody holds it
  }
}

export class AgentLock {
  private constructor(private readonly file: string) {}

  /** Takes the lock, replacing a stale one left by an agent that died. */
  static async acquire(file: string, dataDir: string): Promise<AgentLock> {
    const holder = await readLock(file);
    if (holder && holder.pid !== process.pid) throw new AgentAlreadyRunningError(dataDir, holder.pid);
    const lock = new AgentLock(file);
    await lock.write(null);
    return lock;
  }

  write(consoleUrl: string | null): Promise<void> {
    const info: LockInfo = { pid: process.pid, consoleUrl, startedAt: new Date().toISOString() };
    return writeFileDurably(this.file, JSON.stringify(info) + '\n', { mode: 0o600 });
  }

  async release(): Promise<void> {
    const holder = await readLock(this.file);
    if (holder?.pid === process.pid) await fs.rm(this.file, { force: true });
  }
}
