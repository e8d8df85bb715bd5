/**
 * One text value read from the fleet database as the bytes PostgreSQL sends, without turning it
 * into a JavaScript string: node-postgres decodes every value of a result as UTF-8 text, and for
 * a slice's JSON (about 400 KB for 1,000 records) that decoding, and encoding the string back to
 * bytes for the response, cost the member about 3 µs of CPU per record, twice what PostgreSQL
 * spends building it (docs/benchmarks.md "Fleet audit API"). `COPY (SELECT …) TO STDOUT` in the
 * binary format hands over the raw bytes (pg-copy-streams), a text value in the session's
 * encoding, UTF-8 as everywhere in the fleet's traffic (forward-copy.ts).
 *
 * COPY takes no parameters, so the statement's values are written into its text
 * (`inlineLiterals`): only integers, lists of integers and ISO days, checked here, so nothing a
 * client sent can reach the statement's text.
 */
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';

/** `PGCOPY\n\377\r\n\0`: the binary COPY format's signature (PostgreSQL's COPY documentation). */
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
/** Signature, flags field, header extension length. */
const HEADER_BYTES = SIGNATURE.length + 4 + 4;
const NULL_LENGTH = -1;

/** A statement value as a literal: an integer, a list of integers, or a day as `YYYY-MM-DD`. */
function literal(value: unknown, position: number): string {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (Array.isArray(value) && value.every((item) => typeof item === 'number' && Number.isSafeInteger(item))) {
    return `'{${value.join(',')}}'`;
  }
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value)) return `'${value}'`;
  throw new TypeError(`statement value $${position} is not an integer, a list of integers or a day`);
}

/** `text` with each `$n` replaced by `values[n - 1]` as a literal (see `literal`). */
export function inlineLiterals(text: string, values: readonly unknown[]): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => {
    const position = Number(n);
    if (position < 1 || position > values.length) throw new RangeError(`statement value $${position} is missing`);
    return literal(values[position - 1], position);
  });
}

/**
 * The first column of the one row `select` returns, as its bytes; null when it is NULL or there
 * is no row. `select` must return at most one row of one column.
 */
export async function copyOutValue(client: pg.PoolClient, select: string): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  for await (const chunk of client.query(copyTo(`COPY (${select}) TO STDOUT (FORMAT binary)`))) {
    chunks.push(chunk as Buffer);
  }
  return firstValue(Buffer.concat(chunks));
}

/** The first field of the first tuple of a binary COPY stream (null for NULL or no tuple). */
export function firstValue(copy: Buffer): Buffer | null {
  if (copy.length < HEADER_BYTES + 2 || !copy.subarray(0, SIGNATURE.length).equals(SIGNATURE)) {
    throw new Error('the fleet database sent no binary COPY data');
  }
  const tuple = HEADER_BYTES + copy.readUInt32BE(SIGNATURE.length + 4);
  const fields = copy.readInt16BE(tuple);
  if (fields === -1) return null; // the trailer: no row
  if (fields !== 1) throw new Error(`the fleet database sent ${fields} columns, not one`);
  const length = copy.readInt32BE(tuple + 2);
  if (length === NULL_LENGTH) return null;
  const start = tuple + 6;
  if (start + length > copy.length) throw new Error('the fleet database sent a truncated COPY value');
  return copy.subarray(start, start + length);
}
