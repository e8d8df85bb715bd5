/**
 * Durable commits without holding the event loop (the loop is never held up for more
 * than 100 ms; docs/security.md: acknowledge a write only once it is on disk).
 *
 * With `synchronous=FULL`, SQLite fsyncs the WAL inside COMMIT, on the calling thread: on a busy
 * disk that held the agent's event loop for up to ~100 ms per commit (test/load/load.test.ts).
 * Instead, the acknowledged writes commit with `synchronous=NORMAL` (the commit frames are in
 * the WAL, in the page cache) and then this fsyncs the WAL file on libuv's thread pool; the
 * request is answered after that. An fsync covers every byte written to the file before it, so
 * an answered write is as durable as under FULL. A checkpoint under NORMAL syncs the WAL before
 * copying it into the database and the database after, so frames that reach the database file
 * stay durable too. A missing WAL means the last connection checkpointed it into the database
 * (synced) and removed it.
 */
import fs from 'node:fs';

export async function syncWal(databaseFile: string): Promise<void> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(`${databaseFile}-wal`, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The same, on this thread: for rare writes (a revocation) that must be durable at once. */
export function syncWalNow(databaseFile: string): void {
  let fd: number;
  try {
    fd = fs.openSync(`${databaseFile}-wal`, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
