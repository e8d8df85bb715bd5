/**
 * Records for pages without building row objects, the hot path of enumeration (10,000 records
 * a page): JSON is written by SQLite (RECORD_JSON_SQL), XML from better-sqlite3's raw arrays.
 * Both equal what rowToRecord (audit-store.ts) gives (test/unit/raw-record.test.ts). The stored
 * DetailList is JSON written by JSON.stringify (audit-store.ts), so JSON output embeds it as it is.
 */
import type { ActivityDetail, ActivityRecord } from '../../shared/activity-record.js';
import type { Statement } from 'better-sqlite3';
import type { RawRecordRow } from './audit-reader.js';

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

/**
 * The record as JSON, built by SQLite itself: for whole pages this is the fastest path (one
 * string per slice of rows comes back, not fourteen values per row). json_quote escapes exactly
 * as JSON.stringify does; the time is floored to the second like formatWhen; absent fields are
 * left out. test/unit/raw-record.test.ts checks it against JSON.stringify(rowToRecord(row)).
 */
export const RECORD_JSON_SQL = `'{"RID":' || json_quote(rid) || ',"Who":' || json_quote(who) ||
  ',"Action":' || json_quote(action) || ',"What":' || json_quote(what) ||
  ',"When":"' || strftime('%Y-%m-%dT%H:%M:%SZ', (when_ms - ((when_ms % 1000) + 1000) % 1000) / 1000, 'unixepoch') ||
  '","Where":' || json_quote(location) || ',"ObjectType":' || json_quote(object_type) ||
  ',"DataSource":' || json_quote(data_source) ||
  CASE WHEN plan_name IS NULL THEN '' ELSE ',"MonitoringPlan":{"Name":' || json_quote(plan_name) ||
    CASE WHEN plan_id IS NULL THEN '' ELSE ',"ID":' || json_quote(plan_id) END || '}' END ||
  CASE WHEN item_name IS NULL THEN '' ELSE ',"Item":{"Name":' || json_quote(item_name) || '}' END ||
  CASE WHEN workstation IS NULL THEN '' ELSE ',"Workstation":' || json_quote(workstation) END ||
  CASE WHEN details IS NULL THEN '' ELSE ',"DetailList":' || details END || '}'`;

/**
 * The JSON of the records for `seqs` (ascending, non-empty), comma-separated, as UTF-8 bytes.
 * One row of JSON text per record, in `seq` order (an ORDER BY inside group_concat would sort
 * again and costs a third more), joined here.
 */
export function recordsJson(seqs: readonly number[], prepare: (sql: string) => Statement): Buffer {
  const first = seqs[0]!;
  const last = seqs[seqs.length - 1]!;
  const contiguous = last - first + 1 === seqs.length;
  const where = contiguous ? 'seq >= ? AND seq <= ?' : 'seq IN (SELECT value FROM json_each(?))';
  const rows = prepare(`SELECT ${RECORD_JSON_SQL} FROM activity_records WHERE ${where} ORDER BY seq`)
    .pluck()
    .all(...(contiguous ? [first, last] : [JSON.stringify(seqs)])) as string[];
  return Buffer.from(rows.join(','), 'utf8');
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
