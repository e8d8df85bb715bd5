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
import { ADVISORY_KEYS, utcDay } from './pg-schema.js';
import type { CanonicalRow } from '../store/record-chain.js';
import { ReconnectPacing, type PacingOptions } from './reconnect-pacing.js';

/** A local record as forwarded: its canonical columns, its local seq and its chain value. */
export interface ForwardedRow extends CanonicalRow {
  seq: number;
  chain: Buffer | null;
}

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
}

/**
 * Records per batch. Every batch holds the fleet's inserts lock for its statement and commit, so
 * its fixed costs (a round trip, planning, a commit's WAL flush, handing the lock on) are paid
 * serially by the whole fleet: 2,000 records make them small against the rows' own index work
 * (docs/fleet.md "Sizing"). Reading and encoding a batch is synchronous, about 10 µs of CPU per
 * record (some 20 ms a batch), well under the event loop's 100 ms per turn.
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

/**
 * The insert of one batch: one statement, one round trip, whatever the batch size (its columns
 * as arrays). It takes the inserts lock before its first row gets its `seq` and holds it to its
 * commit, so the fleet's `seq` order is its commit order; one statement keeps the lock held for
 * the statement's own work only, not for client round trips.
 */
const INSERT = `
  INSERT INTO vigil_records (agent_id, agent_seq, rid, when_ms, who, action, what, location, object_type,
                             data_source, plan_name, plan_id, item_name, workstation, details, chain, day)
  SELECT $1, u.*
    FROM (SELECT pg_advisory_xact_lock(${ADVISORY_KEYS.inserts})) AS inserts_lock,
         unnest($2::bigint[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[],
                $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[],
                $14::text[], $15::text[], $16::bytea[], $17::date[]) AS u
  ON CONFLICT DO NOTHING`;

export function insertParameters(agentId: string, rows: readonly ForwardedRow[]): unknown[] {
  const column = <T>(pick: (row: ForwardedRow) => T): T[] => rows.map(pick);
  return [
    agentId,
    column((r) => r.seq),
    column((r) => r.rid),
    column((r) => r.when_ms),
    column((r) => r.who),
    column((r) => r.action),
    column((r) => r.what),
    column((r) => r.location),
    column((r) => r.object_type),
    column((r) => r.data_source),
    column((r) => r.plan_name),
    column((r) => r.plan_id),
    column((r) => r.item_name),
    column((r) => r.workstation),
    column((r) => r.details),
    column((r) => r.chain),
    column(dayOfRecord()),
  ];
}

/** utcDay, formatted once per day of a batch rather than once per record. */
function dayOfRecord(): (row: ForwardedRow) => string {
  let lastDay = NaN;
  let lastText = '';
  return (row) => {
    const day = Math.floor(row.when_ms / 86_400_000);
    if (day !== lastDay) {
      lastDay = day;
      lastText = utcDay(row.when_ms);
    }
    return lastText;
  };
}

/**
 * Inserts the rows in one transaction that holds the inserts lock (seq order is commit order).
 * A named statement: each connection parses and plans it once, not once per batch.
 */
export async function insertRecords(pool: pg.Pool, agentId: string, rows: readonly ForwardedRow[]): Promise<void> {
  await queryWhileReachable(pool, { name: 'vigil_insert_records', text: INSERT }, insertParameters(agentId, rows));
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
    this.readBatch = this.db.prepare(
      `SELECT seq, rid, when_ms, who, action, what, location, object_type, data_source,
              plan_name, plan_id, item_name, workstation, details, chain
         FROM activity_records WHERE seq > ? ORDER BY seq LIMIT ?`,
    );
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

  state(): 'connected' | 'unreachable' {
    return this.connected ? 'connected' : 'unreachable';
  }

  unreachableSince(): Date | null {
    return this.downSince;
  }

  /** Why the last attempt failed (no password or URL in it: driver messages name neither). */
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
        const rows = this.readBatch.all(this.cursor, batchSize) as ForwardedRow[];
        if (rows.length > 0) {
          const started = Date.now();
          await insertRecords(this.options.pool, this.options.agentId, rows);
          this.cursor = rows[rows.length - 1]!.seq;
          this.saveCursor.run(this.options.database, this.cursor);
          waitMs = rows.length === batchSize ? this.pacing.pauseAfter(rows.length, Date.now() - started) : 0;
        } else {
          // Nothing new: a cheap round trip keeps the state true while idle.
          if (!this.connected) await queryWhileReachable(this.options.pool, 'SELECT 1', []);
        }
        this.markConnected();
        this.releaseWaiters();
        if (rows.length > 0 && waitMs === 0) continue;
        if (rows.length === 0) waitMs = this.options.pollMs ?? 250;
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
    if (this.connected || this.downSince === null) {
      this.options.log.warn('fleet database unreachable', { error: error.message });
    }
    this.connected = false;
    this.downSince ??= new Date();
    this.lastError = error.message;
    // A schema problem may have been the cause: check again when it comes back.
    this.prepared = false;
    this.failWaiters(`the fleet database is unreachable (${error.message})`);
  }
}
