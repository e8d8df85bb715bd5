/**
 * One agent per data directory: lowdb allows one writer per file (docs/architecture.md) and SQLite
 * state is per agent. The lock file also tells admin commands where the running agent's
 * console listens, so they can go through it instead of writing files behind its back.
 *
 * The lock file is created exclusively (O_EXCL): of two agents started together on one data
 * dir, one creates it and the other finds it held. A lock whose pid is gone is stale and is
 * replaced. A pid this account may not signal (EPERM) belongs to another account, so it is not
 * our agent: a pid reused by someone else's process never makes a stale lock look held
 * (docs/security.md, F8).
 */
import { constants } from 'node:fs';
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

/** True when `pid` is a live process of this account (EPERM: another account's, so not ours). */
function isOurLiveProcess(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** Attempts at creating the lock file, and how many of them wait for an unreadable one (50 ms each). */
const MAX_ATTEMPTS = 30;
const UNREADABLE_ATTEMPTS = 20;

async function readLockFile(file: string): Promise<LockInfo | 'missing' | 'unreadable'> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
  try {
    const info = JSON.parse(text) as LockInfo;
    return typeof info.pid === 'number' ? info : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

/** The lock's holder when it is a live process of this account; null when nobody holds it. */
export async function readLock(file: string): Promise<LockInfo | null> {
  const info = await readLockFile(file).catch(() => 'unreadable' as const);
  return typeof info === 'object' && isOurLiveProcess(info.pid) ? info : null;
}

export class AgentLock {
  private constructor(
    private readonly file: string,
    private readonly holder: LockHolder,
  ) {}

  /**
   * Takes the lock, replacing a stale one left by an agent that died. A lock file that cannot
   * be parsed may be one another process has just created and not yet written: it is given a
   * moment before it counts as a crash's leftover.
   */
  static async acquire(file: string, dataDir: string, holder: LockHolder = 'agent'): Promise<AgentLock> {
    const lock = new AgentLock(file, holder);
    for (let attempt = 0; ; attempt++) {
      try {
        const handle = await fs.open(file, CREATE_NEW, 0o600);
        try {
          await handle.writeFile(lock.contents(null));
          await handle.sync();
        } finally {
          await handle.close();
        }
        return lock;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= MAX_ATTEMPTS) throw error;
      }
      const current = await readLockFile(file);
      if (current === 'missing') continue;
      if (current === 'unreadable' && attempt < UNREADABLE_ATTEMPTS) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      if (current !== 'unreadable' && current.pid !== process.pid && isOurLiveProcess(current.pid)) {
        throw new AgentAlreadyRunningError(dataDir, current.pid, current.holder ?? 'agent');
      }
      await fs.rm(file, { force: true }); // stale: its process is gone
    }
  }

  /** Records where the console listens, once it does (the lock stays held throughout). */
  write(consoleUrl: string | null): Promise<void> {
    return writeFileDurably(this.file, this.contents(consoleUrl), { mode: 0o600 });
  }

  private contents(consoleUrl: string | null): string {
    const info: LockInfo = {
      pid: process.pid,
      consoleUrl,
      startedAt: new Date().toISOString(),
      holder: this.holder,
    };
    return JSON.stringify(info) + '\n';
  }

  async release(): Promise<void> {
    const holder = await readLock(this.file);
    if (holder?.pid === process.pid) await fs.rm(this.file, { force: true });
  }
}
