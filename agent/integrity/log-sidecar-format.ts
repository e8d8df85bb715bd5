/**
 * The sidecar of a log file (docs/integrity.md, "Log files"): `<log file>.sig`, UTF-8, one JSON
 * object a line, append-only.
 *
 * - first line, the header: `{"sidecar":"vigil-log","version":1,"file":"<log file name>"}`;
 * - one batch entry per batch of lines written: `{"line":n,"offset":o,"chain":hex,"digests":b64}`
 *   where `n` is the number of the batch's last line (lines count from 1, a header row
 *   included), `o` the file's size after it, `chain` = SHA-256(previous chain || the batch's
 *   lines as written, line feeds included) (record-chain.ts `nextChain`, from GENESIS), and
 *   `digests` the 6-byte digest of each of the batch's lines (below), base64;
 * - one signature entry at each checkpoint: `{"signed":n,"chain":hex,"time":ms,"signature":b64}`,
 *   the Ed25519 signature of `signatureMessage`.
 *
 * The chain and its signatures are what proves the file intact; the line digests only name the
 * lines that differ (which were changed, removed, inserted or moved), so a fast non-cryptographic
 * hash is enough for them.
 */

import crypto from 'node:crypto';

export const SIDECAR_SUFFIX = '.sig';
export const SIDECAR_VERSION = 1;

export interface SidecarHeader {
  sidecar: 'vigil-log';
  version: number;
  file: string;
}

export interface BatchEntry {
  line: number;
  offset: number;
  chain: string;
  /** Absent for lines the agent found without a sidecar and adopted as they were. */
  digests?: string;
}

export interface SignatureEntry {
  signed: number;
  chain: string;
  time: number;
  signature: string;
}

export function headerLine(logFileName: string): string {
  const header: SidecarHeader = { sidecar: 'vigil-log', version: SIDECAR_VERSION, file: logFileName };
  return JSON.stringify(header) + '\n';
}

/** What a sidecar signature covers (UTF-8). */
export function signatureMessage(logFileName: string, line: number, chainHex: string, timeMs: number): Buffer {
  return Buffer.from(`vigil-log-checkpoint\n${logFileName}\n${line}\n${chainHex}\n${timeMs}`, 'utf8');
}

/**
 * The chain step over lines as written: SHA-256(previous || bytes), which is record-chain.ts's
 * `nextChain(previous, text)` for the text those bytes encode, taken over the bytes themselves so
 * that a file's lines are hashed exactly as they are on disk and never decoded.
 */
export function nextLinesChain(previous: Buffer, bytes: Uint8Array): Buffer {
  return crypto.createHash('sha256').update(previous).update(bytes).digest();
}

export const DIGEST_BYTES = 6;

/**
 * The digest of the line `bytes[start, end)` (its line feed excluded) as a number below 2^48:
 * 32 bits of FNV-1a and 16 of a multiplicative hash, both over the line's bytes.
 */
export function lineDigest(bytes: Uint8Array, start: number, end: number): number {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9;
  for (let i = start; i < end; i++) {
    const c = bytes[i]!;
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return (a >>> 0) * 65536 + (b & 0xffff);
}

/** The digests of the lines of `bytes` (whole lines, each ending with a line feed), base64. */
export function encodeDigests(bytes: Uint8Array): string {
  const out: number[] = [];
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== 0x0a) continue;
    out.push(lineDigest(bytes, start, i));
    start = i + 1;
  }
  return digestsToBase64(out);
}

export function digestsToBase64(digests: readonly number[]): string {
  const buffer = Buffer.alloc(digests.length * DIGEST_BYTES);
  for (let i = 0; i < digests.length; i++) buffer.writeUIntBE(digests[i]!, i * DIGEST_BYTES, DIGEST_BYTES);
  return buffer.toString('base64');
}

export function digestsFromBase64(text: string): number[] {
  const buffer = Buffer.from(text, 'base64');
  const out = new Array<number>(Math.floor(buffer.length / DIGEST_BYTES));
  for (let i = 0; i < out.length; i++) out[i] = buffer.readUIntBE(i * DIGEST_BYTES, DIGEST_BYTES);
  return out;
}

export type SidecarEntry =
  | { kind: 'header'; header: SidecarHeader }
  | { kind: 'batch'; entry: BatchEntry }
  | { kind: 'signature'; entry: SignatureEntry };

/** One sidecar line, or null when it is not a well-formed entry. */
export function parseSidecarLine(line: string): SidecarEntry | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  const isHex = (x: unknown): x is string => typeof x === 'string' && /^[0-9a-f]{64}$/.test(x);
  const isCount = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) >= 0;
  if (v['sidecar'] === 'vigil-log' && typeof v['file'] === 'string' && typeof v['version'] === 'number') {
    return { kind: 'header', header: v as unknown as SidecarHeader };
  }
  if (isCount(v['line']) && isCount(v['offset']) && isHex(v['chain'])) {
    if (v['digests'] !== undefined && typeof v['digests'] !== 'string') return null;
    return { kind: 'batch', entry: v as unknown as BatchEntry };
  }
  if (isCount(v['signed']) && isHex(v['chain']) && isCount(v['time']) && typeof v['signature'] === 'string') {
    return { kind: 'signature', entry: v as unknown as SignatureEntry };
  }
  return null;
}

/** Lines (line feeds) in `bytes`: the line count a sidecar keeps, and `vigil verify` checks. */
export function countLines(bytes: Uint8Array): number {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let count = 0;
  for (let at = buffer.indexOf(0x0a); at >= 0; at = buffer.indexOf(0x0a, at + 1)) count++;
  return count;
}
