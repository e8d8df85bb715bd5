/**
 * How a batch of records travels to the fleet database (docs/fleet.md "Forwarding"): as the text
 * of a `COPY … FROM STDIN` (PostgreSQL's text format), streamed into a staging table private to
 * the session, then moved into `vigil_records` by one `INSERT … SELECT` that holds the fleet's
 * inserts lock. The COPY — parsing every row — runs outside the lock, in parallel with other
 * members' inserts; only the insert into the indexed table and the commit are serial.
 *
 * The local store writes the COPY text itself (`COPY_LINES`): escaping is SQL over each column,
 * so a batch reaches the agent as one string and costs no JavaScript per record.
 */
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { RECORD_JSON_SQL } from '../store/raw-record.js';
import { whileReachable } from './fleet-connection.js';
import { ADVISORY_KEYS } from './pg-schema.js';

/** The staged columns, in COPY order; `agent_id` is the batch's own, `seq` the fleet's. */
const STAGED_COLUMNS =
  'agent_seq, rid, when_ms, who, action, what, location, object_type, data_source, plan_name, plan_id, item_name, workstation, details, chain, day, json';

const STAGE = 'vigil_forward_stage';

/**
 * A text column as COPY's text format reads it: `\N` for NULL; backslash, newline, carriage
 * return and tab (the delimiter) escaped; every other character, control characters and
 * characters beyond the BMP included, as it is. Most values hold none of the four: one GLOB scan
 * (no escape character in GLOB, so `\` in the class is itself) spares them four replace() copies.
 */
function copyText(column: string): string {
  const escaped = `replace(replace(replace(replace(${column}, '\\', '\\\\'), char(10), '\\n'), char(13), '\\r'), char(9), '\\t')`;
  return `coalesce(CASE WHEN ${column} GLOB '*[\t\n\r\\]*' THEN ${escaped} ELSE ${column} END, '\\N')`;
}

/**
 * SQLite: the COPY text of the local records after `$after` in seq order, at most `$limit` of
 * them, in one string (lines end in a newline), with the batch's last seq and its count. `day`
 * is the UTC day of `when_ms`, rounded down also before 1970 (utcDay); `chain` is bytea's hex
 * form, its backslash escaped for COPY. `json` is the record's JSON as this store answers it
 * (raw-record.ts), so the fleet's pages are these bytes: JSON holds no tab, newline or carriage
 * return (it escapes them), so only its backslashes need escaping for COPY.
 */
export const COPY_LINES = `
  SELECT count(*) AS records, max(seq) AS "lastSeq", string_agg(line, '' ORDER BY seq) AS text FROM (
    SELECT seq, seq || char(9) || ${copyText('rid')} || char(9) || when_ms
           || char(9) || ${copyText('who')} || char(9) || ${copyText('action')}
           || char(9) || ${copyText('what')} || char(9) || ${copyText('location')}
           || char(9) || ${copyText('object_type')} || char(9) || ${copyText('data_source')}
           || char(9) || ${copyText('plan_name')} || char(9) || ${copyText('plan_id')}
           || char(9) || ${copyText('item_name')} || char(9) || ${copyText('workstation')}
           || char(9) || ${copyText('details')}
           || char(9) || coalesce('\\\\x' || hex(chain), '\\N')
           || char(9) || coalesce(date(when_ms / 1000 - (when_ms % 1000 < 0), 'unixepoch'), '\\N')
           || char(9) || replace(${RECORD_JSON_SQL}, '\\', '\\\\')
           || char(10) AS line
      FROM activity_records WHERE seq > $after ORDER BY seq LIMIT $limit)`;

/** A batch as COPY_LINES reads it. */
export interface CopyBatch {
  records: number;
  lastSeq: number | null;
  text: string | null;
}

/** When the lock was granted and when the statement arrived, by the server's clock (ms). */
interface LockTimes {
  arrived: number;
  locked: number;
}

export interface InsertTiming {
  /** From the statement's arrival to the lock (waiting for other members' inserts). */
  lockWaitMs: number;
  /** From the lock to the answer of the commit: what the fleet waits for this batch. */
  lockHeldMs: number;
}

/** Connections that have this session's staging table already. */
const staged = new WeakSet<pg.PoolClient>();

/**
 * Inserts COPY text (COPY_LINES's form) as `agentId`'s records: COPY into the session's staging
 * table, then, under the inserts lock, one `INSERT … SELECT` in agent_seq order and the commit,
 * sent as one message so the lock is held for their work and a single round trip. Records
 * already there conflict and are skipped (a re-sent batch).
 */
export async function insertCopyText(pool: pg.Pool, agentId: string, text: string): Promise<InsertTiming> {
  return whileReachable(pool, async (client) => {
    if (!staged.has(client)) {
      // ON COMMIT DELETE ROWS: each batch's transaction starts from an empty stage.
      await client.query(
        `CREATE TEMP TABLE IF NOT EXISTS ${STAGE} ON COMMIT DELETE ROWS AS
           SELECT ${STAGED_COLUMNS} FROM vigil_records WITH NO DATA`,
      );
      staged.add(client);
    }
    await client.query('BEGIN');
    await pipeline(Readable.from([Buffer.from(text, 'utf8')]), client.query(copyFrom(`COPY ${STAGE} FROM STDIN`)));
    const results = (await client.query(
      `SELECT (extract(epoch FROM statement_timestamp()) * 1000)::float8 AS arrived,
              (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS locked
         FROM pg_advisory_xact_lock(${ADVISORY_KEYS.inserts});
       INSERT INTO vigil_records (agent_id, ${STAGED_COLUMNS})
         SELECT ${client.escapeLiteral(agentId)}, ${STAGED_COLUMNS} FROM ${STAGE} ORDER BY agent_seq
         ON CONFLICT DO NOTHING;
       COMMIT`,
    )) as unknown as pg.QueryResult<LockTimes>[];
    const answered = Date.now();
    const times = results[0]!.rows[0]!;
    return { lockWaitMs: times.locked - times.arrived, lockHeldMs: answered - times.locked };
  });
}
