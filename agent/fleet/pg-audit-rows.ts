/**
 * Record rows of the fleet database in the shapes the audit API's pages are built from: the raw
 * arrays of agent/store/raw-record.ts (for XML), the JSON of records (stored by their member, or
 * written by PostgreSQL itself), and the slices a page is sent in. The JSON is byte for byte
 * JSON.stringify's of the record, as the SQLite store's is (test/integration/fleet-audit-json.test.ts
 * compares both stores' pages), so both stores answer the same bytes.
 */
import type { RawRecordRow } from '../store/raw-record.js';

/** Columns of a raw record row, in the order of RawRecordRow. */
export const RECORD_COLUMNS =
  'seq, rid, when_ms, who, action, what, location, object_type, data_source, plan_name, plan_id, item_name, workstation, details';

/** A row as node-postgres gives it (bigint as text) turned into a RawRecordRow. */
export function toRawRow(row: unknown[]): RawRecordRow {
  const raw = row.slice() as RawRecordRow;
  raw[0] = Number(row[0]);
  raw[2] = Number(row[2]);
  return raw;
}

/**
 * `When`: the time floored to the second, `YYYY-MM-DDTHH:MM:SSZ` (formatWhen of
 * activity-record.ts). Integer arithmetic and a timestamp without time zone: independent of the
 * session's TimeZone and DateStyle.
 */
const WHEN_SQL = `to_char(timestamp '1970-01-01' + ((when_ms - ((when_ms % 1000) + 1000) % 1000) / 1000) * interval '1 second',
  'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;

/** A text column as a JSON string: to_json() escapes as JSON.stringify does (RFC 8259, `\u00XX` lower-case). */
const str = (column: string): string => `to_json(${column})::text`;

/**
 * The record's JSON, in the key order of rawToRecord (raw-record.ts). concat() leaves out NULL
 * arguments, so an optional field whose column is NULL drops out with its key. The stored
 * DetailList is JSON.stringify's text (audit-store.ts): it goes in as it is, unparsed.
 * json_build_object() would write `"key" : value` with spaces, row_to_json() cannot leave a key
 * out: hence the concatenation.
 */
export const PG_RECORD_JSON_SQL = `concat('{"RID":', ${str('rid')}, ',"Who":', ${str('who')}, ',"Action":', ${str('action')},
  ',"What":', ${str('what')}, ',"When":"', ${WHEN_SQL}, '","Where":', ${str('location')},
  ',"ObjectType":', ${str('object_type')}, ',"DataSource":', ${str('data_source')},
  ',"MonitoringPlan":{"Name":' || ${str('plan_name')} || coalesce(',"ID":' || ${str('plan_id')}, '') || '}',
  ',"Item":{"Name":' || ${str('item_name')} || '}',
  ',"Workstation":' || ${str('workstation')},
  ',"DetailList":' || details,
  '}')`;

/**
 * The JSON a page sends: the bytes the member's SQLite wrote when it forwarded the record
 * (forward-copy.ts), or, for a record forwarded before the fleet schema had them, PostgreSQL's
 * own. Writing it here cost PostgreSQL about twice the CPU of reading it (docs/benchmarks.md).
 * `vigil verify --fleet` checks the stored text against the record's columns (verify-fleet.ts).
 */
export const PAGE_JSON_SQL = `coalesce(json, ${PG_RECORD_JSON_SQL})`;

/** The stored size of a record in bytes, measured as the SQLite store measures it (raw-record.ts). */
export const storedBytesSql = `(octet_length(rid) + octet_length(who) + octet_length(action) + octet_length(what)
  + octet_length(location) + octet_length(object_type) + octet_length(data_source)
  + coalesce(octet_length(plan_name), 0) + coalesce(octet_length(plan_id), 0)
  + coalesce(octet_length(item_name), 0) + coalesce(octet_length(workstation), 0)
  + coalesce(octet_length(details), 0))`;

/**
 * `seqs` (ascending) cut as slicesByBytes (raw-record.ts) cuts them: chunks of `maxRecords`,
 * and a chunk over `maxBytes` cut again by size, a record larger than that alone.
 */
export function cutSlices(
  seqs: readonly number[],
  sizes: ReadonlyMap<number, number>,
  maxRecords: number,
  maxBytes: number,
): number[][] {
  const slices: number[][] = [];
  for (let i = 0; i < seqs.length; i += maxRecords) {
    const chunk = seqs.slice(i, i + maxRecords);
    const total = chunk.reduce((sum, seq) => sum + (sizes.get(seq) ?? 0), 0);
    if (total <= maxBytes) {
      slices.push(chunk);
      continue;
    }
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
