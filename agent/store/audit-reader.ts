/**
 * The read side of the audit store: finds pages of a search and fetches their records, on its
 * own read-only connection (WAL readers never wait for the writer, and a short busy timeout
 * keeps a locked database from stalling the event loop).
 *
 * Paging is keyset paging on `seq`, the insertion order: a page is "the first `count` matching
 * records with seq > after". Records are never changed after insertion and seq only grows, so
 * pages never repeat or skip a record, even while records are being written.
 *
 * Work is bounded per synchronous step (security.md §0.11): candidates come from the substring
 * index in slices, the rest is scanned in `seq` windows sized to a few milliseconds each, and the
 * loop yields to the event loop between steps.
 *
 * Failures: a missing file, a damaged header, a lock — any SQLite failure — closes the connection
 * and surfaces as AuditDatabaseError; the next call opens the database again, so the API recovers
 * by itself once the file is back.
 */
import Database from 'better-sqlite3';
import { sharedTurns } from '../util/turn-queue.js';
import { FOLD_FUNCTION, type CompiledSearch } from './audit-query.js';
import { fileIdentity, sameFile } from './search-indexer.js';
import { SEARCH_TABLE } from './search-index-schema.js';
import { databaseFileProblem } from './database-file.js';
import { recordsJson, slicesByBytes } from './raw-record.js';
import { describeSqliteError } from './sqlite-error.js';

/** The audit database cannot be used; `message` says why, without paths or SQL. */
export class AuditDatabaseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuditDatabaseError';
  }
}

export interface AuditReaderOptions {
  file: string;
  /** The substring index database kept by the indexer worker; optional. */
  searchFile?: string;
  /** How long a read waits for a lock before failing (blocks the thread: keep it short). */
  busyTimeoutMs?: number;
  /** Target duration of one synchronous step. */
  stepMs?: number;
}

export interface PageResult {
  /** `seq` of the records of the page, ascending. */
  seqs: number[];
  /** Every record with seq ≤ through has been considered: the next page starts after it. */
  through: number;
}

/** Columns of a raw record row, in the order of RawRecordRow. */
const RECORD_COLUMNS =
  'seq, rid, when_ms, who, action, what, location, object_type, data_source, plan_name, plan_id, item_name, workstation, details';

/**
 * A record row as an array (better-sqlite3's raw mode: about three times faster than objects for
 * whole pages). Positions: see RAW in raw-record.ts.
 */
export type RawRecordRow = [
  number,
  string,
  number,
  string,
  string,
  string,
  string,
  string,
  string,
  string | null,
  string | null,
  string | null,
  string | null,
  string | null,
];
/**
 * Index candidates verified per step, and the time a search works before it yields. Under 200
 * concurrent searches and a writer on two cores, 2000 candidates and 8 ms let one turn of the
 * loop reach 100+ ms (a step overshoots its time by up to one slice); these keep it well under.
 */
const CANDIDATE_SLICE = 500;
const DEFAULT_STEP_MS = 5;
const MIN_WINDOW = 1024;
const MAX_WINDOW = 1 << 20;
const FIRST_WINDOW = 16_384;

/**
 * The next scan window of one search: the `seq` range its last step covered, scaled to the
 * step time wanted. Kept per search (a window learnt by a cheap predicate, or by a step that
 * its LIMIT ended early, made another search's next step run for 100+ ms under load) and grown
 * at most twofold per step, so one fast step cannot make the next one long.
 */
function nextWindow(window: number, covered: number, tookMs: number, targetMs: number): number {
  const rate = Math.max(covered, 1) / Math.max(tookMs, 0.25);
  return Math.min(MAX_WINDOW, 2 * window, Math.max(MIN_WINDOW, Math.round(rate * targetMs)));
}
const ATTACH_RETRY_MS = 2000;

const isSqliteFailure = (error: unknown): boolean =>
  (error as { code?: unknown })?.code !== undefined || error instanceof TypeError;

interface Connection {
  db: Database.Database;
  id: ReturnType<typeof fileIdentity>;
  statements: Map<string, Database.Statement>;
  search: { id: ReturnType<typeof fileIdentity> } | null;
  attachTriedAt: number;
}

export class AuditReader {
  private conn: Connection | null = null;
  private closed = false;

  constructor(private readonly options: AuditReaderOptions) {}

  /** Runs `work` on a healthy connection; any database failure closes it and becomes AuditDatabaseError. */
  private use<T>(work: (conn: Connection) => T): T {
    if (this.closed) throw new AuditDatabaseError('the agent is stopping');
    try {
      return work(this.connection());
    } catch (error) {
      if (error instanceof AuditDatabaseError) throw error;
      if (!isSqliteFailure(error)) throw error;
      this.close();
      throw new AuditDatabaseError(describeSqliteError(error));
    }
  }

  private connection(): Connection {
    const problem = databaseFileProblem(this.options.file);
    const current = fileIdentity(this.options.file);
    if (problem !== null || current === null) {
      this.close();
      throw new AuditDatabaseError(problem ?? 'the audit database file is missing');
    }
    if (this.conn && !sameFile(current, this.conn.id)) this.close();
    if (!this.conn) {
      const db = new Database(this.options.file, {
        readonly: true,
        fileMustExist: true,
        timeout: this.options.busyTimeoutMs ?? 250,
      });
      try {
        db.function(FOLD_FUNCTION, { deterministic: true }, (value: unknown) =>
          typeof value === 'string' ? value.toLowerCase() : value,
        );
        db.prepare('SELECT seq FROM activity_records LIMIT 0').all(); // fails now if the file is not ours
      } catch (error) {
        db.close();
        throw error;
      }
      this.conn = { db, id: current, statements: new Map(), search: null, attachTriedAt: 0 };
    }
    this.refreshSearch(this.conn);
    return this.conn;
  }

  /** Attaches the index when it exists, re-attaches when the indexer replaced the file. */
  private refreshSearch(conn: Connection): void {
    const file = this.options.searchFile;
    if (!file) return;
    const id = fileIdentity(file);
    if (conn.search && sameFile(id, conn.search.id)) return;
    if (conn.search) this.detach(conn);
    if (id === null || Date.now() - conn.attachTriedAt < ATTACH_RETRY_MS) return;
    conn.attachTriedAt = Date.now();
    try {
      conn.db.prepare('ATTACH DATABASE ? AS search').run(file);
      conn.search = { id };
    } catch {
      conn.search = null; // not there yet or unreadable: searches scan instead
    }
  }

  private detach(conn: Connection): void {
    for (const [sql] of conn.statements) if (sql.includes('search.')) conn.statements.delete(sql);
    try {
      conn.db.exec('DETACH DATABASE search');
    } catch {
      // already gone
    }
    conn.search = null;
    conn.attachTriedAt = 0;
  }

  private statement(conn: Connection, sql: string): Database.Statement {
    let statement = conn.statements.get(sql);
    if (!statement) {
      statement = conn.db.prepare(sql);
      if (conn.statements.size >= 256) conn.statements.delete(conn.statements.keys().next().value!);
      conn.statements.set(sql, statement);
    }
    return statement;
  }

  /** Highest `seq` in the store (0 when empty). */
  maxSeq(): number {
    return this.use(
      (conn) => (this.statement(conn, 'SELECT max(seq) FROM activity_records').pluck().get() as number) ?? 0,
    );
  }

  /** How far the substring index reaches, or 0 when it is not usable. */
  private indexedUpto(conn: Connection): number {
    if (!conn.search) return 0;
    try {
      const upto = this.statement(conn, 'SELECT indexed_upto FROM search.index_state WHERE id = 1').pluck().get();
      return typeof upto === 'number' ? upto : 0;
    } catch {
      this.detach(conn);
      return 0;
    }
  }

  private candidates(conn: Connection, match: string, after: number, upto: number): number[] | null {
    try {
      const sql = `SELECT rowid FROM search.${SEARCH_TABLE} WHERE ${SEARCH_TABLE} MATCH ? AND rowid > ? AND rowid <= ?
                   ORDER BY rowid LIMIT ${CANDIDATE_SLICE}`;
      return this.statement(conn, sql).pluck().all(match, after, upto) as number[];
    } catch {
      this.detach(conn); // a damaged or vanished index: fall back to scanning
      return null;
    }
  }

  /**
   * The next page of `search` after `after`: at most `count` records. `cancelled` is checked
   * between steps (the client went away).
   */
  async findPage(
    search: CompiledSearch,
    after: number,
    count: number,
    cancelled: () => boolean = () => false,
  ): Promise<PageResult> {
    const seqs: number[] = [];
    const { max, indexUpto } = this.use((conn) => {
      const top = (this.statement(conn, 'SELECT max(seq) FROM activity_records').pluck().get() as number) ?? 0;
      return { max: top, indexUpto: search.match ? Math.min(top, this.indexedUpto(conn)) : 0 };
    });
    let cursor = after;
    // Every step, the first included, waits for its turn among all concurrent searches (turn-queue.ts).
    await sharedTurns.turn();
    if (cancelled()) throw new PageCancelled();
    let sliceStart = performance.now();
    const pause = async (): Promise<void> => {
      if (performance.now() - sliceStart < (this.options.stepMs ?? DEFAULT_STEP_MS)) return;
      await sharedTurns.turn();
      if (cancelled()) throw new PageCancelled();
      sliceStart = performance.now();
    };

    // 1. Records the index covers: verify its candidates, a slice at a time.
    if (search.match !== null) {
      const verify = `SELECT a.seq FROM activity_records AS a
                       WHERE a.seq IN (SELECT value FROM json_each(?)) AND (${search.where})
                       ORDER BY a.seq LIMIT ?`;
      while (cursor < indexUpto && seqs.length < count) {
        const page = this.use((conn) => {
          const found = this.candidates(conn, search.match!, cursor, indexUpto);
          if (found === null) return null;
          if (found.length === 0) return { rows: [] as number[], next: indexUpto };
          const rows = this.statement(conn, verify)
            .pluck()
            .all(JSON.stringify(found), ...search.params, count - seqs.length) as number[];
          return { rows, next: found.length < CANDIDATE_SLICE ? indexUpto : found[found.length - 1]! };
        });
        if (page === null) break; // index unusable now: scan from the cursor
        seqs.push(...page.rows);
        cursor = seqs.length >= count ? seqs[seqs.length - 1]! : page.next;
        await pause();
      }
    }

    // 2. The rest: scan `seq` windows with the full predicate.
    const unfiltered = search.where === '1';
    const scan = `SELECT a.seq FROM activity_records AS a NOT INDEXED
                   WHERE a.seq > ? AND a.seq <= ? AND (${search.where})
                   ORDER BY a.seq LIMIT ?`;
    let window = FIRST_WINDOW;
    while (cursor < max && seqs.length < count) {
      const high = unfiltered ? max : Math.min(max, cursor + window);
      const from = cursor;
      const started = performance.now();
      const rows = this.use(
        (conn) =>
          this.statement(conn, scan)
            .pluck()
            .all(cursor, high, ...search.params, count - seqs.length) as number[],
      );
      seqs.push(...rows);
      cursor = seqs.length >= count ? seqs[seqs.length - 1]! : high;
      if (!unfiltered)
        window = nextWindow(window, cursor - from, performance.now() - started, this.options.stepMs ?? DEFAULT_STEP_MS);
      await pause();
    }
    return { seqs, through: Math.max(cursor, after) };
  }

  /**
   * The newest-first page of `search` among records with seq < `before` (the console's activity
   * search): at most `count` records, `seqs` descending. `through` is the lowest seq considered,
   * so the next (older) page asks for seq < through; 0 or less means the store is exhausted.
   * Same bounded steps as findPage: unindexed recent records are scanned in windows, then the
   * index's candidates are verified a slice at a time, newest first.
   */
  async findPageBefore(
    search: CompiledSearch,
    before: number,
    count: number,
    cancelled: () => boolean = () => false,
  ): Promise<PageResult> {
    const seqs: number[] = [];
    const { top, bottom, indexUpto } = this.use((conn) => {
      const row = this.statement(conn, 'SELECT max(seq) AS top, min(seq) AS bottom FROM activity_records').get() as {
        top: number | null;
        bottom: number | null;
      };
      return {
        top: row.top ?? 0,
        bottom: row.bottom ?? 1,
        indexUpto: search.match ? Math.min(row.top ?? 0, this.indexedUpto(conn)) : 0,
      };
    });
    // `cursor` is the highest seq not yet considered.
    let cursor = Math.min(before - 1, top);
    let sliceStart = performance.now();
    const pause = async (): Promise<void> => {
      if (performance.now() - sliceStart < (this.options.stepMs ?? DEFAULT_STEP_MS)) return;
      await sharedTurns.turn();
      if (cancelled()) throw new PageCancelled();
      sliceStart = performance.now();
    };
    const unfiltered = search.where === '1';
    const scan = `SELECT a.seq FROM activity_records AS a NOT INDEXED
                   WHERE a.seq >= ? AND a.seq <= ? AND (${search.where})
                   ORDER BY a.seq DESC LIMIT ?`;
    let window = FIRST_WINDOW;
    const scanDownTo = async (floor: number): Promise<void> => {
      while (cursor >= floor && seqs.length < count) {
        const low = unfiltered ? floor : Math.max(floor, cursor - window + 1);
        const from = cursor;
        const started = performance.now();
        const rows = this.use(
          (conn) =>
            this.statement(conn, scan)
              .pluck()
              .all(low, cursor, ...search.params, count - seqs.length) as number[],
        );
        seqs.push(...rows);
        cursor = seqs.length >= count ? seqs[seqs.length - 1]! - 1 : low - 1;
        if (!unfiltered)
          window = nextWindow(
            window,
            from - cursor,
            performance.now() - started,
            this.options.stepMs ?? DEFAULT_STEP_MS,
          );
        await pause();
      }
    };

    // 1. Records newer than the index reaches: scan them.
    await scanDownTo(Math.max(bottom, indexUpto + 1));
    // 2. Records the index covers: verify its candidates, newest first.
    if (search.match !== null && cursor >= bottom && seqs.length < count) {
      const verify = `SELECT a.seq FROM activity_records AS a
                       WHERE a.seq IN (SELECT value FROM json_each(?)) AND (${search.where})
                       ORDER BY a.seq DESC LIMIT ?`;
      const candidates = `SELECT rowid FROM search.${SEARCH_TABLE} WHERE ${SEARCH_TABLE} MATCH ? AND rowid <= ?
                           ORDER BY rowid DESC LIMIT ${CANDIDATE_SLICE}`;
      let indexUsable = true;
      while (cursor >= bottom && seqs.length < count) {
        const page = this.use((conn) => {
          let found: number[];
          try {
            found = this.statement(conn, candidates).pluck().all(search.match!, cursor) as number[];
          } catch {
            this.detach(conn);
            return null;
          }
          if (found.length === 0) return { rows: [] as number[], next: bottom - 1 };
          const rows = this.statement(conn, verify)
            .pluck()
            .all(JSON.stringify(found), ...search.params, count - seqs.length) as number[];
          return { rows, next: found.length < CANDIDATE_SLICE ? bottom - 1 : found[found.length - 1]! - 1 };
        });
        if (page === null) {
          indexUsable = false;
          break;
        }
        seqs.push(...page.rows);
        cursor = seqs.length >= count ? seqs[seqs.length - 1]! - 1 : page.next;
        await pause();
      }
      if (!indexUsable) await scanDownTo(bottom);
    } else {
      await scanDownTo(bottom);
    }
    return { seqs, through: cursor < bottom ? 0 : cursor + 1 };
  }

  /**
   * The stored rows for `seqs` (ascending, at most a few thousand per call), as arrays. Dense
   * runs (an enumeration, a common search) are read as one `seq` range; sparse ones by list.
   */
  fetchRaw(seqs: readonly number[]): RawRecordRow[] {
    if (seqs.length === 0) return [];
    const first = seqs[0]!;
    const last = seqs[seqs.length - 1]!;
    return this.use((conn) => {
      if (last - first + 1 <= 2 * seqs.length) {
        const rows = this.statement(
          conn,
          `SELECT ${RECORD_COLUMNS} FROM activity_records WHERE seq >= ? AND seq <= ? ORDER BY seq`,
        )
          .raw(true)
          .all(first, last) as RawRecordRow[];
        if (rows.length === last - first + 1 && rows.length === seqs.length) return rows;
        const wanted = new Set(seqs);
        return rows.filter((row) => wanted.has(row[0]));
      }
      return this.statement(
        conn,
        `SELECT ${RECORD_COLUMNS} FROM activity_records WHERE seq IN (SELECT value FROM json_each(?)) ORDER BY seq`,
      )
        .raw(true)
        .all(JSON.stringify(seqs)) as RawRecordRow[];
    });
  }

  /** The JSON of the records for `seqs` (ascending), comma-separated, as UTF-8 bytes. */
  fetchJson(seqs: readonly number[]): Buffer {
    if (seqs.length === 0) return Buffer.alloc(0);
    return this.use((conn) => recordsJson(seqs, (sql) => this.statement(conn, sql)));
  }

  /** `seqs` (ascending) in slices of at most `maxRecords` records and `maxBytes` stored bytes. */
  slices(seqs: readonly number[], maxRecords: number, maxBytes: number): number[][] {
    if (seqs.length === 0) return [];
    return this.use((conn) => slicesByBytes(seqs, maxRecords, maxBytes, (sql) => this.statement(conn, sql)));
  }

  /** Closes the connection; when `final`, later calls fail instead of opening it again. */
  close(final = false): void {
    if (final) this.closed = true;
    const conn = this.conn;
    this.conn = null;
    if (conn?.db.open) conn.db.close();
  }
}

/** The request that wanted the page is gone; nothing to answer. */
export class PageCancelled extends Error {
  constructor() {
    super('page search cancelled');
    this.name = 'PageCancelled';
  }
}
