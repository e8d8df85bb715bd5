/**
 * The fleet database as the audit API's record store (agent/store/audit-records.ts): every
 * member's records, with the same search, enumeration, write and mark semantics as the agent's
 * own SQLite store (docs/audit-api.md "Fleet").
 *
 * - Positions are `vigil_records.seq`, fleet-wide. Members insert under one advisory lock, so seq
 *   order is commit order: a page that ends at the newest record never skips one committed later.
 * - A page is one statement, bounded by `statement_timeout`, in a read-only transaction; the
 *   highest seq is read in the same snapshot, so "everything up to here was considered" holds.
 * - PostgreSQL joins the JSON of a slice of records (stored by their members, pg-audit-rows.ts)
 *   into one text value per slice: the agent passes it through instead of building an object
 *   per record.
 * - Every statement goes through the pool's one query path (fleet-connection.ts,
 *   whileReachable), which notices a server gone out of reach while a statement waits.
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
import { copyOutValue, inlineLiterals } from './copy-out.js';
import { queryWhileReachable, whileReachable } from './fleet-connection.js';
import type { FleetState } from './fleet-state.js';
import { compilePgSearch } from './pg-audit-query.js';
import { PageSeqs } from './page-seqs.js';
import { cutSlices, storedBytesSql, toRawRow, RECORD_COLUMNS, PAGE_JSON_SQL } from './pg-audit-rows.js';

/** What the store needs of the agent's fleet membership (fleet-membership.ts). */
export interface FleetAccess {
  readonly pool: pg.Pool;
  state(): FleetState;
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

interface Statement {
  text: string;
  name?: string;
  rowMode?: 'array';
}

/** The highest seq, in the page's snapshot (findPage); prepared once per connection. */
const TOP_SEQ_STATEMENT = { name: 'vigil_audit_top_seq', text: 'SELECT max(seq) AS top FROM vigil_records' };

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
  private readonly chosen = new PageSeqs();
  private collation: Promise<string | null> | null = null;

  constructor(private readonly options: PgAuditRecordsOptions) {}

  get turns(): TurnQueue {
    return this.options.turns;
  }

  readonly slicesInFlight = 2;

  private get pool(): pg.Pool {
    return this.options.fleet.pool;
  }

  /** `statement` on a connection of the pool; `name` prepares it once per connection. */
  private async query<R extends pg.QueryResultRow>(
    statement: string | Statement,
    values: unknown[],
  ): Promise<pg.QueryResult<R>> {
    try {
      return await queryWhileReachable<R>(this.pool, statement, values);
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
    // One snapshot (REPEATABLE READ) for the page and the highest seq it was chosen among; the
    // latter by a statement prepared once per connection: planned in the page's statement, it
    // cost 4–5 ms a page (every day partition's seq index considered) to run in 0.3 ms.
    // Each seq's day and stored size come along, read from the row the search reads anyway:
    // the page's rows are then read from their day partitions only, and its slices are cut
    // without measuring the rows again (slices).
    const sql = `SELECT coalesce(string_agg(p.seq::text, ',' ORDER BY p.seq), '') AS seqs,
                        coalesce(string_agg(p.day::text, ',' ORDER BY p.seq), '') AS days,
                        coalesce(string_agg(p.bytes::text, ',' ORDER BY p.seq), '') AS bytes
                   FROM (SELECT a.seq, a.day, ${storedBytesSql} AS bytes
                          FROM vigil_records AS a
                          WHERE a.seq > $${n + 1} AND (${search.where})
                          ORDER BY a.seq LIMIT $${n + 2}) AS p`;
    // An enumeration's statement is always the same text: prepared once per connection.
    const statement = search.where === 'true' ? { name: 'vigil_audit_enumeration_page', text: sql } : { text: sql };
    const timeout = Math.max(1, Math.floor(this.statementTimeoutMs));
    // Lists as comma-separated text: splitting it costs a fraction of parsing array literals.
    let row: { top: string | null; seqs: string; days: string; bytes: string };
    try {
      // A connection whose transaction failed is closed, not handed to the next query (whileReachable).
      row = await whileReachable(this.pool, async (client) => {
        // One round trip for all three (a simple query may hold several statements). No JIT:
        // PostgreSQL compiles a plan it estimates costly (jit_above_cost) at every execution,
        // 150–300 ms, for statements that then run in 10–25 ms (docs/fleet.md "Sizing").
        await client.query(
          `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET LOCAL statement_timeout = ${timeout}; SET LOCAL jit = off`,
        );
        if (cancelled()) throw new PageCancelled();
        const page = await client.query<Omit<typeof row, 'top'>>({
          ...statement,
          values: [...search.params, after, count],
        });
        const top = await client.query<Pick<typeof row, 'top'>>(TOP_SEQ_STATEMENT);
        await client.query('COMMIT');
        return { ...page.rows[0]!, top: top.rows[0]!.top };
      });
    } catch (error) {
      throw error instanceof PageCancelled ? error : unavailable(error);
    }
    const split = (list: string): string[] => (list === '' ? [] : list.split(','));
    const seqs = split(row.seqs).map(Number);
    this.chosen.remember(seqs, split(row.days), split(row.bytes).map(Number));
    const through = seqs.length >= count ? seqs[seqs.length - 1]! : Math.max(after, Number(row.top ?? 0));
    return { seqs, through };
  }

  private get statementTimeoutMs(): number {
    return this.options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  }

  /** The rows for `seqs` (ascending). */
  async fetchRaw(seqs: readonly number[]): Promise<RawRecordRow[]> {
    if (seqs.length === 0) return [];
    const { text, values } = this.rowsOf(RECORD_COLUMNS, seqs);
    const result = await this.query<unknown[]>({ text: `${text} ORDER BY 1`, rowMode: 'array' }, values);
    return result.rows.map(toRawRow);
  }

  /**
   * A statement reading exactly the rows for `seqs` (ascending): `columns`, seq first, in no
   * particular order. A dense run is read as a range of seq (the list too, unless contiguous);
   * bounds on `day` from the page's search let PostgreSQL skip the other days' partitions
   * (every day partition has its own seq index, probed otherwise). A sparse list is read one
   * arm per day, each pruned to its partition and probing its index only for that day's seqs.
   */
  private rowsOf(columns: string, seqs: readonly number[]): { text: string; values: unknown[] } {
    const first = seqs[0]!;
    const last = seqs[seqs.length - 1]!;
    const contiguous = last - first + 1 === seqs.length;
    if (last - first + 1 <= 2 * seqs.length) {
      const values: unknown[] = [first, last];
      let text = `SELECT ${columns} FROM vigil_records WHERE seq >= $1 AND seq <= $2`;
      const span = this.chosen.span(seqs);
      if (span !== null) {
        values.push(...span);
        text += ` AND day >= $${values.length - 1}::date AND day <= $${values.length}::date`;
      }
      if (!contiguous) {
        values.push(seqs);
        text += ` AND seq = ANY($${values.length}::bigint[])`;
      }
      return { text, values };
    }
    const byDay = this.chosen.group(seqs);
    if (byDay === null) {
      return {
        text: `SELECT ${columns} FROM vigil_records WHERE seq >= $1 AND seq <= $2 AND seq = ANY($3::bigint[])`,
        values: [first, last, seqs],
      };
    }
    const values: unknown[] = [];
    const arms = [...byDay].map(([day, daySeqs]) => {
      values.push(day, daySeqs);
      return `SELECT ${columns} FROM vigil_records WHERE day = $${values.length - 1}::date AND seq = ANY($${values.length}::bigint[])`;
    });
    return { text: arms.join(' UNION ALL '), values };
  }

  /**
   * The slice's JSON (pg-audit-rows.ts `PAGE_JSON_SQL`), one text value for all its records,
   * passed through as the bytes PostgreSQL sends (copy-out.ts).
   */
  async fetchJson(seqs: readonly number[]): Promise<Buffer> {
    if (seqs.length === 0) return Buffer.alloc(0);
    const rows = this.rowsOf(`seq, ${PAGE_JSON_SQL} AS json`, seqs);
    const text = `SELECT string_agg(r.json, ',' ORDER BY r.seq) FROM (${inlineLiterals(rows.text, rows.values)}) AS r`;
    try {
      return (await whileReachable(this.pool, (client) => copyOutValue(client, text))) ?? Buffer.alloc(0);
    } catch (error) {
      throw unavailable(error);
    }
  }

  /**
   * `seqs` in slices (cutSlices), by the sizes the page's statement read when it chose them all
   * (findPage); seqs it no longer remembers are measured record by record.
   */
  async slices(seqs: readonly number[], maxRecords: number, maxBytes: number): Promise<number[][]> {
    if (seqs.length === 0) return [];
    const known = this.chosen.sizes(seqs);
    if (known !== null) return cutSlices(seqs, known, maxRecords, maxBytes);
    const rows = this.rowsOf(`seq, ${storedBytesSql}`, seqs);
    const result = await this.query<unknown[]>({ text: rows.text, rowMode: 'array' }, rows.values);
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
