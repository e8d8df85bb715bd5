/**
 * Stores the audit API's record batches in a worker thread (audit-writer-worker.ts). Inserting
 * a batch of 1,000 records took 24 ms on average and up to 60 ms on the event loop under load,
 * and its commit waited on the disk; with 200 concurrent searches that held the loop past the
 * 100 ms limit of issue 9 (docs/security.md, L04). The worker has its own connection: SQLite
 * lets one writer in at a time, so a pipeline commit on the main connection waits at most for
 * one batch.
 *
 * Batches are stored in the order they are given, one at a time. A promise resolves once its
 * batch is committed (synchronous=FULL) and rejects with an AuditWriteFailure naming the problem.
 */
import type { Worker } from 'node:worker_threads';
import type { ActivityRecord, NewActivityRecord } from '../../shared/activity-record.js';
import { startModuleWorker } from '../util/module-worker.js';
import type { WriteJob, WriteReply } from './audit-writer-worker.js';

export class AuditWriteFailure extends Error {}

/** How long stopping waits for the batches already given (each is one transaction). */
const CLOSE_WAIT_MS = 10_000;

interface Pending {
  resolve: (stored: ActivityRecord[]) => void;
  reject: (error: Error) => void;
}

export class AuditWriter {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private closed = false;

  constructor(private readonly file: string) {}

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = startModuleWorker(import.meta.url, 'audit-writer-worker', { workerData: { file: this.file } });
    worker.on('message', (reply: WriteReply) => {
      const job = this.pending.get(reply.id);
      if (!job) return;
      this.pending.delete(reply.id);
      if ('stored' in reply) job.resolve(reply.stored);
      else job.reject(new AuditWriteFailure(reply.failure));
    });
    worker.on('error', (error) => this.failAll(`the writer thread failed: ${error.message}`));
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = null;
      this.failAll('the writer thread stopped');
    });
    this.worker = worker;
    return worker;
  }

  private failAll(reason: string): void {
    for (const [id, job] of this.pending) {
      this.pending.delete(id);
      job.reject(new AuditWriteFailure(reason));
    }
  }

  /** Stores `records` in one transaction; resolves with them as stored (RID assigned). */
  write(records: readonly NewActivityRecord[]): Promise<ActivityRecord[]> {
    if (this.closed) return Promise.reject(new AuditWriteFailure('the agent is stopping'));
    const worker = this.ensureWorker();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, records: records as NewActivityRecord[] } satisfies WriteJob);
    });
  }

  /** Ends the thread once the batches it was given are stored. */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    if (!worker) return;
    const settled = [...this.pending.values()].map(
      (job) =>
        new Promise<void>((done) => {
          const { resolve, reject } = job;
          job.resolve = (stored) => (resolve(stored), done());
          job.reject = (error) => (reject(error), done());
        }),
    );
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((done) => (timer = setTimeout(done, CLOSE_WAIT_MS)));
    await Promise.race([Promise.all(settled), limit]);
    clearTimeout(timer);
    this.worker = null;
    await worker.terminate();
  }
}
