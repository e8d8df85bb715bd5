/**
 * Record rows of the fleet database in the shapes the audit API's pages are built from: the raw
 * arrays of agent/store/raw-record.ts, their JSON, and the slices a page is sent in. The JSON is
 * JSON.stringify's, which the SQLite store's JSON equals (test/unit/raw-record.test.ts), so both
 * stores answer the same bytes.
 */
import { rawToRecord, type RawRecordRow } from '../store/raw-record.js';

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

/** The JSON of `rows`, comma-separated, as UTF-8 bytes. */
export function recordsJson(rows: readonly RawRecordRow[]): Buffer {
  if (rows.length === 0) return Buffer.alloc(0);
  return Buffer.from(rows.map((row) => JSON.stringify(rawToRecord(row))).join(','), 'utf8');
}

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
