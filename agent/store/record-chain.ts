/**
 * The hash chain over the audit store's records (docs/integrity.md): each record's `chain` is
 * SHA-256(previous record's chain || canonical record), in commit (`seq`) order; the first
 * record's predecessor is GENESIS. Defined once here: the store, the schema migration that
 * chains existing records and `vigil verify` all use it.
 */
import crypto from 'node:crypto';
import { chainAddon } from './chain-addon.js';

/** The predecessor of the very first record: 32 zero bytes. */
export const GENESIS: Buffer = Buffer.alloc(32);

/**
 * The stored columns of a record in a fixed order, as SQLite keeps them (times as UTC
 * milliseconds, details as their stored JSON text, absent values as null).
 */
export type CanonicalValues = readonly [
  rid: string,
  whenMs: number,
  who: string,
  action: string,
  what: string,
  location: string,
  objectType: string,
  dataSource: string,
  planName: string | null,
  planId: string | null,
  itemName: string | null,
  workstation: string | null,
  details: string | null,
];

/** The canonical encoding: the values as a JSON array (RFC 8259), UTF-8. */
export function canonicalRecord(values: CanonicalValues): string {
  return JSON.stringify(values);
}

export function nextChain(previous: Buffer, canonical: string): Buffer {
  return crypto.createHash('sha256').update(previous).update(canonical, 'utf8').digest();
}

/** Length of a chain value (SHA-256). */
export const CHAIN_BYTES = 32;

/**
 * The chain values of a batch, in one Buffer of `canonicals.length` × 32 bytes: value i is
 * `nextChain` folded over `canonicals[0..i]` from `previous`. Through the native addon when it
 * is built (chain-addon.ts): one call for the batch instead of a node:crypto Hash per record.
 */
export function chainBatch(previous: Buffer, canonicals: readonly string[]): Buffer {
  const addon = chainAddon();
  if (addon) return addon.chainBatch(previous, canonicals);
  return chainBatchJs(previous, canonicals);
}

/**
 * The chain values of `count` canonical records given as one UTF-8 text, separated by line
 * feeds (a canonical record never holds one raw); null when the text holds another number of
 * records. `vigil verify` reads a window of records this way (verify-range.ts).
 */
export function chainJoined(previous: Buffer, text: Buffer, count: number): Buffer | null {
  const addon = chainAddon();
  if (addon) return addon.chainJoined(previous, text, count);
  const canonicals = text.length === 0 && count === 0 ? [] : text.toString('utf8').split('\n');
  return canonicals.length === count ? chainBatchJs(previous, canonicals) : null;
}

/** `chainBatch` through node:crypto: the fallback, and the reference the addon is tested against. */
export function chainBatchJs(previous: Buffer, canonicals: readonly string[]): Buffer {
  const out = Buffer.allocUnsafe(canonicals.length * CHAIN_BYTES);
  let chain = previous;
  for (let i = 0; i < canonicals.length; i++) {
    chain = nextChain(chain, canonicals[i]!);
    chain.copy(out, i * CHAIN_BYTES);
  }
  return out;
}

/** String.prototype.isWellFormed (ES2024, in Node 20), not in the ES2023 library types. */
interface WellFormed {
  isWellFormed(): boolean;
}
/**
 * `value` as SQLite will store it: half a UTF-16 surrogate pair as U+FFFD. Binding it as it is
 * would store bytes that are not UTF-8 (V8 writes the half pair's own three bytes), which JSON
 * and `vigil verify` read back as three U+FFFD. Checked in V8, free for Latin-1 text.
 */
export function wellFormedText(value: string): string {
  return (value as unknown as WellFormed).isWellFormed() ? value : Buffer.from(value, 'utf8').toString('utf8');
}

/** `wellFormedText` of a value that may be absent (null). */
export function wellFormedOrNull(value: string | null | undefined): string | null {
  return value === null || value === undefined ? null : wellFormedText(value);
}

/**
 * The canonical record of the 13 values at `values[at…]` as SQLite will store them, rewriting
 * those values in place. Half a UTF-16 surrogate pair (JSON.stringify escapes it as `\udxxx`)
 * cannot exist in UTF-8 and is stored as U+FFFD; chaining the text as sent would make
 * `vigil verify`, re-reading the row, report a change.
 */
export function canonicalAsStored(values: unknown[], at: number): string {
  for (let column = at; column < at + 13; column++) {
    const value = values[column];
    if (typeof value === 'string') values[column] = wellFormedText(value);
  }
  return canonicalRecord(values.slice(at, at + 13) as unknown as CanonicalValues);
}

/** Values in a canonical record. */
const CANONICAL_VALUES = 13;

/**
 * The chain values of `rows` records whose 13 canonical values each are at `values[row ×
 * stride …]` (the array an INSERT binds), from row `fromRow`, in one Buffer of rows × 32 bytes
 * from `previous`, by JSON.stringify and node:crypto: the store's way when SQLite cannot chain
 * (the addon is not built: chain-addon.ts `loadChainFunction`), and the reference the addon's
 * SQL function is tested against. A string holding half a surrogate pair is rewritten in place
 * with U+FFFD (`canonicalAsStored`), so that what is bound is what was chained.
 */
export function chainRowsJs(previous: Buffer, values: unknown[], rows: number, stride: number, fromRow = 0): Buffer {
  const canonicals = new Array<string>(rows);
  for (let row = 0; row < rows; row++) {
    const at = (fromRow + row) * stride;
    const canonical = canonicalRecord(values.slice(at, at + CANONICAL_VALUES) as unknown as CanonicalValues);
    // Half a surrogate pair (rare) is chained, and bound, as UTF-8 will store it.
    canonicals[row] = canonical.includes('\\ud') ? canonicalAsStored(values, at) : canonical;
  }
  return chainBatchJs(previous, canonicals);
}

/** The columns of `activity_records` in canonical order, for SELECTs. */
export const CANONICAL_COLUMNS =
  'rid, when_ms, who, action, what, location, object_type, data_source, plan_name, plan_id, item_name, workstation, details';

export interface CanonicalRow {
  rid: string;
  when_ms: number;
  who: string;
  action: string;
  what: string;
  location: string;
  object_type: string;
  data_source: string;
  plan_name: string | null;
  plan_id: string | null;
  item_name: string | null;
  workstation: string | null;
  details: string | null;
}

export function rowValues(row: CanonicalRow): CanonicalValues {
  return [
    row.rid,
    row.when_ms,
    row.who,
    row.action,
    row.what,
    row.location,
    row.object_type,
    row.data_source,
    row.plan_name,
    row.plan_id,
    row.item_name,
    row.workstation,
    row.details,
  ];
}
