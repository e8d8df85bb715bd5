/**
 * The fleet database as the audit API's record store (agent/store/audit-records.ts): every
 * member's records, with the same search, enumeration, write and mark semantics as the agent's
 * own SQLite store (docs/audit-api.md "Fleet").
 *
 * - Positions are `vigil_records.seq`, fleet-wide. Members insert under one advisory lock, so seq
 *   order is commit order: a page that ends at the newest record never skips one committed later.
 * - A page is one statement, bounded by `statement_timeout`, in a read-only transaction; the
 *   highest seq is read in the same snapshot, so "everything up to here was considered" holds.
 * - Marks are signed with a key kept in `vigil_fleet_keys`: the first member to need it creates
 *   it, every member reads the same one, so a mark issued by one member continues on another.
 * - Writes go to the agent's own database first and are forwarded from there like every record
 *   (record-forwarder.ts); the write answers once the fleet database has them, so a search on any
 *   member sees them. With the fleet database unreachable, nothing is written.
 *
 * Any failure to reach the database is an AuditDatabaseError: the API answers 500 ServerError.
 */
import crypto from 'node:crypto';
import type pg from 'pg';
import type { ActivityRecord, NewActivityRecord } from '../../shared/activity-record.js';
import {
  AuditDatabaseError,
  PageCancelled,
  type AuditRecords,
  type PageResult,
  type SearchQuery,
} from '../store/audit-records.js';
import type { RawRecordRow } from '../store/raw-record.js';
import type { SqliteAuditRecords } from '../store/sqlite-audit-records.js';
import type { TurnQueue } from '../util/turn-queue.js';
import { compilePgSearch } from './pg-audit-query.js';
import { SeqDays } from './seq-days.js';
import { cutSlices, recordsJson, storedBytesSql, toRawRow, RECORD_COLUMNS } from './pg-audit-rows.js';

/** What the store needs of the agent's fleet membership (fleet-membership.ts). */
export interface FleetAccess {
  readonly pool: pg.Pool;
  state(): 'connected' | 'unreachable';
  waitForwarded(seq: number, timeoutMs: number): Promise<void>;
  nudge(): void;
}

export interface PgAuditRecordsOptions {
  fleet: FleetAccess;
  /** The agent's own store: writes land there first. */
  local: Pick<SqliteAuditRecords, 'write' | 'maxSeq'>;
  turns: TurnQueue;
  /** The longest a page's statement may run (statement_timeout). */
  statementTimeoutMs?: number;
  /** How long a write waits for its records to reach the fleet database. */
  writeTimeoutMs?: number;
}

const MARK_KEY_NAME = 'audit-mark';
const MARK_KEY_BYTES = 32;
const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
const DEFAULT_WRITE_TIMEOUT_MS = 30_000;
/** The ICU root collation (PostgreSQL built with ICU): lower() by Unicode's full case mapping. */
const ICU_ROOT = 'und-x-icu';

/** SQLSTATE classes that mean "the database cannot serve now", not "this statement is wrong". */
const UNAVAILABLE = /^(08|28|3D|53|54|55|57|58|XX)|^(40001|40P01|42P01|25006)$/;

/** The failure as an AuditDatabaseError when it is the database's unavailability; else as it is. */
export function unavailable(error: unknown): unknown {
  if (error instanceof AuditDatabaseError) return error;
  const code = (error as { code?: unknown })?.code;
  const sqlstate = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : null;
  if (sqlstate !== null && !UNAVAILABLE.test(sqlstate)) return error;
  const reason = sqlstate ?? (typeof code === 'string' ? code : (error as Error)?.message) ?? 'unknown failure';
  return new AuditDatabaseError(`the fleet database cannot be used (${reason})`);
}

export class PgAuditRecords implements AuditRecords {
  private markKeyValue: Buffer | null = null;
  private readonly days = new SeqDays();
  private collation: Promise<string | null> | null = null;

  constructor(private readonly options: PgAuditRecordsOptions) {}

  get turns(): TurnQueue {
    return this.options.turns;
  }

  private get pool(): pg.Pool {
    return this.options.fleet.pool;
  }

  private async query<R extends pg.QueryResultRow>(
    text: string,
    values: unknown[],
    rowMode?: 'array',
  ): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>({ text, values, ...(rowMode ? { rowMode } : {}) });
    } catch (error) {
      throw unavailable(error);
    }
  }

  /** The collation for Unicode lower-casing: ICU's root when the server has it (asked once). */
  private unicodeCollation(): Promise<string | null> {
    this.collation ??= this.query<{ name: string }>('SELECT collname AS name FROM pg_collation WHERE collname = $1', [
      ICU_ROOT,
    ]).then(
      (result) => (result.rows.length > 0 ? ICU_ROOT : null),
      (error: unknown) => {
        this.collation = null; // ask again next time
        throw error;
      },
    );
    return this.collation;
  }

  async findPage(query: SearchQuery, after: number, count: number, cancelled: () => boolean): Promise<PageResult> {
    const search = compilePgSearch(query.conditions, {
      reference: query.reference,
      groupMembers: query.groupMembers,
      unicodeCollation: await this.unicodeCollation(),
    });
    const n = search.params.length;
    // One statement, one snapshot: the page and the highest seq it was chosen among.
    // Each seq's day comes along: the page's rows are then read from their day partitions only.
    const sql = `SELECT (SELECT max(seq) FROM vigil_records) AS top,
                        coalesce(array_agg(p.seq ORDER BY p.seq), '{}') AS seqs,
                        coalesce(array_agg(p.day::text ORDER BY p.seq), '{}') AS days
                   FROM (SELECT a.seq, a.day FROM vigil_records AS a
                          WHERE a.seq > $${n + 1} AND (${search.where})
                          ORDER BY a.seq LIMIT $${n + 2}) AS p`;
    const client = await this.pool.connect().catch((error: unknown) => {
      throw unavailable(error);
    });
    // A server going away while the connection is checked out is reported on it as an event:
    // the query in progress fails with it too, so the event itself needs no handling.
    const ignore = (): void => undefined;
    client.on('error', ignore);
    let failed = false;
    try {
      // One round trip for both (a simple query may hold several statements).
      const timeout = Math.max(1, Math.floor(this.statementTimeoutMs));
      await client.query(`BEGIN READ ONLY; SET LOCAL statement_timeout = ${timeout}`);
      if (cancelled()) throw new PageCancelled();
      const result = await client.query<{ top: string | null; seqs: string[]; days: string[] }>(sql, [
        ...search.params,
        after,
        count,
      ]);
      await client.query('COMMIT');
      const row = result.rows[0]!;
      const seqs = row.seqs.map(Number);
      this.days.remember(seqs, row.days);
      const through = seqs.length >= count ? seqs[seqs.length - 1]! : Math.max(after, Number(row.top ?? 0));
      return { seqs, through };
    } catch (error) {
      failed = true;
      throw error instanceof PageCancelled ? error : unavailable(error);
    } finally {
      // A connection whose transaction failed is closed, not handed to the next query.
      client.off('error', ignore);
      client.release(failed);
    }
  }

  private get statementTimeoutMs(): number {
    return this.options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  }

  /** The rows for `seqs` (ascending). */
  async fetchRaw(seqs: readonly number[]): Promise<RawRecordRow[]> {
    if (seqs.length === 0) return [];
    const rows = (await this.bySeqs(RECORD_COLUMNS, seqs)).rows.map(toRawRow);
    if (rows.length === seqs.length) return rows;
    const wanted = new Set(seqs);
    return rows.filter((row) => wanted.has(row[0]));
  }

  /**
   * `columns` (seq first) of the rows for `seqs` (ascending), in seq order, maybe with rows
   * between them. The bounds come first: every day partition has its own seq index, and with a
   * list alone PostgreSQL probes each partition's index once per seq (or reads it whole); the
   * range lets a partition outside it answer at once. Dense runs are read as the range alone.
   */
  private bySeqs(columns: string, seqs: readonly number[]): Promise<pg.QueryResult<unknown[]>> {
    const first = seqs[0]!;
    const last = seqs[seqs.length - 1]!;
    const range = `SELECT ${columns} FROM vigil_records WHERE seq >= $1 AND seq <= $2`;
    if (last - first + 1 <= 2 * seqs.length)
      return this.query<unknown[]>(`${range} ORDER BY seq`, [first, last], 'array');
    const byDay = this.days.group(seqs);
    if (byDay === null) {
      return this.query<unknown[]>(`${range} AND seq = ANY($3::bigint[]) ORDER BY seq`, [first, last, seqs], 'array');
    }
    // One arm per day: each reads one partition (pruned at planning), probing its index only
    // for that day's seqs.
    const values: unknown[] = [];
    const arms = [...byDay].map(([day, daySeqs]) => {
      values.push(day, daySeqs);
      return `SELECT ${columns} FROM vigil_records WHERE day = $${values.length - 1}::date AND seq = ANY($${values.length}::bigint[])`;
    });
    return this.query<unknown[]>(`${arms.join(' UNION ALL ')} ORDER BY 1`, values, 'array');
  }

  async fetchJson(seqs: readonly number[]): Promise<Buffer> {
    return recordsJson(await this.fetchRaw(seqs));
  }

  async slices(seqs: readonly number[], maxRecords: number, maxBytes: number): Promise<number[][]> {
    if (seqs.length === 0) return [];
    const result = await this.bySeqs(`seq, ${storedBytesSql}`, seqs);
    const sizes = new Map(result.rows.map(([seq, bytes]) => [Number(seq), Number(bytes)]));
    return cutSlices(seqs, sizes, maxRecords, maxBytes);
  }

  async write(records: readonly NewActivityRecord[], committed: (stored: ActivityRecord[]) => void): Promise<void> {
    const { fleet, local } = this.options;
    // The forwarder learns of an outage only when it next sends a batch: ask the database now,
    // so that a write it cannot take is refused before anything is stored.
    const reachable =
      fleet.state() === 'connected' &&
      (await this.query('SELECT 1', []).then(
        () => true,
        () => false,
      ));
    if (!reachable) throw new AuditDatabaseError('the fleet database cannot be reached; nothing was written');
    await local.write(records, committed);
    // Forwarding is in seq order: once the newest local record is there, so are these.
    const newest = local.maxSeq();
    fleet.nudge();
    try {
      await fleet.waitForwarded(newest, this.options.writeTimeoutMs ?? DEFAULT_WRITE_TIMEOUT_MS);
    } catch (error) {
      throw new AuditDatabaseError(
        `the records were stored on this agent but have not reached the fleet database: ${(error as Error).message}`,
      );
    }
  }

  /** The fleet's mark key: created by the first member that needs it, then the same for all. */
  async markKey(): Promise<Buffer> {
    if (this.markKeyValue !== null) return this.markKeyValue;
    await this.query('INSERT INTO vigil_fleet_keys (name, key) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
      MARK_KEY_NAME,
      crypto.randomBytes(MARK_KEY_BYTES),
    ]);
    const result = await this.query<{ key: Buffer }>('SELECT key FROM vigil_fleet_keys WHERE name = $1', [
      MARK_KEY_NAME,
    ]);
    const key = result.rows[0]?.key;
    if (!key || key.length !== MARK_KEY_BYTES) throw new AuditDatabaseError('the fleet mark key is missing or damaged');
    this.markKeyValue = key;
    return key;
  }
}
