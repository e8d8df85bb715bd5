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

/**
 * The canonical record of the 13 values at `values[at…]` as SQLite will store them, rewriting
 * those values in place. Half a UTF-16 surrogate pair (JSON.stringify escapes it as `\udxxx`)
 * cannot exist in UTF-8 and is stored as U+FFFD; chaining the text as sent would make
 * `vigil verify`, re-reading the row, report a change.
 */
export function canonicalAsStored(values: unknown[], at: number): string {
  for (let column = at; column < at + 13; column++) {
    const value = values[column];
    if (typeof value === 'string') values[column] = Buffer.from(value, 'utf8').toString('utf8');
  }
  return canonicalRecord(values.slice(at, at + 13) as unknown as CanonicalValues);
}

/** Values in a canonical record. */
const CANONICAL_VALUES = 13;

/**
 * The chain values of `rows` records whose 13 canonical values each are at `values[row ×
 * stride …]` (the array an INSERT binds), from row `fromRow`, in one Buffer of rows × 32 bytes
 * from `previous`. Like `canonicalAsStored`, a string holding half a surrogate pair is
 * rewritten in place with U+FFFD, so that what is bound is what was chained. With the native
 * addon the canonical records are built there (`packRows`); without it, by JSON.stringify here.
 */
export function chainRows(previous: Buffer, values: unknown[], rows: number, stride: number, fromRow = 0): Buffer {
  const addon = chainAddon();
  if (!addon) return chainRowsJs(previous, values, rows, stride, fromRow);
  const { text, kinds, numbers } = packRows(values, rows, stride, fromRow);
  return addon.chainPacked(previous, text, kinds, numbers, rows);
}

/** The chain values of a batch being computed (`startChainRows`). */
export interface BatchChains {
  /** The batch's chain values, 32 bytes a row; those of rows [0, rows) are final once it returns. */
  upTo(rows: number): Buffer;
}

/**
 * `chainRows` of a batch, a slice at a time as the caller inserts it: `upTo(n)` chains the rows
 * before `n` not chained yet just before the caller binds them, into `out` (32 bytes a row).
 * Measured against packing the whole batch first and hashing it on a thread of the addon beside
 * the inserts (docs/benchmarks.md, "The chain's cost, in turns"): the same cost with the
 * pipeline saturated, without the thread; a slice's strings are read for the chain while they
 * are in the cache SQLite reads them from next.
 */
export function startChainRows(
  previous: Buffer,
  values: unknown[],
  rows: number,
  stride: number,
  out: Buffer,
): BatchChains {
  let ready = 0;
  let before = previous;
  return {
    upTo(needed: number): Buffer {
      if (needed > rows) throw new RangeError(`the batch has ${rows} rows, not ${needed}`);
      if (needed > ready) {
        const chains = chainRows(before, values, needed - ready, stride, ready);
        chains.copy(out, ready * CHAIN_BYTES);
        before = chains.subarray(chains.length - CHAIN_BYTES);
        ready = needed;
      }
      return out;
    },
  };
}

/** `chainRows` by JSON.stringify and node:crypto: the fallback, and the reference for the addon. */
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

/** How the addon's chainPacked reads a value when `kinds[i]` is not a string's length. */
const NULL_VALUE = -1;
const SAME_AS_ROW_BEFORE = -2;
const INTEGER = -3;
/** RAW_JSON - n: the next n characters of `text` are the value's JSON already. */
const RAW_JSON = -4;

/** String.prototype.isWellFormed (ES2024, in Node 20), not in the ES2023 library types. */
interface WellFormed {
  isWellFormed(): boolean;
}
const asStored = (value: string): string => Buffer.from(value, 'utf8').toString('utf8');

let kinds = new Int32Array(CANONICAL_VALUES * 32);
let numbers = new Float64Array(CANONICAL_VALUES * 32);

/**
 * The canonical values of rows [fromRow, fromRow + rows) as the addon takes them
 * (native/src/chain/chain_batch.cc): their strings joined in one `text`, and per value its kind
 * (a string's length, null, the same as the row before, an integer in `numbers`, or JSON text).
 * A value repeated from the row before (the host, the user, the action of a burst) is sent and
 * escaped once; the slice's first row repeats nothing, so that each slice stands alone.
 */
export function packRows(
  values: unknown[],
  rows: number,
  stride: number,
  fromRow = 0,
): { text: string; kinds: Int32Array; numbers: Float64Array } {
  if (kinds.length < rows * CANONICAL_VALUES) {
    kinds = new Int32Array(rows * CANONICAL_VALUES);
    numbers = new Float64Array(rows * CANONICAL_VALUES);
  }
  let text = '';
  for (let row = 0, i = 0; row < rows; row++) {
    const base = (fromRow + row) * stride;
    for (let column = 0; column < CANONICAL_VALUES; column++, i++) {
      const value = values[base + column];
      if (row > 0 && value === values[base - stride + column]) kinds[i] = SAME_AS_ROW_BEFORE;
      else if (typeof value === 'string') {
        // Half a surrogate pair: U+FFFD, as SQLite stores it (checked in V8; free for Latin-1 text).
        const stored = (value as unknown as WellFormed).isWellFormed()
          ? value
          : (values[base + column] = asStored(value));
        kinds[i] = stored.length;
        text += stored;
      } else if (value === null || value === undefined) kinds[i] = NULL_VALUE;
      else if (Number.isSafeInteger(value)) {
        kinds[i] = INTEGER;
        numbers[i] = value as number;
      } else if (typeof value === 'number' || typeof value === 'boolean') {
        const json = JSON.stringify(value);
        kinds[i] = RAW_JSON - json.length;
        text += json;
      } else throw new TypeError(`canonical value ${column} of row ${row} is not a string, a number or null`);
    }
  }
  return { text, kinds, numbers };
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
