/**
 * The line digests of a log file as `vigil verify --logs` reads it (docs/integrity.md, "Log
 * files"): a chunk of the file at a time, by the chain addon when it is built (one call per
 * chunk, native/src/chain/log_digest.cc) and by `lineDigest` in JavaScript otherwise, with the
 * same values. Digests are kept in a growing Float64Array: a million lines are 8 MB, and no
 * JavaScript value per line.
 */
import { chainAddon, type ChainAddon } from '../store/chain-addon.js';
import { DIGEST_BYTES, lineDigest } from './log-sidecar-format.js';

/** A list of line digests (numbers below 2^48) that grows at its end. */
export class DigestList {
  private values = new Float64Array(1024);
  length = 0;

  at(index: number): number {
    return this.values[index]!;
  }

  push(digest: number): void {
    this.reserve(1);
    this.values[this.length++] = digest;
  }

  /** Appends `count` copies of `digest`. */
  fill(digest: number, count: number): void {
    this.reserve(count);
    this.values.fill(digest, this.length, this.length + count);
    this.length += count;
  }

  /** Appends the digests a sidecar entry holds (6 bytes each, big-endian). */
  pushEncoded(bytes: Uint8Array): void {
    const count = Math.floor(bytes.length / DIGEST_BYTES);
    this.reserve(count);
    const values = this.values;
    for (let i = 0, at = 0; i < count; i++, at += DIGEST_BYTES) {
      const high = (bytes[at]! << 8) | bytes[at + 1]!;
      const low = ((bytes[at + 2]! << 24) | (bytes[at + 3]! << 16) | (bytes[at + 4]! << 8) | bytes[at + 5]!) >>> 0;
      values[this.length + i] = high * 0x1_0000_0000 + low;
    }
    this.length += count;
  }

  /** The digests, as a view (valid until the next append). */
  view(): Float64Array {
    return this.values.subarray(0, this.length);
  }

  /** Room for `more` at the end; the space it gives is written by the caller. */
  reserve(more: number): Float64Array {
    if (this.length + more > this.values.length) {
      const grown = new Float64Array(Math.max(this.values.length * 2, this.length + more));
      grown.set(this.values.subarray(0, this.length));
      this.values = grown;
    }
    return this.values;
  }
}

/** Lines scanned per call: the offsets just past their line feeds are returned in this view. */
const SCAN_LINES = 16_384;
const ends = new Float64Array(SCAN_LINES);

export type NativeLineDigests = NonNullable<ChainAddon['lineDigests']>;

/**
 * Scans `bytes` from `from` for whole lines (each ending with a line feed), at most SCAN_LINES:
 * appends their digests to `list` and returns how many, with the offset just past each one's line
 * feed in `ends` (shared: read it before the next call). Bytes after the last line feed are left.
 * `native`: the addon's function, or null for the JavaScript definition (the default: the addon
 * when it is built).
 */
export function scanLines(
  bytes: Uint8Array,
  from: number,
  list: DigestList,
  native: NativeLineDigests | null = chainAddon()?.lineDigests ?? null,
): { count: number; ends: Float64Array } {
  const values = list.reserve(SCAN_LINES);
  const count = native
    ? native(bytes, from, values.subarray(list.length, list.length + SCAN_LINES), ends)
    : scanInJavaScript(bytes, from, values, list.length);
  list.length += count;
  return { count, ends };
}

function scanInJavaScript(bytes: Uint8Array, from: number, values: Float64Array, at: number): number {
  let count = 0;
  let start = from;
  while (count < SCAN_LINES) {
    const end = bytes.indexOf(0x0a, start);
    if (end < 0) break;
    values[at + count] = lineDigest(bytes, start, end);
    ends[count++] = end + 1;
    start = end + 1;
  }
  return count;
}

/** Reused by every batch the log writer encodes: it grows once, to the largest batch. */
const encodeScratch = new DigestList();

/**
 * The digests of the lines of `bytes` (whole lines, each ending with a line feed) as a sidecar
 * entry holds them (base64 of 6 bytes each, big-endian): log-sidecar-format.ts `encodeDigests`,
 * computed by the addon when it is built, as the log writer does for every batch.
 */
export function encodeLineDigests(
  bytes: Uint8Array,
  native: NativeLineDigests | null = chainAddon()?.lineDigests ?? null,
): string {
  const list = encodeScratch;
  list.length = 0;
  for (let from = 0; ;) {
    const { count, ends: lineEnds } = scanLines(bytes, from, list, native);
    if (count === 0) break;
    from = lineEnds[count - 1]!;
  }
  const out = Buffer.allocUnsafe(list.length * DIGEST_BYTES);
  const digests = list.view();
  for (let i = 0, at = 0; i < digests.length; i++, at += DIGEST_BYTES) {
    const digest = digests[i]!;
    const high = Math.floor(digest / 0x1_0000_0000);
    out.writeUInt16BE(high, at);
    out.writeUInt32BE(digest - high * 0x1_0000_0000, at + 2);
  }
  return out.toString('base64');
}
