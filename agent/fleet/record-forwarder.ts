/**
 * Forwards the agent's records to the fleet database (docs/fleet.md). Records are committed in
 * the local SQLite first, as always; this reads them in `seq` order in bounded batches, inserts
 * each batch in one PostgreSQL transaction (`ON CONFLICT DO NOTHING` on (day, rid)), and only
 * then moves the durable cursor in SQLite (`fleet_forward_cursor`). A crash between the two
 * re-sends the batch, which conflicts: at least once, exactly once in effect.
 *
 * It runs on the event loop: a batch read is one indexed SQLite range of at most `batchSize`
 * rows, and the insert is asynchronous.
 */
import Database from 'better-sqlite3';
import type pg from 'pg';
import type { Logger } from '../log/logger.js';
import { queryWhileReachable } from './fleet-connection.js';
import { COPY_LINES, insertCopyText, type CopyBatch, type InsertTiming } from './forward-copy.js';
import { failureState, type FleetState } from './fleet-state.js';
import { ReconnectPacing, type PacingOptions } from './reconnect-pacing.js';

export interface ForwarderOptions {
  auditDb: string;
  pool: pg.Pool;
  /** The fleet database's URL (without password): the cursor is kept per database. */
  database: string;
  agentId: string;
  log: Logger;
  batchSize?: number;
  /** How often an idle forwarder looks for new records. */
  pollMs?: number;
  pacing?: PacingOptions;
  /** Called before each insert, once connected; migrations and partitions go here. */
  prepare?: () => Promise<void>;
  /** Called after each batch is in the fleet database (benchmarks). */
  onBatch?: (batch: { records: number; readMs: number } & InsertTiming) => void;
}

/**
 * Records per batch. Every batch holds the fleet's inserts lock for its insert and commit, so
 * its fixed costs (planning, a commit's WAL flush, handing the lock on) are paid serially by the
 * whole fleet: 2,000 records make them small against the rows' own index work (docs/fleet.md
 * "Sizing"). Reading a batch is one synchronous SQLite statement that also writes its COPY text,
 * a few µs of CPU per record (some 10 ms a batch), well under the event loop's 100 ms per turn.
 */
const BATCH_SIZE = 2_000;

interface Waiter {
  seq: number;
  resolve: () => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export class FleetUnreachableError extends Error {
  override name = 'FleetUnreachableError';
}

export class RecordForwarder {
  private readonly db: Database.Database;
  private readonly readBatch: Database.Statement;
  private readonly readCursor: Database.Statement;
  private readonly saveCursor: Database.Statement;
  private readonly countAfter: Database.Statement;
  private readonly pacing: ReconnectPacing;
  private cursor: number;
  private connected = false;
  /** How the last attempt failed, while not connected. */
  private failure: 'unreachable' | 'refused' = 'unreachable';
  private downSince: Date | null = null;
  private lastError = '';
  private stopped = false;
  private wake: (() => void) | null = null;
  private readonly waiters = new Set<Waiter>();
  private loop: Promise<void> | null = null;
  private prepared = false;
  private firstAttempt: Promise<void>;
  private settleFirst!: () => void;

  constructor(private readonly options: ForwarderOptions) {
    this.db = new Database(options.auditDb, { fileMustExist: true });
    this.db.pragma('busy_timeout = 1000');
    this.readBatch = this.db.prepare(COPY_LINES);
    this.readCursor = this.db.prepare('SELECT last_seq FROM fleet_forward_cursor WHERE database = ?');
    this.saveCursor = this.db.prepare(
      `INSERT INTO fleet_forward_cursor (database, last_seq) VALUES (?, ?)
         ON CONFLICT (database) DO UPDATE SET last_seq = excluded.last_seq`,
    );
    this.countAfter = this.db.prepare('SELECT count(*) AS n FROM activity_records WHERE seq > ?');
    const row = this.readCursor.get(options.database) as { last_seq: number } | undefined;
    this.cursor = row?.last_seq ?? 0;
    this.pacing = new ReconnectPacing(options.pacing);
    this.firstAttempt = new Promise((resolve) => (this.settleFirst = resolve));
  }

  /** Starts forwarding; resolves after the first attempt to reach the database, whatever it gave. */
  start(): Promise<void> {
    this.loop ??= this.run();
    return this.firstAttempt;
  }

  state(): FleetState {
    return this.connected ? 'connected' : this.failure;
  }

  unreachableSince(): Date | null {
    return this.downSince;
  }

  /** Why the last attempt failed, '' when connected (no password or URL in it: driver messages name neither). */
  problem(): string {
    return this.lastError;
  }

  /** The last local seq known to be in the fleet database. */
  forwardedSeq(): number {
    return this.cursor;
  }

  private counted = { at: 0, cursor: -1, n: 0 };

  /** Local records not yet in the fleet database (counted at most once a second: status reads it often). */
  backlog(): number {
    const now = Date.now();
    if (this.counted.cursor !== this.cursor || now - this.counted.at >= 1000) {
      this.counted = { at: now, cursor: this.cursor, n: (this.countAfter.get(this.cursor) as { n: number }).n };
    }
    return this.counted.n;
  }

  /** Resolves when the local record `seq` is in the fleet database; rejects if it is unreachable. */
  waitForwarded(seq: number, timeoutMs: number): Promise<void> {
    if (this.cursor >= seq) return Promise.resolve();
    if (!this.connected || this.stopped) {
      return Promise.reject(new FleetUnreachableError('the fleet database is unreachable'));
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        seq,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters.delete(waiter);
          reject(new FleetUnreachableError(`record ${seq} was not forwarded within ${timeoutMs} ms`));
        }, timeoutMs),
      };
      this.waiters.add(waiter);
      this.nudge();
    });
  }

  /**
   * Another query of the membership failed (the heartbeat): an idle forwarder, which sends
   * nothing, would otherwise say `connected` until it next had records. It tries again at once.
   */
  reportFailure(error: Error): void {
    if (this.stopped) return;
    this.markUnreachable(error);
    this.nudge();
  }

  /** Looks for new records now instead of at the next poll. */
  nudge(): void {
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.nudge();
    await this.loop;
    this.failWaiters('the agent left the fleet or is stopping');
    this.db.close();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    }).finally(() => (this.wake = null));
  }

  private failWaiters(reason: string): void {
    for (const waiter of this.waiters) {
      clearTimeout(waiter.timer);
      waiter.reject(new FleetUnreachableError(reason));
    }
    this.waiters.clear();
  }

  private releaseWaiters(): void {
    for (const waiter of this.waiters) {
      if (waiter.seq > this.cursor) continue;
      clearTimeout(waiter.timer);
      this.waiters.delete(waiter);
      waiter.resolve();
    }
  }

  private async run(): Promise<void> {
    const batchSize = this.options.batchSize ?? BATCH_SIZE;
    while (!this.stopped) {
      let waitMs = this.options.pollMs ?? 250;
      try {
        if (!this.prepared) {
          await this.options.prepare?.();
          this.prepared = true;
        }
        const read = performance.now();
        const batch = this.readBatch.get({ after: this.cursor, limit: batchSize }) as CopyBatch;
        if (batch.records > 0) {
          const started = Date.now();
          const readMs = performance.now() - read;
          const timing = await insertCopyText(this.options.pool, this.options.agentId, batch.text!);
          this.cursor = batch.lastSeq!;
          this.saveCursor.run(this.options.database, this.cursor);
          this.options.onBatch?.({ records: batch.records, readMs, ...timing });
          waitMs = batch.records === batchSize ? this.pacing.pauseAfter(batch.records, Date.now() - started) : 0;
        } else {
          // Nothing new: a cheap round trip keeps the state true while idle.
          if (!this.connected) await queryWhileReachable(this.options.pool, 'SELECT 1', []);
        }
        this.markConnected();
        this.releaseWaiters();
        if (batch.records > 0 && waitMs === 0) continue;
        if (batch.records === 0) waitMs = this.options.pollMs ?? 250;
      } catch (error) {
        this.markUnreachable(error as Error);
        waitMs = this.pacing.failed();
      }
      this.settleFirst();
      if (!this.stopped) await this.sleep(waitMs);
    }
    this.settleFirst();
  }

  private markConnected(): void {
    if (!this.connected && this.downSince) {
      this.options.log.info('fleet database reachable again', { since: this.downSince.toISOString() });
    }
    this.connected = true;
    this.downSince = null;
    this.lastError = '';
    this.pacing.succeeded();
  }

  private markUnreachable(error: Error): void {
    const failure = failureState(error);
    if (this.connected || this.downSince === null || failure !== this.failure) {
      this.options.log.warn(`fleet database ${failure}`, { error: error.message });
    }
    this.connected = false;
    this.failure = failure;
    this.downSince ??= new Date();
    this.lastError = error.message;
    // A schema problem may have been the cause: check again when it comes back.
    this.prepared = false;
    this.failWaiters(
      `the fleet database ${failure === 'refused' ? 'refused this agent' : 'is unreachable'} (${error.message})`,
    );
  }
}
