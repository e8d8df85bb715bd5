/**
 * Worker thread that stores the audit API's record batches (audit-writer.ts), with its own
 * connection to the audit database, so neither the insert nor the disk's latency reaches the
 * agent's event loop.
 *
 * Each batch is one transaction, committed with the store's full durability before the reply.
 * Before each batch the file is checked (database-file.ts) and the connection opened again when
 * the file was replaced or after a failure; a missing file is never created here.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ActivityRecord, NewActivityRecord } from '../../shared/activity-record.js';
import { AuditStore } from './audit-store.js';
import { databaseFileProblem } from './database-file.js';
import { describeSqliteError } from './sqlite-error.js';

export interface WriteJob {
  id: number;
  records: NewActivityRecord[];
}
export type WriteReply = { id: number; stored: ActivityRecord[] } | { id: number; failure: string };

const port = parentPort!;
const file = (workerData as { file: string }).file;
let store: AuditStore | null = null;

function write(records: NewActivityRecord[]): ActivityRecord[] {
  if (store) store.reopenIfReplaced();
  else store = AuditStore.openExisting({ file });
  return store.insertBatch(records);
}

port.on('message', (job: WriteJob) => {
  const problem = databaseFileProblem(file);
  if (problem !== null) {
    store?.close();
    store = null;
    port.postMessage({ id: job.id, failure: problem } satisfies WriteReply);
    return;
  }
  try {
    port.postMessage({ id: job.id, stored: write(job.records) } satisfies WriteReply);
  } catch (error) {
    // Opened afresh before the next batch: writes recover by themselves once the file is back.
    try {
      store?.close();
    } catch {
      // the connection is unusable anyway
    }
    store = null;
    port.postMessage({ id: job.id, failure: describeSqliteError(error) } satisfies WriteReply);
  }
});
