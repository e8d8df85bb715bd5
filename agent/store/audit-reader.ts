/**
 * The read side of the audit store: finds pages of a search and fetches their records, on its
 * own read-only connection (WAL readers never wait for the writer, and a short busy timeout
 * keeps a locked database from stalling the event loop).
 *
 * Paging is keyset paging on `seq`, the insertion order: a page is "the first `count` matching
 * records with seq > after". Records are never changed after insertion and seq only grows, so
 * pages never repeat or skip a record, even while records are being written.
 *
 * A page search runs in steps bounded in time (audit-page-walk.ts). The audit API reaches this
 * reader through the AuditRecords interface (sqlite-audit-records.ts); the console's newest-first
 * activity search uses it directly.
 *
 * Failures: a missing file, a damaged header, a lock — any SQLite failure — closes the connection
 * and surfaces as AuditDatabaseError; the next call opens the database again, so the API recovers
 * by itself once the file is back.
 */
import Database from 'better-sqlite3';
import { TurnQueue } from '../util/turn-queue.js';
import type { CompiledSearch } from './audit-query.js';
import { AuditDatabaseError, type PageResult } from './audit-records.js';
import { CANDIDATE_SLICE, PageWalk } from './audit-page-walk.js';
import { registerTextFunctions } from './text-match.js';
import { fileIdentity, ReopeningHandle, sameFile, type FileIdentity } from './reopening-handle.js';
import { SEARCH_TABLE } from './search-index-schema.js';
import { ftsString, matchExpression, narrowTerms } from './search-text.js';
import { recordsJson, slicesByBytes, type RawRecordRow } from './raw-record.js';
import { describeSqliteError } from './sqlite-error.js';

// Where these lived before the store behind the audit API became an interface (audit-records.ts).
export { AuditDatabaseError, PageCancelled, type PageResult } from './audit-records.js';
export type { RawRecordRow } from './raw-record.js';

export interface AuditReaderOptions {
  file: string;
  /** The substring index database kept by the indexer worker; optional. */
  searchFile?: string;
  /** How long a read waits for a lock before failing (blocks the thread: keep it short). */
  busyTimeoutMs?: number;
  /** Target duration of one synchronous step. */
  stepMs?: number;
  /**
   * The scheduler searches share with the page streams and request parsing (the agent passes
   * one for all); a reader of its own by default.
   */
  turns?: TurnQueue;
}

/** Index entries a When range's span is read from at most: 3–7 ms at 10,000,000 records (whenSpan). */
const WHEN_SPAN_PROBE = 20_000;

/** Trigrams of a value the index is asked for at most: its rarest (narrowMatch). */
const KEPT_TRIGRAMS = 3;
/** Postings read of each trigram to tell the rare from the common (narrowMatch). */
const DENSITY_SAMPLE = 256;

/** Columns of a raw record row, in the order of RawRecordRow. */
const RECORD_COLUMNS =
  'seq, rid, when_ms, who, action, what, location, object_type, data_source, plan_name, plan_id, item_name, workstation, details';

const DEFAULT_STEP_MS = 5;
const ATTACH_RETRY_MS = 2000;

const isSqliteFailure = (error: unknown): boolean =>
  (error as { code?: unknown })?.code !== undefined || error instanceof TypeError;

/** The reader's connection to the audit database (and the attached index). */
export interface Connection {
  db: Database.Database;
  statements: Map<string, Database.Statement>;
  search: { id: FileIdentity | null } | null;
  attachTriedAt: number;
}

export class AuditReader {
  private readonly handle: ReopeningHandle<Connection>;
  private closed = false;

  /** Where searches and page streams wait for their turn of the event loop (turn-queue.ts). */
  readonly turns: TurnQueue;

  constructor(private readonly options: AuditReaderOptions) {
    this.turns = options.turns ?? new TurnQueue();
    this.handle = new ReopeningHandle<Connection>({
      file: options.file,
      checkHeader: true,
      problem: (message) => new AuditDatabaseError(message),
      open: () => this.open(),
      close: (conn) => {
        if (conn.db.open) conn.db.close();
      },
    });
  }

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

  private open(): Connection {
    const db = new Database(this.options.file, {
      readonly: true,
      fileMustExist: true,
      timeout: this.options.busyTimeoutMs ?? 250,
    });
    try {
      registerTextFunctions(db);
      db.prepare('SELECT seq FROM activity_records LIMIT 0').all(); // fails now if the file is not ours
    } catch (error) {
      db.close();
      throw error;
    }
    return { db, statements: new Map(), search: null, attachTriedAt: 0 };
  }

  private connection(): Connection {
    const conn = this.handle.get();
    this.refreshSearch(conn);
    return conn;
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

  /**
   * The seqs that hold every record whose When lies in one of `ranges`, read from the when_ms
   * index, so that a page of a time window walks its own records rather than every record
   * before them (one hour of 10,000,000 records: docs/benchmarks.md, "Fleet audit API"). Null
   * when the search has no When range or a range holds more than WHEN_SPAN_PROBE records: the
   * index would then be read too long for one step, and such a window is most of the records
   * anyway. `low > high` when the ranges hold no record.
   */
  private whenSpan(conn: Connection, ranges: CompiledSearch['when']): { low: number; high: number } | null {
    if (ranges === null) return null;
    let low = Number.POSITIVE_INFINITY;
    let high = 0;
    for (const range of ranges) {
      const bounds = [
        ...(range.from === null ? [] : ['when_ms >= @from']),
        ...(range.to === null ? [] : ['when_ms < @to']),
      ];
      if (bounds.length === 0) return null;
      const span = this.statement(
        conn,
        `SELECT count(*) AS n, min(seq) AS low, max(seq) AS high
           FROM (SELECT seq FROM activity_records WHERE ${bounds.join(' AND ')} LIMIT ${WHEN_SPAN_PROBE + 1})`,
      ).get({
        ...(range.from === null ? {} : { from: range.from }),
        ...(range.to === null ? {} : { to: range.to }),
      }) as {
        n: number;
        low: number | null;
        high: number | null;
      };
      if (span.n > WHEN_SPAN_PROBE) return null;
      if (span.low !== null && span.high !== null) {
        low = Math.min(low, span.low);
        high = Math.max(high, span.high);
      }
    }
    return { low, high };
  }

  /**
   * The index query of `search` cut to the KEPT_TRIGRAMS rarest trigrams of its values. FTS5
   * reads the postings of every trigram it is given, and those of an account's common ones
   * ("cor", "use": nearly every record) took 75 of the 79 ms of one account's first page at
   * 10,000,000 records, while the value's rare ones find nearly the same candidates alone. Any
   * subset of the trigrams still finds every record the search accepts; the exact test decides.
   * A trigram is the rarer the farther its DENSITY_SAMPLE-th posting lies (a few µs to read).
   */
  private narrowMatch(conn: Connection, search: CompiledSearch): string | null {
    if (search.matchTerms === null || !conn.search) return search.match;
    try {
      const sample = this.statement(
        conn,
        `SELECT rowid FROM search.${SEARCH_TABLE} WHERE ${SEARCH_TABLE} MATCH ?
          ORDER BY rowid LIMIT 1 OFFSET ${DENSITY_SAMPLE - 1}`,
      ).pluck();
      const reach = new Map<string, number>();
      const rarity = (trigram: string): number => {
        let far = reach.get(trigram);
        if (far === undefined) {
          far = (sample.get(ftsString(trigram)) as number | undefined) ?? Number.POSITIVE_INFINITY;
          reach.set(trigram, far);
        }
        return far;
      };
      return matchExpression(narrowTerms(search.matchTerms, rarity, KEPT_TRIGRAMS));
    } catch {
      return search.match; // the index's own query then fails too, and the walk scans
    }
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

  /**
   * The next page of `search` after `after`: at most `count` records. `cancelled` is checked
   * between steps (the client went away). Records the index covers are found through its
   * candidates, the newer ones by scanning.
   */
  async findPage(
    search: CompiledSearch,
    after: number,
    count: number,
    cancelled: () => boolean = () => false,
  ): Promise<PageResult> {
    const { max, indexUpto, match } = this.use((conn) => {
      const top = (this.statement(conn, 'SELECT max(seq) FROM activity_records').pluck().get() as number) ?? 0;
      const upto = search.match ? Math.min(top, this.indexedUpto(conn)) : 0;
      return { max: top, indexUpto: upto, match: this.narrowMatch(conn, search) };
    });
    const walk = new PageWalk(this, { ...search, match }, count, 1, after + 1, cancelled);
    await walk.begin();
    // Outside the When span no record matches: the walk covers the span only, and a page that
    // does not fill has still looked at every record up to the top. (Read after the top: a
    // record it sees beyond the top is left to a later page.)
    const span = this.runStep((conn) => this.whenSpan(conn, search.when));
    const last = span === null ? max : Math.min(max, span.high);
    if (span !== null) walk.next = Math.max(walk.next, span.low);
    if (search.match !== null) await walk.verifyIndexed(Math.min(indexUpto, last));
    await walk.scan(last);
    const through = walk.seqs.length >= count ? walk.next - 1 : max;
    return { seqs: walk.seqs, through: Math.max(through, after) };
  }

  /**
   * The newest-first page of `search` among records with seq < `before` (the console's activity
   * search): at most `count` records, `seqs` descending. `through` is the lowest seq considered,
   * so the next (older) page asks for seq < through; 0 or less means the store is exhausted.
   * The same steps as findPage, the other way: records newer than the index reaches are scanned,
   * then the index's candidates are verified, newest first.
   */
  async findPageBefore(
    search: CompiledSearch,
    before: number,
    count: number,
    cancelled: () => boolean = () => false,
  ): Promise<PageResult> {
    const { top, bottom, indexUpto, match } = this.use((conn) => {
      const row = this.statement(conn, 'SELECT max(seq) AS top, min(seq) AS bottom FROM activity_records').get() as {
        top: number | null;
        bottom: number | null;
      };
      return {
        top: row.top ?? 0,
        bottom: row.bottom ?? 1,
        indexUpto: search.match ? Math.min(row.top ?? 0, this.indexedUpto(conn)) : 0,
        match: this.narrowMatch(conn, search),
      };
    });
    const walk = new PageWalk(this, { ...search, match }, count, -1, Math.min(before - 1, top), cancelled);
    await walk.begin();
    // Below the When span no record matches: a walk that passes its low end has found them all.
    const span = this.runStep((conn) => this.whenSpan(conn, search.when));
    const floor = span === null ? bottom : Math.max(bottom, span.low);
    if (span !== null) walk.next = Math.min(walk.next, span.high);
    await walk.scan(Math.max(floor, indexUpto + 1));
    if (search.match !== null) await walk.verifyIndexed(floor);
    await walk.scan(floor);
    return { seqs: walk.seqs, through: walk.next < floor ? 0 : walk.next + 1 };
  }

  /** One statement of a page walk, on a healthy connection. */
  runStep<T>(work: (conn: Connection, statement: (sql: string) => Database.Statement) => T): T {
    return this.use((conn) => work(conn, (sql) => this.statement(conn, sql)));
  }

  /** Index candidates in [low, high], in `direction`; null when the index is not usable now. */
  indexCandidates(conn: Connection, match: string, low: number, high: number, direction: 1 | -1): number[] | null {
    if (!conn.search) return null;
    try {
      const sql = `SELECT rowid FROM search.${SEARCH_TABLE} WHERE ${SEARCH_TABLE} MATCH ? AND rowid >= ? AND rowid <= ?
                   ORDER BY rowid ${direction > 0 ? 'ASC' : 'DESC'} LIMIT ${CANDIDATE_SLICE}`;
      return this.statement(conn, sql).pluck().all(match, low, high) as number[];
    } catch {
      this.detach(conn); // a damaged or vanished index: fall back to scanning
      return null;
    }
  }

  get stepMs(): number {
    return this.options.stepMs ?? DEFAULT_STEP_MS;
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
    this.handle.reset();
  }
}
