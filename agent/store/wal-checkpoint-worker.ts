/**
 * Worker thread that checkpoints the audit database's WAL (copies committed pages back into
 * the database file and syncs it), so the agent's event loop does not. See wal-checkpointer.ts.
 *
 * It opens the file read-write but never creates it (a missing or replaced file is not this
 * thread's to repair), reopens when the path names another file, and only ever runs PASSIVE
 * checkpoints: they never wait for, nor block, the writer or the readers.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { fileIdentity, sameFile } from './search-indexer.js';

export interface CheckpointJob {
  type: 'checkpoint';
}
export type CheckpointReply = { type: 'done'; frames: number; copied: number } | { type: 'failed'; error: string };

const port = parentPort!;
const file = (workerData as { file: string }).file;
let db: Database.Database | null = null;
let id: ReturnType<typeof fileIdentity> = null;

function connection(): Database.Database {
  const current = fileIdentity(file);
  if (db && !sameFile(current, id)) {
    db.close();
    db = null;
  }
  if (!db) {
    const opened = new Database(file, { fileMustExist: true, timeout: 0 });
    try {
      // A checkpoint syncs the WAL before copying and the database file after, unless OFF.
      opened.pragma('synchronous = FULL');
      opened.pragma('wal_autocheckpoint = 0');
    } catch (error) {
      opened.close();
      throw error;
    }
    db = opened;
    id = current;
  }
  return db;
}

port.on('message', (_job: CheckpointJob) => {
  try {
    const [row] = connection().pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number; checkpointed: number }>;
    port.postMessage({ type: 'done', frames: row?.log ?? 0, copied: row?.checkpointed ?? 0 } satisfies CheckpointReply);
  } catch (error) {
    db?.close();
    db = null;
    port.postMessage({ type: 'failed', error: (error as Error).message } satisfies CheckpointReply);
  }
});
