/**
 * The link check of `vigil verify` over one `seq` range of the audit database (verify-store.ts
 * splits the records into ranges and runs them in worker threads, verify-range-worker.ts). A
 * link needs only the stored chain of the record before it, so the ranges are independent: the
 * first record of a range links to the stored predecessor just before the range.
 *
 * Rows are read raw, a window of `seq` at a time, and hashed a window at a time (chainBatch):
 * when the chain computed from the window's first predecessor equals the stored chains, every
 * link in it holds; only a window where they differ is checked record by record.
 */
import type Database from 'better-sqlite3';
import { CANONICAL_COLUMNS, GENESIS, chainBatch, nextChain } from '../store/record-chain.js';
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

  for (let low = job.from; low <= job.to; low += WINDOW) {
    const rows = window.all(low, Math.min(low + WINDOW - 1, job.to)) as unknown[][];
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
      if (heads.size > 0) checkHead(heads, name, row, chains[0]!, problems);
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
      if (heads.size > 0) checkHead(heads, name, row, chain, problems);
      if (count === seqs.length) {
        const grown = new Float64Array(Math.min(seqs.length * 2, job.to - job.from + 1));
        grown.set(seqs);
        seqs = grown;
      }
      seqs[count++] = seq;
      previous = chain;
      previousSeq = seq;
    }
  }
  return { seqs: seqs.subarray(0, count), broken, problems };
}

function checkHead(heads: Map<number, Buffer>, name: string, row: unknown[], chain: Buffer, problems: Problem[]): void {
  const seq = row[13] as number;
  const head = heads.get(seq);
  if (head && !head.equals(chain)) {
    problems.push({
      file: name,
      rid: row[0] as string,
      line: seq,
      kind: 'changed',
      detail: `record seq ${seq} differs from the signed checkpoint: records up to it were changed and the chain recomputed`,
    });
  }
}
