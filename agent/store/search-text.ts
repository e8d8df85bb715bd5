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
export const ftsString = (token: string): string => `"${token.replace(/"/g, '""')}"`;

/**
 * An index query as trigrams: every group must match; within a group, one of its alternatives
 * (a filter's values); within an alternative, every trigram (of one value).
 */
export type MatchTerms = ReadonlyArray<ReadonlyArray<readonly string[]>>;

/** The FTS5 expression of `terms`. */
export function matchExpression(terms: MatchTerms): string {
  return terms
    .map((alternatives) => {
      const each = alternatives.map((trigramsOfValue) => `(${trigramsOfValue.map(ftsString).join(' AND ')})`);
      return each.length === 1 ? each[0]! : `(${each.join(' OR ')})`;
    })
    .join(' AND ');
}

/**
 * `terms` cut to the `kept` rarest trigrams by `rarity` (higher: rarer), a superset of the same
 * records. Filters of one value each are ANDed, so their trigrams are one pool (an account's
 * rare ones then stand for "Moved", whose three are all common); a filter of several values
 * keeps an alternative per value, each cut alone.
 */
export function narrowTerms(terms: MatchTerms, rarity: (trigram: string) => number, kept: number): MatchTerms {
  const rarest = (all: readonly string[]): string[] =>
    [...all].sort((a, b) => rarity(b) - rarity(a) || (a < b ? -1 : a > b ? 1 : 0)).slice(0, kept);
  const single = terms.filter((alternatives) => alternatives.length === 1);
  const several = terms.filter((alternatives) => alternatives.length > 1);
  const pooled =
    single.length === 0 ? [] : [[rarest([...new Set(single.flatMap((alternatives) => alternatives[0]!))])]];
  return [...pooled, ...several.map((alternatives) => alternatives.map(rarest))];
}
