/**
 * Worker thread that stores the audit API's record batches (audit-writer.ts), with its own
 * connection to the audit database, so neither the insert nor the disk's latency reaches the
 * agent's event loop.
 *
 * Each batch is one transaction, committed with the store's full durability before the reply.
 * Before each batch the file is checked (reopening-handle.ts): the connection is opened again
 * when the file was replaced or after a failure; a missing file is never created here.
 */
import { workerData } from 'node:worker_threads';
import type { ActivityRecord, NewActivityRecord } from '../../shared/activity-record.js';
import { serveRequests } from '../util/worker-channel.js';
import { AuditStore } from './audit-store.js';
import { ReopeningHandle } from './reopening-handle.js';
import { describeSqliteError } from './sqlite-error.js';

export interface WriteJob {
  records: NewActivityRecord[];
}
export type WriteReply = { stored: ActivityRecord[] } | { failure: string };

const file = (workerData as { file: string }).file;
const store = new ReopeningHandle<AuditStore>({
  file,
  checkHeader: true,
  open: () => AuditStore.openExisting({ file }),
  close: (opened) => {
    try {
      opened.close();
    } catch {
      // the connection is unusable anyway
    }
  },
});

serveRequests<WriteJob, WriteReply>((job) => {
  try {
    return { stored: store.get().insertBatch(job.records) };
  } catch (error) {
    // Opened afresh before the next batch: writes recover by themselves once the file is back.
    store.reset();
    return { failure: describeSqliteError(error) };
  }
});
