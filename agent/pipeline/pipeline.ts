/**
 * The activity pipeline (docs/activity-pipeline.md): sources submit normalised records; a bounded queue
 * holds them; a batch writer stores each batch in one transaction together with the state
 * derived from it (a submission's `commitWith`: the source's file snapshot; the log file
 * positions) and the log file lines; after COMMIT the other outputs (syslog) and the live feed
 * receive the batch. Records committed by another writer (the audit API's writer thread) take
 * the same after-commit path through `committedElsewhere` (docs/activity-pipeline.md).
 *
 * Nothing accepted is lost: `submit` resolves only after COMMIT; when the queue is full,
 * submitters wait (backpressure) instead of records being dropped; a batch that fails for a
 * passing reason (disk full, database busy) stays at the head of the queue and is retried.
 */
import type { ActivityRecord } from '../../shared/activity-record.js';
import type { AuditStore } from '../store/audit-store.js';
import type { Logger } from '../log/logger.js';
import { LiveFeed } from './live-feed.js';
import type { PipelineItem, StoredItem, Submission } from './pipeline-item.js';

/** Where batches go besides the store. */
export interface OutputStage {
  /** Inside the batch transaction, after the insert: durable outputs (log files) write here. */
  writeInTransaction(items: readonly StoredItem[]): void;
  /** The transaction failed: undo whatever `writeInTransaction` wrote for it. */
  rollback(): void;
  /** After COMMIT: outputs that cannot take part in the transaction (syslog). */
  committed(items: readonly StoredItem[]): void;
}

export interface PipelineOptions {
  store: AuditStore;
  outputs?: OutputStage;
  log: Logger;
  /** Records queued before submitters must wait. */
  maxQueuedItems?: number;
  /** Records per transaction at most (a larger single submission is committed alone). */
  maxBatchItems?: number;
  /** After each commit, for statistics. */
  onCommitted?: (items: readonly StoredItem[]) => void;
  /** Called when a batch fails and when the writer recovers, for status reporting. */
  onWriteProblem?: (error: Error | null) => void;
}

export class PipelineStoppedError extends Error {
  constructor() {
    super('the activity pipeline is stopped');
    this.name = 'PipelineStoppedError';
  }
}

interface Entry {
  submission: Submission;
  size: number;
  resolve: (records: ActivityRecord[]) => void;
  reject: (error: Error) => void;
}

export interface PipelineStats {
  committedRecords: number;
  batches: number;
  failedBatches: number;
  rejectedRecords: number;
  queuedRecords: number;
  waitingSubmissions: number;
  /** The longest a commit held the event loop (insert, log lines, both disk syncs), in ms. */
  longestCommitMs: number;
}

/** SQLite result codes that describe the environment, not the batch: retry them. */
const TRANSIENT = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN|PROTOCOL|NOMEM|READONLY)/;

function isTransient(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && TRANSIENT.test(code);
}

/** A literal, not `{ ...item, stored }`: V8 (Node 20) takes microseconds per spread copy. */
function storedItem(item: PipelineItem, stored: ActivityRecord): StoredItem {
  const result: StoredItem = { record: item.record, timeMs: item.timeMs, stored };
  if (item.hostId !== undefined) result.hostId = item.hostId;
  if (item.domainId !== undefined) result.domainId = item.domainId;
  if (item.file !== undefined) result.file = item.file;
  if (item.broadcast === true) result.broadcast = true;
  return result;
}

export class Pipeline {
  readonly feed = new LiveFeed();
  private readonly queue: Entry[] = [];
  private readonly waiting: Entry[] = [];
  private queuedItems = 0;
  private pumpScheduled = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private retryDelayMs = 0;
  private oneAtATime = false;
  private stopped = false;
  private lastGoodWhen = '';
  private idleWaiters: Array<() => void> = [];
  private readonly counters = {
    committedRecords: 0,
    batches: 0,
    failedBatches: 0,
    rejectedRecords: 0,
    longestCommitMs: 0,
  };
  private readonly maxQueued: number;
  private readonly maxBatch: number;

  constructor(private readonly options: PipelineOptions) {
    this.maxQueued = options.maxQueuedItems ?? 100_000;
    this.maxBatch = options.maxBatchItems ?? 5_000;
  }

  /** Stores the records (and runs `commitWith`) in one transaction; resolves after COMMIT. */
  submit(submission: Submission): Promise<ActivityRecord[]> {
    if (this.stopped) return Promise.reject(new PipelineStoppedError());
    const bad = this.firstBadTime(submission.items);
    if (bad >= 0) {
      return Promise.reject(new Error(`record ${bad}: time "${submission.items[bad]!.record.When}" is not a date`));
    }
    return new Promise<ActivityRecord[]>((resolve, reject) => {
      const entry: Entry = { submission, size: submission.items.length, resolve, reject };
      if (this.waiting.length === 0 && this.fits(entry)) this.enqueue(entry);
      else this.waiting.push(entry);
    });
  }

  /**
   * Records another writer has committed (the audit API's, in its own thread) go to the same
   * after-commit steps as a batch of the pipeline: outputs that take them, statistics, the live
   * feed. They belong to no host, so host outputs (log files, syslog) leave them out.
   */
  committedElsewhere(records: readonly ActivityRecord[]): void {
    if (records.length === 0) return;
    const stored = records.map((record): StoredItem => ({ record, timeMs: Date.parse(record.When), stored: record }));
    this.afterCommit(stored);
  }

  /** Shorthand for `submit({ items })`. */
  write(items: PipelineItem[]): Promise<ActivityRecord[]> {
    return this.submit({ items });
  }

  stats(): PipelineStats {
    return { ...this.counters, queuedRecords: this.queuedItems, waitingSubmissions: this.waiting.length };
  }

  /** Resolves once everything submitted so far is committed (or rejected). */
  flush(): Promise<void> {
    if (this.idle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Refuses new submissions and commits what is queued. If the store keeps failing for
   * `timeoutMs`, what is left is rejected and logged rather than hanging the shutdown.
   */
  async stop(timeoutMs = 15_000): Promise<void> {
    this.stopped = true;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), timeoutMs);
    });
    const done = await Promise.race([this.flush().then(() => false), timedOut]);
    clearTimeout(timer);
    if (done) {
      const left = [...this.queue.splice(0), ...this.waiting.splice(0)];
      const count = left.reduce((n, e) => n + e.size, 0);
      this.options.log.error('records not stored at shutdown: the audit store kept failing', { count });
      for (const entry of left) entry.reject(new PipelineStoppedError());
      this.queuedItems = 0;
      if (this.retryTimer) clearTimeout(this.retryTimer);
      this.notifyIdle();
    }
  }

  /** Index of the first record whose `When` is not a date, or -1 (a burst shares one `When`). */
  private firstBadTime(items: readonly PipelineItem[]): number {
    for (let i = 0; i < items.length; i++) {
      const when = items[i]!.record.When;
      if (when === this.lastGoodWhen) continue;
      if (Number.isNaN(Date.parse(when))) return i;
      this.lastGoodWhen = when;
    }
    return -1;
  }

  private fits(entry: Entry): boolean {
    return this.queuedItems === 0 || this.queuedItems + entry.size <= this.maxQueued;
  }

  private enqueue(entry: Entry): void {
    this.queue.push(entry);
    this.queuedItems += entry.size;
    this.schedule();
  }

  private admitWaiting(): void {
    while (this.waiting.length > 0 && this.fits(this.waiting[0]!)) this.enqueue(this.waiting.shift()!);
  }

  private schedule(): void {
    if (this.pumpScheduled || this.retryTimer) return;
    this.pumpScheduled = true;
    setImmediate(() => this.pump());
  }

  private idle(): boolean {
    return this.queue.length === 0 && this.waiting.length === 0;
  }

  private notifyIdle(): void {
    if (!this.idle()) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private takeBatch(): Entry[] {
    const batch: Entry[] = [];
    let size = 0;
    while (this.queue.length > 0) {
      const next = this.queue[0]!;
      if (batch.length > 0 && (this.oneAtATime || size + next.size > this.maxBatch)) break;
      batch.push(this.queue.shift()!);
      size += next.size;
    }
    return batch;
  }

  private pump(): void {
    this.pumpScheduled = false;
    const batch = this.takeBatch();
    if (batch.length === 0) {
      this.notifyIdle();
      return;
    }
    let stored: StoredItem[];
    const started = performance.now();
    try {
      stored = this.commit(batch);
    } catch (error) {
      this.failed(batch, error as Error);
      return;
    }
    this.counters.longestCommitMs = Math.max(this.counters.longestCommitMs, performance.now() - started);
    this.oneAtATime = false;
    if (this.retryDelayMs > 0) {
      this.retryDelayMs = 0;
      this.options.onWriteProblem?.(null);
      this.options.log.info('audit store writable again');
    }
    this.counters.batches++;
    this.counters.committedRecords += stored.length;
    this.queuedItems -= stored.length;
    this.afterCommit(stored);
    let offset = 0;
    for (const entry of batch) {
      entry.resolve(stored.slice(offset, offset + entry.size).map((item) => item.stored));
      offset += entry.size;
    }
    this.admitWaiting();
    if (this.queue.length > 0) this.schedule();
    else this.notifyIdle();
  }

  private commit(batch: Entry[]): StoredItem[] {
    const items = batch.length === 1 ? batch[0]!.submission.items : batch.flatMap((entry) => entry.submission.items);
    const stored = new Array<StoredItem>(items.length);
    try {
      this.options.store.transaction(() => {
        const records = this.options.store.insertInTransaction(items.map((item) => item.record));
        for (let i = 0; i < items.length; i++) stored[i] = storedItem(items[i]!, records[i]!);
        for (const entry of batch) entry.submission.commitWith?.();
        this.options.outputs?.writeInTransaction(stored);
      });
    } catch (error) {
      this.options.outputs?.rollback();
      throw error;
    }
    return stored;
  }

  private afterCommit(stored: StoredItem[]): void {
    const steps: Array<() => void> = [
      () => this.options.outputs?.committed(stored),
      () => this.options.onCommitted?.(stored),
      () => {
        if (this.feed.subscriberCount > 0) this.feed.publish(stored.map((item) => item.stored));
      },
    ];
    for (const step of steps) {
      try {
        step();
      } catch (error) {
        this.options.log.error('after-commit step failed', { error: (error as Error).message });
      }
    }
  }

  private failed(batch: Entry[], error: Error): void {
    this.counters.failedBatches++;
    this.queue.unshift(...batch);
    if (isTransient(error)) {
      this.retryDelayMs = Math.min(Math.max(this.retryDelayMs * 2, 100), 5_000);
      this.options.log.warn('audit store write failed; retrying', {
        error: error.message,
        retryInMs: this.retryDelayMs,
        queued: this.queuedItems,
      });
      this.options.onWriteProblem?.(error);
      this.retryTimer = setTimeout(() => {
        this.retryTimer = null;
        this.schedule();
      }, this.retryDelayMs);
      return;
    }
    if (batch.length > 1) {
      // Something in the batch is wrong; find it by committing the submissions one by one.
      this.oneAtATime = true;
      this.schedule();
      return;
    }
    const entry = this.queue.shift()!;
    this.queuedItems -= entry.size;
    this.counters.rejectedRecords += entry.size;
    this.options.log.error('records refused by the audit store', { count: entry.size, error: error.message });
    entry.reject(error);
    this.admitWaiting();
    if (this.queue.length > 0) this.schedule();
    else this.notifyIdle();
  }
}
