/**
 * The agent's side of record-json-worker.ts: hands slices of a page to the worker thread and
 * gets their JSON back. When the worker is not available the caller builds slices itself.
 */
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../util/module-worker.js';
import { AuditDatabaseError } from './audit-reader.js';
import type { RecordJsonJob, RecordJsonReply } from './record-json-worker.js';

export class RecordJsonPool {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (b: Buffer) => void; reject: (e: Error) => void }>();
  private closed = false;

  constructor(private readonly file: string) {}

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = startModuleWorker(import.meta.url, 'record-json-worker', { workerData: { file: this.file } });
    worker.unref();
    worker.on('message', (reply: RecordJsonReply) => {
      const job = this.pending.get(reply.id);
      if (!job) return;
      this.pending.delete(reply.id);
      if ('bytes' in reply)
        job.resolve(Buffer.from(reply.bytes.buffer, reply.bytes.byteOffset, reply.bytes.byteLength));
      else job.reject(new AuditDatabaseError(reply.error));
    });
    const failAll = (reason: string): void => {
      for (const [id, job] of this.pending) {
        job.reject(new AuditDatabaseError(reason));
        this.pending.delete(id);
      }
    };
    worker.on('error', (error) => failAll(error.message));
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = null;
      failAll('the record worker stopped');
    });
    this.worker = worker;
    return worker;
  }

  get available(): boolean {
    return !this.closed;
  }

  /** The comma-separated JSON of the records for `seqs` (ascending). */
  fetchJson(seqs: number[]): Promise<Buffer> {
    const worker = this.ensureWorker();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, seqs } satisfies RecordJsonJob);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }
}
