/**
 * Worker thread that checkpoints the audit database's WAL (copies committed pages back into
 * the database file and syncs it), so the agent's event loop does not. See wal-checkpointer.ts.
 *
 * It opens the file read-write but never creates it (a missing or replaced file is not this
 * thread's to repair), reopens when the path names another file, and only ever runs PASSIVE
 * checkpoints: they never wait for, nor block, the writer or the readers.
 */
import { workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { serveRequests } from '../util/worker-channel.js';
import { ReopeningHandle } from './reopening-handle.js';

export interface CheckpointJob {
  type: 'checkpoint';
}
export type CheckpointReply = { type: 'done'; frames: number; copied: number } | { type: 'failed'; error: string };

const file = (workerData as { file: string }).file;
const connection = new ReopeningHandle<Database.Database>({
  file,
  open: () => {
    const opened = new Database(file, { fileMustExist: true, timeout: 0 });
    try {
      // A checkpoint syncs the WAL before copying and the database file after, unless OFF.
      opened.pragma('synchronous = FULL');
      opened.pragma('wal_autocheckpoint = 0');
    } catch (error) {
      opened.close();
      throw error;
    }
    return opened;
  },
  close: (db) => db.close(),
});

serveRequests<CheckpointJob, CheckpointReply>(() => {
  try {
    const [row] = connection.get().pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number; checkpointed: number }>;
    return { type: 'done', frames: row?.log ?? 0, copied: row?.checkpointed ?? 0 };
  } catch (error) {
    connection.reset();
    return { type: 'failed', error: (error as Error).message };
  }
});
