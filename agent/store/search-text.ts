/**
 * What the substring index holds and how a filter value becomes an index query. Pure.
 *
 * The index is an FTS5 table with the trigram tokenizer and `detail=none`: it stores, for every
 * trigram, the records whose indexed text contains it, but not in which column. It is used only
 * to find candidates: a record that contains a value has every trigram of the value somewhere
 * in its text, so "all the value's trigrams" is a superset, and the exact filter (the SQL
 * predicate of audit-query.ts) then runs on the real row. Measurements in docs/decisions.md.
 */
import type { CanonicalRow } from './record-chain.js';

/** FTS column order; `details` is the text of every detail field, one per line. */
export const INDEXED_COLUMNS = [
  'who',
  'action',
  'what',
  'location',
  'object_type',
  'data_source',
  'plan_name',
  'item_name',
  'workstation',
  'details',
] as const;

/** The stored columns the index reads (record-chain.ts names them all), with the record's seq. */
export type IndexSourceRow = Omit<CanonicalRow, 'when_ms' | 'plan_id'> & { seq: number };

/** The detail fields a Detail filter looks at, in the order they are indexed. */
export const DETAIL_FIELDS = ['PropertyName', 'Before', 'After', 'Message'] as const;

/** Flattens the stored DetailList JSON into plain text, so JSON escapes never hide a value. */
export function detailsText(details: string | null): string | null {
  if (details === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(details);
  } catch {
    return details;
  }
  if (!Array.isArray(parsed)) return null;
  const parts: string[] = [];
  for (const detail of parsed) {
    if (typeof detail !== 'object' || detail === null) continue;
    for (const field of DETAIL_FIELDS) {
      const value = (detail as Record<string, unknown>)[field];
      if (typeof value === 'string') parts.push(value);
    }
  }
  return parts.join('\n');
}

/** The values to insert for one record, in INDEXED_COLUMNS order after the rowid. */
export function indexValues(row: IndexSourceRow): Array<string | number | null> {
  return [
    row.seq,
    row.who,
    row.action,
    row.what,
    row.location,
    row.object_type,
    row.data_source,
    row.plan_name,
    row.item_name,
    row.workstation,
    detailsText(row.details),
  ];
}

/** The trigram tokenizer cannot find values shorter than this. */
export const MIN_INDEXED_LENGTH = 3;
/** More trigrams narrow the candidates less and less; a spread of this many is plenty. */
const MAX_TRIGRAMS = 12;

/** Distinct trigrams of a value, by Unicode code point (as the tokenizer splits text). */
export function trigrams(value: string): string[] {
  const chars = Array.from(value);
  const seen = new Set<string>();
  for (let i = 0; i + 3 <= chars.length; i++) seen.add(chars.slice(i, i + 3).join(''));
  const all = [...seen];
  if (all.length <= MAX_TRIGRAMS) return all;
  const picked: string[] = [];
  for (let k = 0; k < MAX_TRIGRAMS; k++) picked.push(all[Math.round((k * (all.length - 1)) / (MAX_TRIGRAMS - 1))]!);
  return [...new Set(picked)];
}

/** An FTS5 string literal: double quotes, inner quotes doubled (SQLite FTS5 query syntax). */
const quote = (token: string): string => `"${token.replace(/"/g, '""')}"`;

/** The FTS5 expression matching records that contain every trigram of `value`; null if too short. */
export function containsExpression(value: string): string | null {
  if (Array.from(value).length < MIN_INDEXED_LENGTH) return null;
  return trigrams(value).map(quote).join(' AND ');
}
