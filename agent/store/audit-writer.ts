/**
 * Stores the audit API's record batches in a worker thread (audit-writer-worker.ts). Inserting
 * a batch of 1,000 records took 24 ms on average and up to 60 ms on the event loop under load,
 * and its commit waited on the disk; with 200 concurrent searches that held the loop past the
 * 100 ms event-loop limit (docs/security.md, L04). The worker has its own connection: SQLite
 * lets one writer in at a time, so a pipeline commit on the main connection waits at most for
 * one batch.
 *
 * Batches are stored in the order they are given, one at a time. A promise resolves once its
 * batch is committed (synchronous=FULL) and rejects with an AuditWriteFailure naming the problem.
 */
import type { ActivityRecord, NewActivityRecord } from '../../shared/activity-record.js';
import { WorkerChannel } from '../util/worker-channel.js';
import type { WriteJob, WriteReply } from './audit-writer-worker.js';

export class AuditWriteFailure extends Error {}

/** How long stopping waits for the batches already given (each is one transaction). */
const CLOSE_WAIT_MS = 10_000;

export class AuditWriter {
  private readonly channel: WorkerChannel<WriteJob, WriteReply>;

  constructor(file: string) {
    this.channel = new WorkerChannel<WriteJob, WriteReply>({
      callerUrl: import.meta.url,
      worker: 'audit-writer-worker',
      workerData: { file },
      ref: true, // batches given must be stored before the process may end
      failure: (reason) => new AuditWriteFailure(`the writer thread: ${reason}`),
    });
  }

  /** Stores `records` in one transaction; resolves with them as stored (RID assigned). */
  async write(records: readonly NewActivityRecord[]): Promise<ActivityRecord[]> {
    const reply = await this.channel.request({ records: records as NewActivityRecord[] });
    if ('failure' in reply) throw new AuditWriteFailure(reply.failure);
    return reply.stored;
  }

  /** Ends the thread once the batches it was given are stored. */
  async close(): Promise<void> {
    await this.channel.drain(CLOSE_WAIT_MS);
    await this.channel.close();
  }
}
