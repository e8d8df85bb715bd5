/**
 * The link check of `vigil verify` over one `seq` range of the audit database (verify-store.ts
 * splits the records into ranges and runs them in worker threads, verify-range-worker.ts). A
 * link needs only the stored chain of the record before it, so the ranges are independent: the
 * first record of a range links to the stored predecessor just before the range.
 *
 * Rows are read a window of `seq` at a time and hashed a window at a time (chainBatch): when the
 * chain computed from the window's first predecessor equals the stored chains, every link in it
 * holds. First with the window's canonical records and chains built by SQLite in one row
 * (json_array, group_concat) and hashed by the native addon; a window that does not pass that
 * way is read raw and checked again, record by record where the links break.
 */
import type Database from 'better-sqlite3';
import { CANONICAL_COLUMNS, CHAIN_BYTES, GENESIS, chainBatch, chainJoined, nextChain } from '../store/record-chain.js';
import type { Problem } from './verify-report.js';

/** A record whose stored chain is not SHA-256(stored predecessor chain || its canonical record). */
export interface Broken {
  /** Position in seq order (0-based) among the rows read (within its range until merged). */
  at: number;
  seq: number;
  rid: string;
  canonical: string;
  chain: Buffer;
  predecessorChain: Buffer;
  gapBefore: boolean;
}

export interface RangeJob {
  file: string;
  /** The database file's name, for problems. */
  name: string;
  from: number;
  to: number;
  /** Signed retention checkpoints: first kept seq → chain of the last deleted record (hex). */
  retentions: Array<[number, string]>;
  /** Signed head checkpoints: seq → its chain (hex). */
  heads: Array<[number, string]>;
}

export interface RangeResult {
  /** The seqs read, in order. */
  seqs: Float64Array;
  broken: Broken[];
  /** Problems named while reading, in seq order (a missing start, a record unlike its checkpoint). */
  problems: Problem[];
}

/** More broken links than this are reported without working out their kind. */
export const CLASSIFY_LIMIT = 10_000;

/** `seq` values read per SELECT and hashed per chainBatch call. */
const WINDOW = 4096;

export function checkRange(db: Database.Database, job: RangeJob): RangeResult {
  const { name } = job;
  const retentions = new Map(job.retentions.map(([seq, hex]) => [seq, Buffer.from(hex, 'hex')]));
  const heads = new Map(job.heads.map(([seq, hex]) => [seq, Buffer.from(hex, 'hex')]));
  const problems: Problem[] = [];
  const broken: Broken[] = [];
  let seqs = new Float64Array(Math.min(job.to - job.from + 1, 1 << 16));
  let count = 0;

  // Raw rows: the 13 canonical columns, then seq and chain; cutting the array back to the 13
  // makes it the canonical value list itself (record-chain.ts).
  const window = db
    .prepare(`SELECT ${CANONICAL_COLUMNS}, seq, chain FROM activity_records WHERE seq >= ? AND seq <= ? ORDER BY seq`)
    .raw();
  // The fast path: one row per window, built by SQLite: how many records, their seq span, their
  // canonical records (json_array, line-feed separated) and their stored chains, each as one
  // blob. No JavaScript value per record; the addon splits and hashes the text (chainJoined).
  // No ORDER BY: the aggregate sees the rows in the order of the seq (rowid) range scan, and an
  // ORDER BY made SQLite sort them again (twice the cost). Rows taken in another order could
  // only fail the window, never pass it: the window is then read again in order.
  const windowAsOne = db
    .prepare(
      `SELECT count(*), min(seq), max(seq),
              CAST(group_concat(json_array(${CANONICAL_COLUMNS}), char(10)) AS BLOB),
              CAST(group_concat(chain, '') AS BLOB)
         FROM activity_records WHERE seq >= ? AND seq <= ?`,
    )
    .raw();
  const ridOf = db.prepare('SELECT rid FROM activity_records WHERE seq = ?').pluck();
  const before = db
    .prepare('SELECT seq, chain FROM activity_records WHERE seq < ? ORDER BY seq DESC LIMIT 1')
    .raw()
    .get(job.from) as [number, Buffer | null] | undefined;
  let previous: Buffer = before ? (before[1] ?? Buffer.alloc(0)) : GENESIS;
  let previousSeq = before ? before[0] : 0;
  let first = before === undefined; // the oldest record of the store

  const report = (
    at: number,
    seq: number,
    row: unknown[],
    canonical: string,
    chain: Buffer,
    predecessor: Buffer,
  ): void => {
    broken.push({
      at,
      seq,
      rid: row[0] as string,
      canonical: broken.length < CLASSIFY_LIMIT ? canonical : '',
      chain,
      predecessorChain: predecessor,
      gapBefore: at > 0 || !first ? seq !== previousSeq + 1 : false,
    });
  };

  /**
   * A window whose canonical records as SQLite writes them chain to exactly the stored values:
   * every link in it holds. Equal text decodes to equal values, and JSON.stringify of equal
   * values is equal text, so this never passes a window the JavaScript encoding would fail; any
   * window it does not pass (a broken link, a gap in seq, a chain missing or not 32 bytes, an
   * encoding SQLite writes differently, a value json_array refuses) is checked again below from
   * the raw values.
   */
  const intactBySqlite = (low: number, high: number): boolean => {
    let window: [number, number | null, number | null, Buffer | null, Buffer | null];
    try {
      window = windowAsOne.get(low, high) as typeof window;
    } catch {
      return false;
    }
    const [rows, first, last, text, stored] = window;
    if (rows === 0 || first === null || last === null || text === null || stored === null) return rows === 0;
    if (last - first + 1 !== rows || stored.length !== rows * CHAIN_BYTES) return false;
    const computed = chainJoined(previous, text, rows);
    if (computed === null || !computed.equals(stored)) return false;
    if (count + rows > seqs.length) seqs = grow(seqs, job.to - job.from + 1, count + rows);
    for (let i = 0; i < rows; i++) {
      const seq = first + i;
      if (heads.size > 0 && heads.has(seq)) {
        const chain = stored.subarray(i * CHAIN_BYTES, (i + 1) * CHAIN_BYTES);
        checkHead(heads, name, seq, () => ridOf.get(seq) as string, chain, problems);
      }
      seqs[count++] = seq;
    }
    previous = Buffer.from(stored.subarray((rows - 1) * CHAIN_BYTES));
    previousSeq = last;
    return true;
  };

  for (let low = job.from; low <= job.to; low += WINDOW) {
    const high = Math.min(low + WINDOW - 1, job.to);
    if (!first && intactBySqlite(low, high)) continue;
    const rows = window.all(low, high) as unknown[][];
    if (rows.length === 0) continue;
    const canonicals = new Array<string>(rows.length);
    const chains = new Array<Buffer>(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      chains[i] = (row[14] as Buffer | null) ?? Buffer.alloc(0);
      const seq = row[13] as number;
      row.length = 13;
      canonicals[i] = JSON.stringify(row);
      row[13] = seq;
    }
    let start = 0;
    if (first) {
      // The oldest record links to GENESIS (seq 1) or to a signed retention deletion before it.
      const row = rows[0]!;
      const seq = row[13] as number;
      if (seq !== 1) {
        const kept = retentions.get(seq);
        if (kept) previous = kept;
        else {
          problems.push({
            file: name,
            rid: row[0] as string,
            line: seq,
            kind: 'removed',
            detail: `records before seq ${seq} are missing and no signed retention deletion accounts for them`,
          });
          previous = chains[0]!; // judge the rest on their own
        }
      }
      if (previous !== chains[0] && !nextChain(previous, canonicals[0]!).equals(chains[0]!)) {
        report(0, seq, row, canonicals[0]!, chains[0]!, previous);
      }
      first = false;
      previous = chains[0]!;
      previousSeq = seq;
      start = 1;
      if (heads.size > 0) checkHead(heads, name, seq, () => row[0] as string, chains[0]!, problems);
      seqs[count++] = seq;
    }
    const computed = chainBatch(previous, start === 0 ? canonicals : canonicals.slice(start));
    const intact = computed.equals(Buffer.concat(start === 0 ? chains : chains.slice(start)));
    for (let i = start; i < rows.length; i++) {
      const row = rows[i]!;
      const seq = row[13] as number;
      const chain = chains[i]!;
      if (!intact && !nextChain(previous, canonicals[i]!).equals(chain)) {
        report(count, seq, row, canonicals[i]!, chain, previous);
      }
      if (heads.size > 0) checkHead(heads, name, seq, () => row[0] as string, chain, problems);
      if (count === seqs.length) seqs = grow(seqs, job.to - job.from + 1);
      seqs[count++] = seq;
      previous = chain;
      previousSeq = seq;
    }
  }
  return { seqs: seqs.subarray(0, count), broken, problems };
}

function grow(seqs: Float64Array<ArrayBuffer>, limit: number, needed = 0): Float64Array<ArrayBuffer> {
  const grown = new Float64Array(Math.min(Math.max(seqs.length * 2, needed), limit));
  grown.set(seqs);
  return grown;
}

function checkHead(
  heads: Map<number, Buffer>,
  name: string,
  seq: number,
  rid: () => string,
  chain: Buffer,
  problems: Problem[],
): void {
  const head = heads.get(seq);
  if (head && !head.equals(chain)) {
    problems.push({
      file: name,
      rid: rid(),
      line: seq,
      kind: 'changed',
      detail: `record seq ${seq} differs from the signed checkpoint: records up to it were changed and the chain recomputed`,
    });
  }
}
