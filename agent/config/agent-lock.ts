/**
 * One agent per data directory: lowdb allows one writer per file (deps.md §3) and SQLite
 * state is per agent. The lock file also tells admin commands where the running agent's
 * console listens, so they can go through it instead of writing files behind its back.
 */
import fs from 'node:fs/promises';
import { writeFileDurably } from './durable-file.js';

/** Who holds the lock: the agent, or a `vigil` admin command changing files while no agent runs. */
export type LockHolder = 'agent' | 'cli';

export interface LockInfo {
  pid: number;
  consoleUrl: string | null;
  startedAt: string;
  /** Absent in locks written before admin commands existed: an agent. */
  holder?: LockHolder;
}

export class AgentAlreadyRunningError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
    readonly holder: LockHolder = 'agent',
  ) {
    super(
      holder === 'cli'
        ? `a vigil command (pid ${pid}) is changing the data directory ${dataDir}; try again when it has finished`
        : `another Vigil agent (pid ${pid}) is already using the data directory ${dataDir}`,
    );
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
  private constructor(
    private readonly file: string,
    private readonly holder: LockHolder,
  ) {}

  /** Takes the lock, replacing a stale one left by an agent that died. */
  static async acquire(file: string, dataDir: string, holder: LockHolder = 'agent'): Promise<AgentLock> {
    const current = await readLock(file);
    if (current && current.pid !== process.pid) {
      throw new AgentAlreadyRunningError(dataDir, current.pid, current.holder ?? 'agent');
    }
    const lock = new AgentLock(file, holder);
    await lock.write(null);
    return lock;
  }

  write(consoleUrl: string | null): Promise<void> {
    const info: LockInfo = {
      pid: process.pid,
      consoleUrl,
      startedAt: new Date().toISOString(),
      holder: this.holder,
    };
    return writeFileDurably(this.file, JSON.stringify(info) + '\n', { mode: 0o600 });
  }

  async release(): Promise<void> {
    const holder = await readLock(this.file);
    if (holder?.pid === process.pid) await fs.rm(this.file, { force: true });
  }
}
