/**
 * The audit store: activity records in SQLite (better-sqlite3), WAL mode with
 * `synchronous=FULL` so a record acknowledged after COMMIT survives a crash or power loss
 * (docs/security.md). Inserts are batched in one transaction per batch.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { ActivityDetail, ActivityRecord, NewActivityRecord } from '../../shared/activity-record.js';
import { formatWhen } from '../../shared/activity-record.js';
import { migrate } from './audit-schema.js';
import { RidGenerator } from './rid.js';
import { BACKSTOP_PAGES, WalCheckpointer } from './wal-checkpointer.js';
import { DatabaseOpenError, openProblem } from './database-open-error.js';
import { loadChainFunction } from './chain-addon.js';
import { CHAIN_BYTES, GENESIS, chainRowsJs, wellFormedOrNull, wellFormedText } from './record-chain.js';
import type { CanonicalRow } from './record-chain.js';

/**
 * The WAL is cut back to this size once a checkpoint has emptied it. A long reader (an export,
 * a backup) lets it grow past any bound meanwhile; without a limit the file kept its peak size
 * (docs/security.md, F10).
 */
export const WAL_SIZE_LIMIT = 32 * 1024 * 1024;

export interface AuditStoreOptions {
  file: string;
  /** FULL by default; NORMAL survives kill -9 but may lose the last commits on power loss. */
  synchronous?: 'FULL' | 'NORMAL';
  /**
   * Checkpoint the WAL from a worker thread after commits instead of inside them
   * (wal-checkpointer.ts). The agent turns it on; short-lived users (CLI, tests) need not.
   */
  backgroundCheckpoints?: boolean;
  /**
   * Hash the chain in JavaScript before binding the values, even where SQLite can chain as it
   * inserts (chain-addon.ts `loadChainFunction`): what the store does without the addon, for
   * tests and benchmarks to compare both.
   */
  chainInJavaScript?: boolean;
}

/** A row of `activity_records` as SQLite returns it: the canonical columns and its `seq`. */
export interface RecordRow extends CanonicalRow {
  seq: number;
}

/** Columns an insert binds per row: the 13 canonical ones (record-chain.ts), then `chain`. */
const COLUMNS = 14;
const CANONICAL = COLUMNS - 1;
/** The columns of a VALUES list of CANONICAL values, as SQLite names them. */
const VALUES_COLUMNS = Array.from({ length: CANONICAL }, (_, c) => `column${c + 1}`).join(', ');
/** Rows per multi-row INSERT: measured 64 ≈ 32 > 16 ≫ 1 (docs/benchmarks.md). */
const ROWS_PER_STATEMENT = 32;

/** The record as stored: rowToRecord's field order, the given record's values. */
function storedRecord(record: NewActivityRecord, rid: string, when: string): ActivityRecord {
  const stored: ActivityRecord = {
    RID: rid,
    Who: record.Who,
    Action: record.Action,
    What: record.What,
    When: when,
    Where: record.Where,
    ObjectType: record.ObjectType,
    DataSource: record.DataSource,
  };
  if (record.MonitoringPlan !== undefined) stored.MonitoringPlan = record.MonitoringPlan;
  if (record.Item !== undefined) stored.Item = record.Item;
  if (record.Workstation !== undefined) stored.Workstation = record.Workstation;
  if (record.DetailList !== undefined) stored.DetailList = record.DetailList;
  return stored;
}

export function rowToRecord(row: RecordRow): ActivityRecord {
  const record: ActivityRecord = {
    RID: row.rid,
    Who: row.who,
    Action: row.action,
    What: row.what,
    When: formatWhen(new Date(row.when_ms)),
    Where: row.location,
    ObjectType: row.object_type,
    DataSource: row.data_source,
  };
  if (row.plan_name !== null) {
    record.MonitoringPlan = row.plan_id === null ? { Name: row.plan_name } : { Name: row.plan_name, ID: row.plan_id };
  }
  if (row.item_name !== null) record.Item = { Name: row.item_name };
  if (row.workstation !== null) record.Workstation = row.workstation;
  if (row.details !== null) record.DetailList = JSON.parse(row.details) as ActivityDetail[];
  return record;
}

export class AuditStore {
  private readonly rids = new RidGenerator();
  private insertOne: Database.Statement | undefined;
  private insertMany: Database.Statement | undefined;
  private chainFrom: Database.Statement | undefined;
  /**
   * The SQL that gives each inserted row its chain value from the row's values (`column1` …
   * `column13`) when SQLite computes it (the addon's `vigil_chain`, chain-addon.ts
   * `loadChainFunction`); null when the batch's chain values are hashed here (`chainValues`) and
   * bound.
   */
  private readonly chainExpression: string | null;
  /** A slice's 13 bound values a row. */
  private readonly manyArgs = new Array<unknown>(CANONICAL * ROWS_PER_STATEMENT);
  /** A batch's bound values, 14 a row (the chain's column left empty). */
  private batchValues: unknown[] = [];
  /** The last `When` given and its time: a burst shares its second. */
  private lastInputWhen = '';
  private lastWhenMs = Number.NaN;
  private deleteOld: Database.Statement | undefined;
  private readonly checkpointer: WalCheckpointer | null;
  private chainHead: Database.Statement | undefined;
  private readonly synchronous: 'FULL' | 'NORMAL';

  private constructor(
    readonly file: string,
    private readonly connection: Database.Database,
    options: AuditStoreOptions,
  ) {
    this.chainExpression =
      !options.chainInJavaScript && loadChainFunction(connection) ? `vigil_chain(${VALUES_COLUMNS})` : null;
    this.synchronous = options.synchronous ?? 'FULL';
    this.checkpointer = options.backgroundCheckpoints ? new WalCheckpointer(file) : null;
  }

  /**
   * The open connection. A store does not follow its path: a connection that must (the writer
   * thread's) keeps the store in a ReopeningHandle (reopening-handle.ts).
   */
  get db(): Database.Database {
    return this.connection;
  }

  /**
   * The INSERT of `rows` rows. When SQLite chains (`chainExpression`), each row's chain value is
   * computed from its 13 bound values, read from a VALUES list in row order, and the batch first
   * gives the value it continues from (`vigil_chain_from`). Otherwise a row's INSERT binds its 14
   * values, and a slice's binds the 13 canonical values of each row and its rows' chain values as
   * one blob, `@chains`, which SQLite cuts into each row's 32 bytes (substr of a blob is a blob of
   * those bytes): one bound value a slice instead of a Buffer object and a bind per row.
   */
  private static prepareInsert(
    db: Database.Database,
    rows: number,
    chainExpression: string | null,
  ): Database.Statement {
    const columns = `rid, when_ms, who, action, what, location, object_type, data_source,
                     plan_name, plan_id, item_name, workstation, details, chain`;
    // Positional parameters: binding is measurably cheaper than named ones at 100k rows/s.
    const values = new Array<string>(CANONICAL).fill('?').join(', ');
    if (chainExpression !== null) {
      return db.prepare(`
        INSERT INTO activity_records (${columns})
        SELECT ${VALUES_COLUMNS}, ${chainExpression}
        FROM (VALUES ${new Array<string>(rows).fill(`(${values})`).join(', ')})`);
    }
    const chain = (row: number): string =>
      rows === 1 ? '?' : `substr(@chains, ${row * CHAIN_BYTES + 1}, ${CHAIN_BYTES})`;
    return db.prepare(`
      INSERT INTO activity_records (${columns})
      VALUES ${Array.from({ length: rows }, (_, row) => `(${values}, ${chain(row)})`).join(', ')}`);
  }

  private static connect(options: AuditStoreOptions, mustExist: boolean): Database.Database {
    if (!mustExist) fs.mkdirSync(path.dirname(options.file), { recursive: true, mode: 0o700 });
    const db = new Database(options.file, { fileMustExist: mustExist });
    try {
      db.pragma('journal_mode = WAL');
      db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
      db.pragma('foreign_keys = ON');
      db.pragma('busy_timeout = 5000');
      db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT}`);
      if (options.backgroundCheckpoints) db.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
      migrate(db, options.file);
    } catch (error) {
      db.close();
      throw error;
    }
    return db;
  }

  /** Opens an existing store (a second connection, e.g. a writer thread's); never creates one. */
  static openExisting(options: AuditStoreOptions): AuditStore {
    return new AuditStore(options.file, AuditStore.connect(options, true), options);
  }

  /** Opens or creates the store; a file that cannot be opened is a DatabaseOpenError, left untouched. */
  static open(options: AuditStoreOptions): AuditStore {
    let connection: Database.Database;
    try {
      connection = AuditStore.connect(options, false);
    } catch (error) {
      throw new DatabaseOpenError(
        options.file,
        'the audit database',
        openProblem(error),
        'restore it from a backup, or move it away to start with an empty audit database.',
      );
    }
    return new AuditStore(options.file, connection, options);
  }

  /**
   * Stores the records in one transaction and returns them with their RIDs. `When` must parse
   * as a date (callers validate input first); it is kept as UTC milliseconds.
   */
  insertBatch(records: readonly NewActivityRecord[]): ActivityRecord[] {
    return this.transaction(() => this.insertInTransaction(records));
  }

  /**
   * `insertBatch` for a caller that holds the transaction (the pipeline's batch): no nested
   * SAVEPOINT. A savepoint makes SQLite copy the pages it changes to a temporary sub-journal
   * file in case of a partial rollback — half a disk write per record, measured with strace.
   * If this throws, the caller must roll back the whole transaction.
   */
  insertInTransaction(records: readonly NewActivityRecord[]): ActivityRecord[] {
    if (!this.db.inTransaction) throw new Error('insertInTransaction needs an open transaction');
    const stored = new Array<ActivityRecord>(records.length);
    this.insertRows(records, stored);
    return stored;
  }

  /**
   * The hot path of ingest (docs/benchmarks.md): a burst's shared `When` is parsed and
   * formatted once, each stored record is built as a literal (spreading the new record into a
   * copy cost V8 2–3 µs per record), and rows go in INSERTs of ROWS_PER_STATEMENT rows (one
   * call into SQLite per slice instead of per row). The batch's values are gathered first, then
   * inserted; SQLite computes each row's chain value from the values it holds (the addon's
   * `vigil_chain`: no packing or second copy of the values in JavaScript, docs/benchmarks.md).
   */
  private insertRows(records: readonly NewActivityRecord[], stored: ActivityRecord[]): void {
    const count = records.length;
    if (this.batchValues.length < count * COLUMNS) this.batchValues = new Array<unknown>(count * COLUMNS);
    const values = this.batchValues;
    try {
      for (let i = 0, at = 0; i < count; i++, at += COLUMNS) {
        const record = records[i]!;
        if (record.When !== this.lastInputWhen) {
          const whenMs = Date.parse(record.When);
          if (Number.isNaN(whenMs)) throw new Error(`record time "${record.When}" is not a date`);
          this.lastWhenMs = whenMs;
          this.lastInputWhen = record.When;
        }
        const whenMs = this.lastWhenMs;
        const rid = this.rids.next(whenMs);
        const plan = record.MonitoringPlan;
        const details = record.DetailList;
        values[at] = rid;
        values[at + 1] = whenMs;
        // Bound as SQLite stores them (wellFormedText), so that what is chained is what is stored;
        // JSON.stringify escapes half a surrogate pair itself.
        values[at + 2] = wellFormedText(record.Who);
        values[at + 3] = wellFormedText(record.Action);
        values[at + 4] = wellFormedText(record.What);
        values[at + 5] = wellFormedText(record.Where);
        values[at + 6] = wellFormedText(record.ObjectType);
        values[at + 7] = wellFormedText(record.DataSource);
        values[at + 8] = wellFormedOrNull(plan?.Name);
        values[at + 9] = wellFormedOrNull(plan?.ID);
        values[at + 10] = wellFormedOrNull(record.Item?.Name);
        values[at + 11] = wellFormedOrNull(record.Workstation);
        values[at + 12] = details ? JSON.stringify(details) : null;
      }
      // The records as stored, for the caller.
      let whenMs = Number.NaN;
      let when = '';
      for (let i = 0, at = 0; i < count; i++, at += COLUMNS) {
        if (values[at + 1] !== whenMs) {
          whenMs = values[at + 1] as number;
          when = formatWhen(new Date(whenMs));
        }
        stored[i] = storedRecord(records[i]!, values[at] as string, when);
      }
      // The chain continues from the newest stored record, read inside this transaction: the
      // audit API's writer thread inserts through its own connection into the same chain, and
      // the transaction is IMMEDIATE (see `transaction`), so no other writer moves the head.
      this.insertValues(values, count, this.head());
    } finally {
      values.fill(null, 0, count * COLUMNS); // the batch's strings are not kept until the next one
    }
  }

  /**
   * Binds and runs the INSERTs of a batch's values, chained from `previous`: by SQLite as it
   * inserts, or with the chain values hashed before and bound with each slice.
   */
  private insertValues(values: unknown[], count: number, previous: Buffer): void {
    const chainExpression = this.chainExpression;
    let chains: Buffer | null = null;
    if (chainExpression !== null)
      (this.chainFrom ??= this.connection.prepare('SELECT vigil_chain_from(?)')).get(previous);
    else chains = this.chainValues(previous, values, count, COLUMNS);
    const many = (this.insertMany ??= AuditStore.prepareInsert(this.connection, ROWS_PER_STATEMENT, chainExpression));
    const args = this.manyArgs;
    let row = 0;
    for (; row + ROWS_PER_STATEMENT <= count; row += ROWS_PER_STATEMENT) {
      for (let i = 0, from = row * COLUMNS; i < args.length; i += CANONICAL, from += COLUMNS) {
        for (let column = 0; column < CANONICAL; column++) args[i + column] = values[from + column];
      }
      if (chains === null) many.run(args);
      else many.run(args, { chains: chains.subarray(row * CHAIN_BYTES, (row + ROWS_PER_STATEMENT) * CHAIN_BYTES) });
    }
    if (row === count) return;
    const one = (this.insertOne ??= AuditStore.prepareInsert(this.connection, 1, chainExpression));
    for (; row < count; row++) {
      const rowValues = values.slice(row * COLUMNS, (row + 1) * COLUMNS - (chains ? 0 : 1));
      if (chains) rowValues[CANONICAL] = chains.subarray(row * CHAIN_BYTES, (row + 1) * CHAIN_BYTES);
      one.run(rowValues);
    }
  }

  /**
   * The chain values of a batch when SQLite does not compute them (record-chain.ts
   * `chainRowsJs`). A method of its own so that the benchmarks can time the same store with
   * other chain values (bench/chain-variant.ts).
   */
  private chainValues(previous: Buffer, values: unknown[], rows: number, stride: number): Buffer {
    return chainRowsJs(previous, values, rows, stride);
  }

  /** The chain value of the newest stored record (GENESIS for an empty store). */
  head(): Buffer {
    this.chainHead ??= this.connection.prepare('SELECT chain FROM activity_records ORDER BY seq DESC LIMIT 1');
    const row = this.chainHead.get() as { chain: Buffer | null } | undefined;
    return row?.chain ?? GENESIS;
  }

  /**
   * Runs `work` in one transaction (nested calls become savepoints): the pipeline commits a
   * batch of records together with the state derived from them, or none of it. IMMEDIATE: the
   * write lock is taken at BEGIN, so reading the chain head and inserting after it cannot
   * interleave with the other connection's writes (a deferred transaction that read first
   * would fail with SQLITE_BUSY_SNAPSHOT instead of waiting).
   */
  transaction<T>(work: () => T): T {
    return this.commitImmediate(work, false);
  }

  private commitImmediate<T>(work: () => T, derived: boolean): T {
    const outermost = !this.db.inTransaction;
    const result = this.db.transaction(work).immediate();
    if (outermost) this.checkpointer?.committed(derived);
    return result;
  }

  /**
   * `transaction` for state derived from the records that is counted again after a crash (the
   * activity rollup): its COMMIT does not fsync the WAL on this thread, where a busy disk held
   * the event loop for 100–400 ms per commit (test/integration/audit-search-bounds.test.ts).
   * Under WAL a commit with `synchronous=NORMAL` stays atomic; a power loss may undo the newest
   * such commits, never part of one, and the next synced commit covers them. They leave the
   * checkpoint cadence to the other commits (wal-checkpointer.ts).
   */
  derivedTransaction<T>(work: () => T): T {
    if (this.db.inTransaction || this.synchronous === 'NORMAL') return this.commitImmediate(work, true);
    this.db.pragma('synchronous = NORMAL');
    try {
      return this.commitImmediate(work, true);
    } finally {
      this.db.pragma(`synchronous = ${this.synchronous}`);
    }
  }

  /**
   * Deletes up to `limit` of the oldest records (in `seq` order) whose time is before
   * `cutoffMs`, and returns how many went. Retention calls it in small batches so no single
   * transaction holds the writer long. Only a whole prefix of the chain goes (docs/integrity.md):
   * the deletion stops at the first record still within retention, and `recordDeletion` is
   * called in the same transaction with the first kept record's `seq` and the chain value of
   * its deleted predecessor, to be signed as a retention checkpoint. The record with the
   * highest `seq` is always kept: SQLite hands out max(seq)+1 to the next insert, so deleting
   * the newest row would let a `seq` be used twice, and a continuation mark saved after it
   * would silently skip the records that reuse it.
   */
  deleteOlderThan(
    cutoffMs: number,
    limit: number,
    recordDeletion?: (firstKeptSeq: number, predecessorChain: Buffer) => void,
  ): number {
    this.deleteOld ??= this.db.prepare(
      `SELECT seq, when_ms, chain FROM activity_records
        WHERE seq < (SELECT max(seq) FROM activity_records) ORDER BY seq LIMIT ?`,
    );
    return this.transaction(() => {
      const oldest = this.deleteOld!.all(limit) as Array<{ seq: number; when_ms: number; chain: Buffer }>;
      let count = 0;
      while (count < oldest.length && oldest[count]!.when_ms < cutoffMs) count++;
      if (count === 0) return 0;
      const last = oldest[count - 1]!;
      this.db.prepare('DELETE FROM activity_records WHERE seq <= ?').run(last.seq);
      const firstKept = this.db.prepare('SELECT min(seq) AS seq FROM activity_records').get() as { seq: number };
      recordDeletion?.(firstKept.seq, last.chain);
      return count;
    });
  }

  count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM activity_records').get() as { n: number }).n;
  }

  close(): void {
    void this.checkpointer?.stop();
    if (this.connection.open) this.connection.close();
  }
}
