/**
 * Records for pages without building row objects, the hot path of enumeration (10,000 records
 * a page): JSON is written by SQLite (RECORD_JSON_SQL), XML from better-sqlite3's raw arrays.
 * Both equal what rowToRecord (audit-store.ts) gives (test/unit/raw-record.test.ts). The stored
 * DetailList is JSON written by JSON.stringify (audit-store.ts), so JSON output embeds it as it is.
 */
import type { ActivityDetail, ActivityRecord } from '../../shared/activity-record.js';
import type { Statement } from 'better-sqlite3';

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

export const RAW = {
  seq: 0,
  rid: 1,
  whenMs: 2,
  who: 3,
  action: 4,
  what: 5,
  location: 6,
  objectType: 7,
  dataSource: 8,
  planName: 9,
  planId: 10,
  itemName: 11,
  workstation: 12,
  details: 13,
} as const;

/** `When`: the time floored to the second (like formatWhen). datetime() is 3× cheaper than strftime(). */
const WHEN_SQL = `replace(datetime((when_ms - ((when_ms % 1000) + 1000) % 1000) / 1000, 'unixepoch'), ' ', 'T') || 'Z'`;

const REQUIRED_FIELDS = `'RID', rid, 'Who', who, 'Action', action, 'What', what, 'When', ${WHEN_SQL},
  'Where', location, 'ObjectType', object_type, 'DataSource', data_source`;

/** The optional fields in rowToRecord's order: present when the column is not NULL. */
const OPTIONAL_FIELDS: ReadonlyArray<{ column: string; pair: string }> = [
  {
    column: 'plan_name',
    pair: `'MonitoringPlan', CASE WHEN plan_id IS NULL THEN json_object('Name', plan_name)
      ELSE json_object('Name', plan_name, 'ID', plan_id) END`,
  },
  { column: 'item_name', pair: `'Item', json_object('Name', item_name)` },
  { column: 'workstation', pair: `'Workstation', workstation` },
  // The stored DetailList is JSON.stringify's text; json() embeds it as it is written.
  { column: 'details', pair: `'DetailList', json(details)` },
];

/** One json_object() call per combination of present optional fields, chosen by CASE. */
function recordJsonSql(at = 0, pairs: readonly string[] = []): string {
  if (at === OPTIONAL_FIELDS.length) return `json_object(${[REQUIRED_FIELDS, ...pairs].join(', ')})`;
  const { column, pair } = OPTIONAL_FIELDS[at]!;
  return `CASE WHEN ${column} IS NULL THEN ${recordJsonSql(at + 1, pairs)} ELSE ${recordJsonSql(at + 1, [...pairs, pair])} END`;
}

/**
 * The record as JSON, built by SQLite itself: for whole pages this is the fastest path (one
 * buffer per slice of rows comes back, not fourteen values per row). json_object() writes
 * each record in one buffer and escapes strings exactly as JSON.stringify does; it can not
 * leave a key out, so a CASE picks the call for the optional fields that are present (16
 * combinations). Measured with callgrind against the earlier `'{"RID":' || json_quote(rid) ||
 * …` concatenation (every `||` copies the record so far) and strftime(): 23 % fewer
 * instructions per record. test/unit/raw-record.test.ts checks it against
 * JSON.stringify(rowToRecord(row)).
 */
export const RECORD_JSON_SQL = recordJsonSql();

/**
 * The JSON of the records for `seqs` (ascending, non-empty), comma-separated, as UTF-8 bytes,
 * in `seq` order. SQLite joins the slice itself and hands it over as one BLOB: no JavaScript
 * string per record, no decoding and re-encoding of UTF-8 (callgrind: 10 % fewer instructions
 * than joining the rows in JavaScript). The rows come from a subquery ordered by `seq`, which
 * the rowid range already satisfies without sorting; SQLite does not flatten an ordered
 * subquery into an aggregate (query flattener rule 16), so group_concat sees them in that
 * order. (`group_concat(… ORDER BY seq)` sorts again: 20 % more.) The order is tested in
 * test/unit/raw-record.test.ts.
 */
export function recordsJson(seqs: readonly number[], prepare: (sql: string) => Statement): Buffer {
  const first = seqs[0]!;
  const last = seqs[seqs.length - 1]!;
  const contiguous = last - first + 1 === seqs.length;
  const where = contiguous ? 'seq >= ? AND seq <= ?' : 'seq IN (SELECT value FROM json_each(?))';
  const joined = prepare(
    `SELECT CAST(group_concat(record, ',') AS BLOB) FROM
       (SELECT ${RECORD_JSON_SQL} AS record FROM activity_records WHERE ${where} ORDER BY seq)`,
  )
    .pluck()
    .get(...(contiguous ? [first, last] : [JSON.stringify(seqs)])) as Buffer | null;
  return joined ?? Buffer.alloc(0);
}

/** `YYYY-MM-DDTHH:MM:SSZ` (formatWhen of activity-record.ts, for four-digit years). */
export function whenText(ms: number): string {
  const iso = new Date(ms).toISOString();
  return iso.length === 24 ? `${iso.slice(0, 19)}Z` : iso.replace(/\.\d{3}Z$/, 'Z');
}

/** The record as rowToRecord (audit-store.ts) gives it, for the XML writer. */
export function rawToRecord(r: RawRecordRow): ActivityRecord {
  const record: ActivityRecord = {
    RID: r[1],
    Who: r[3],
    Action: r[4],
    What: r[5],
    When: whenText(r[2]),
    Where: r[6],
    ObjectType: r[7],
    DataSource: r[8],
  };
  if (r[9] !== null) record.MonitoringPlan = r[10] === null ? { Name: r[9] } : { Name: r[9], ID: r[10] };
  if (r[11] !== null) record.Item = { Name: r[11] };
  if (r[12] !== null) record.Workstation = r[12];
  if (r[13] !== null) record.DetailList = JSON.parse(r[13]) as ActivityDetail[];
  return record;
}

/**
 * The stored size of a record in bytes (its text columns as SQLite keeps them), the measure by
 * which export slices are cut. octet_length() reads a value's length from the row header
 * without loading the value, so this costs little even for records of megabytes.
 */
const STORED_BYTES_SQL = `(octet_length(rid) + octet_length(who) + octet_length(action) + octet_length(what)
  + octet_length(location) + octet_length(object_type) + octet_length(data_source)
  + coalesce(octet_length(plan_name), 0) + coalesce(octet_length(plan_id), 0)
  + coalesce(octet_length(item_name), 0) + coalesce(octet_length(workstation), 0)
  + coalesce(octet_length(details), 0))`;

function seqCondition(seqs: readonly number[]): { where: string; args: Array<number | string> } {
  const first = seqs[0]!;
  const last = seqs[seqs.length - 1]!;
  return last - first + 1 === seqs.length
    ? { where: 'seq >= ? AND seq <= ?', args: [first, last] }
    : { where: 'seq IN (SELECT value FROM json_each(?))', args: [JSON.stringify(seqs)] };
}

/**
 * `seqs` (ascending) cut into slices of at most `maxRecords` records and, by stored size, at
 * most `maxBytes` bytes: a page of large records is then exported a few records at a time
 * instead of as one value SQLite or V8 cannot hold (docs/security.md F19). A record larger than
 * `maxBytes` alone is a slice of its own. A slice of ordinary records costs one aggregate
 * query; only a slice over the cap is measured record by record.
 */
export function slicesByBytes(
  seqs: readonly number[],
  maxRecords: number,
  maxBytes: number,
  prepare: (sql: string) => Statement,
): number[][] {
  const slices: number[][] = [];
  for (let i = 0; i < seqs.length; i += maxRecords) {
    const chunk = seqs.slice(i, i + maxRecords);
    const { where, args } = seqCondition(chunk);
    const total = prepare(`SELECT coalesce(sum(${STORED_BYTES_SQL}), 0) FROM activity_records WHERE ${where}`)
      .pluck()
      .get(...args) as number;
    if (total <= maxBytes) {
      slices.push(chunk);
      continue;
    }
    const sizes = new Map(
      prepare(`SELECT seq, ${STORED_BYTES_SQL} FROM activity_records WHERE ${where}`)
        .raw(true)
        .all(...args) as Array<[number, number]>,
    );
    let slice: number[] = [];
    let bytes = 0;
    for (const seq of chunk) {
      const size = sizes.get(seq) ?? 0; // removed by retention meanwhile: nothing to send
      if (slice.length > 0 && bytes + size > maxBytes) {
        slices.push(slice);
        slice = [];
        bytes = 0;
      }
      slice.push(seq);
      bytes += size;
    }
    if (slice.length > 0) slices.push(slice);
  }
  return slices;
}
