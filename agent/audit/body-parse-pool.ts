/**
 * Runs parseWriteBody in a worker thread for large bodies and inline for small ones (a worker
 * round trip costs more than parsing a few kilobytes). One worker, jobs in order; a job that
 * runs past its deadline gets the worker terminated and replaced.
 */
import type { Worker } from 'node:worker_threads';
import type { NewActivityRecord } from '../../shared/activity-record.js';
import { startModuleWorker } from '../util/module-worker.js';
import { AuditError, EmptyResponse, ErrorCodes, serverError } from './audit-errors.js';
import type { ParseJob, ParseOutcome } from './body-parse-worker.js';
import { parseWriteBody } from './request-body.js';
import type { WireFormat } from './record-stream.js';

export const INLINE_PARSE_LIMIT = 64 * 1024;

interface Pending {
  resolve: (records: NewActivityRecord[]) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export class BodyParsePool {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private closed = false;

  constructor(private readonly timeoutMs = 15_000) {}

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = startModuleWorker(import.meta.url, 'body-parse-worker');
    worker.unref();
    worker.on('message', (outcome: ParseOutcome) => this.settle(outcome));
    worker.on('error', (error) => this.failAll(error.message));
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = null;
      this.failAll('the parse worker stopped');
    });
    this.worker = worker;
    return worker;
  }

  private settle(outcome: ParseOutcome): void {
    const job = this.pending.get(outcome.id);
    if (!job) return;
    this.pending.delete(outcome.id);
    clearTimeout(job.timer);
    if ('records' in outcome) job.resolve(outcome.records);
    else if ('auditError' in outcome) {
      const e = outcome.auditError;
      job.reject(new AuditError(e.status, e.category, e.code, e.detail, e.location));
    } else if ('empty' in outcome)
      job.reject(new EmptyResponse(outcome.empty.status, outcome.empty.headers, outcome.empty.reason));
    else job.reject(serverError(ErrorCodes.internal, `the request body could not be parsed: ${outcome.failure}`));
  }

  private failAll(reason: string): void {
    for (const [id, job] of this.pending) {
      clearTimeout(job.timer);
      job.reject(serverError(ErrorCodes.internal, `the request body could not be parsed: ${reason}`));
      this.pending.delete(id);
    }
  }

  async parse(bytes: Buffer, format: WireFormat, vendor: string): Promise<NewActivityRecord[]> {
    if (bytes.length <= INLINE_PARSE_LIMIT || this.closed) return parseWriteBody(bytes, format, vendor);
    const worker = this.ensureWorker();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(serverError(ErrorCodes.internal, 'parsing the request body took too long'));
        void worker.terminate();
      }, this.timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      const copy = new Uint8Array(bytes); // its own buffer, so it can be transferred
      worker.postMessage({ id, bytes: copy, format, vendor } satisfies ParseJob, [copy.buffer]);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = null;
    this.failAll('the agent is stopping');
    if (worker) await worker.terminate();
  }
}
