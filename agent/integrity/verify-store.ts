/**
 * Checks the audit database against its hash chain and signed checkpoints (docs/integrity.md).
 * Opens the file read-only, so it runs while the agent writes (WAL readers never block the
 * writer) and on a copy taken elsewhere.
 *
 * A record "links" when SHA-256(its stored predecessor's chain || canonical record) equals its
 * own stored chain. Where links break, the kind is worked out from what does link:
 * - changed:   the record links to nothing, and its successor links to it (stored chain kept);
 * - inserted:  the record links to nothing, and its successor links to the record before it;
 * - removed:   a gap in `seq` before a record that links to nothing;
 * - reordered: the record links to a record other than the one now before it;
 * - truncated: a signed checkpoint names a record past the newest one;
 * - signature: a checkpoint's signature does not verify with the public key.
 */
import os from 'node:os';
import path from 'node:path';
import type crypto from 'node:crypto';
import Database from 'better-sqlite3';
import { nextChain } from '../store/record-chain.js';
import { WorkerChannel } from '../util/worker-channel.js';
import { checkpointMessage, type CheckpointRow } from './chain-checkpoints.js';
import { verifySignature } from './signing-key.js';
import { checkRange, type Broken, type RangeJob, type RangeResult } from './verify-range.js';
import type { Problem, VerifiedRange } from './verify-report.js';

export interface StoreCheck {
  problems: Problem[];
  verified: VerifiedRange[];
  records: number;
}

export interface VerifyStoreOptions {
  /**
   * Worker threads the records are split over, one `seq` range each (verify-range.ts), this
   * thread waiting. Default: one fewer than the cores (up to MAX_WORKERS), in smaller ranges
   * taken in turn, this thread taking ranges too; none (this thread alone) below PARALLEL_FROM
   * records or on one core.
   */
  workers?: number;
  /**
   * Work this thread does meanwhile (the log files, log-verification.ts), settled when it is
   * done: the records are checked as by default (with `workers` threads if given, at least
   * one), this thread taking its share of the ranges once its own work is done. So the cores
   * share the whole work evenly.
   */
  alongside?: Promise<unknown>;
}

const MAX_WORKERS = 8;
/** Below this many records starting threads costs more than it saves. */
const PARALLEL_FROM = 50_000;
/** Ranges per thread when threads take them in turn: the last one taken delays the end by at most this share. */
const RANGES_PER_THREAD = 6;
/** Ranges each worker holds at a time, so that it never waits for this thread to hand it the next one. */
const IN_FLIGHT = 2;

export async function verifyStore(
  file: string,
  publicKey: crypto.KeyObject | null,
  options: VerifyStoreOptions = {},
): Promise<StoreCheck> {
  const name = path.basename(file);
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    // One read transaction: the checkpoints and the records from the same snapshot.
    db.prepare('BEGIN').run();
    const plan = planCheck(db, file, name, publicKey);
    const cores = Math.min(os.availableParallelism(), MAX_WORKERS);
    const { alongside } = options;
    const workers = options.workers ?? cores - 1;
    const thisThreadAlone =
      options.workers === undefined
        ? plan.records < PARALLEL_FROM || (workers < 1 && !alongside)
        : workers <= 1 && !alongside;
    let results: RangeResult[];
    if (plan.jobs.length === 0 || thisThreadAlone) {
      results = plan.jobs.map((job) => checkRange(db, job));
    } else if (options.workers !== undefined && !alongside) {
      results = await inWorkers(db, splitJob(plan.jobs[0]!, workers), workers, null);
    } else {
      const threads = Math.max(1, workers);
      const ranges = splitJob(plan.jobs[0]!, (threads + 1) * RANGES_PER_THREAD);
      results = await inWorkers(db, ranges, threads, alongside ?? Promise.resolve());
    }
    db.prepare('COMMIT').run();
    return finish(name, plan, results);
  } finally {
    db.close();
  }
}

interface Plan {
  problems: Problem[];
  heads: Map<number, Buffer>;
  jobs: RangeJob[];
  from: number;
  to: number;
  records: number;
}

function planCheck(db: Database.Database, file: string, name: string, publicKey: crypto.KeyObject | null): Plan {
  const problems: Problem[] = [];
  const checkpoints = db.prepare('SELECT * FROM chain_checkpoints ORDER BY id').all() as CheckpointRow[];
  const signed = checkpoints.filter((cp) => {
    const good =
      publicKey !== null &&
      verifySignature(publicKey, checkpointMessage(cp.kind, cp.seq, cp.chain, cp.time_ms), cp.signature);
    if (!good) {
      problems.push({
        file: name,
        line: cp.seq,
        kind: 'signature',
        detail:
          publicKey === null
            ? `no public key to check checkpoint ${cp.id} with`
            : `checkpoint ${cp.id} (${cp.kind} at seq ${cp.seq}) is not signed by this agent's key`,
      });
    }
    return good;
  });
  const hexes = (kind: string): Array<[number, string]> =>
    signed.filter((cp) => cp.kind === kind).map((cp) => [cp.seq, cp.chain.toString('hex')]);
  const span = db.prepare('SELECT min(seq) AS low, max(seq) AS high, count(*) AS n FROM activity_records').get() as {
    low: number | null;
    high: number | null;
    n: number;
  };
  const heads = new Map(hexes('head').map(([seq, hex]) => [seq, Buffer.from(hex, 'hex')]));
  if (span.low === null || span.high === null) return { problems, heads, jobs: [], from: 0, to: 0, records: 0 };
  const job: RangeJob = {
    file,
    name,
    from: span.low,
    to: span.high,
    retentions: hexes('retention'),
    heads: hexes('head'),
  };
  return { problems, heads, jobs: [job], from: span.low, to: span.high, records: span.n };
}

/** `count` consecutive ranges of about equal width covering the job's. */
function splitJob(job: RangeJob, count: number): RangeJob[] {
  const width = Math.ceil((job.to - job.from + 1) / count);
  const jobs: RangeJob[] = [];
  for (let from = job.from; from <= job.to; from += width)
    jobs.push({ ...job, from, to: Math.min(job.to, from + width - 1) });
  return jobs;
}

/**
 * Runs the ranges in `workers` worker threads, each taking the next range when it is done with
 * one; with `helpAfter`, this thread takes ranges too once that settles. Each thread reads
 * through its own connection, so its snapshot can be newer than this one's: records appended
 * since lie past the ranges, but a retention run in between deletes some. A range whose records
 * the thread did not see as this snapshot has them (first seq, count) is checked again here.
 */
async function inWorkers(
  db: Database.Database,
  jobs: RangeJob[],
  workers: number,
  helpAfter: Promise<unknown> | null,
): Promise<RangeResult[]> {
  const channels = Array.from(
    { length: Math.min(workers, jobs.length) },
    () =>
      new WorkerChannel<RangeJob, RangeResult>({
        callerUrl: import.meta.url,
        worker: 'verify-range-worker',
        failure: (reason) => new Error(`a verify thread: ${reason}`),
      }),
  );
  const results = new Array<RangeResult>(jobs.length);
  const checkedHere = new Set<number>();
  let next = 0;
  const take = (): number | null => (next < jobs.length ? next++ : null);
  const inThread = async (channel: WorkerChannel<RangeJob, RangeResult>): Promise<void> => {
    for (let i = take(); i !== null; i = take()) results[i] = await channel.request(jobs[i]!);
  };
  const here = async (): Promise<void> => {
    if (helpAfter === null) return;
    await helpAfter.then(
      () => undefined,
      () => undefined,
    );
    for (let i = take(); i !== null; i = take()) {
      results[i] = checkRange(db, jobs[i]!);
      checkedHere.add(i);
      // Let the workers' replies in, so that they are handed their next range.
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  try {
    const loops = channels.flatMap((channel) => Array.from({ length: IN_FLIGHT }, () => inThread(channel)));
    await Promise.all([...loops, here()]);
  } finally {
    await Promise.all(channels.map((channel) => channel.close()));
  }
  const sameAsHere = db.prepare('SELECT min(seq), count(*) FROM activity_records WHERE seq >= ? AND seq <= ?').raw();
  return results.map((result, i) => {
    if (checkedHere.has(i)) return result;
    const [first, count] = sameAsHere.get(jobs[i]!.from, jobs[i]!.to) as [number | null, number];
    const same = count === result.seqs.length && (count === 0 || first === result.seqs[0]);
    return same ? result : checkRange(db, jobs[i]!);
  });
}

/** A Buffer again: structured cloning from a worker turns Buffers into plain Uint8Arrays. */
const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

function finish(name: string, plan: Plan, results: RangeResult[]): StoreCheck {
  const problems = [...plan.problems];
  const broken: Broken[] = [];
  let records = 0;
  for (const result of results) {
    for (const b of result.broken) {
      broken.push({
        ...b,
        at: b.at + records,
        chain: asBuffer(b.chain),
        predecessorChain: asBuffer(b.predecessorChain),
      });
    }
    problems.push(...result.problems);
    records += result.seqs.length;
  }
  const seqs = new Float64Array(records);
  let offset = 0;
  for (const result of results) {
    seqs.set(result.seqs, offset);
    offset += result.seqs.length;
  }
  const newest = records > 0 ? seqs[records - 1]! : 0;
  const oldest = records > 0 ? seqs[0]! : 0;
  const present = plan.heads.size > 0 ? new Set(seqs) : new Set<number>();
  for (const [seq] of plan.heads) {
    if (seq > newest) {
      problems.push({
        file: name,
        line: seq,
        kind: 'truncated',
        detail: `the signed checkpoint names record seq ${seq}, past the newest record (${newest})`,
      });
    } else if (seq >= oldest && !present.has(seq)) {
      problems.push({
        file: name,
        line: seq,
        kind: 'removed',
        detail: `the checkpointed record seq ${seq} is missing`,
      });
    }
  }
  problems.push(...classify(broken));
  return { problems, verified: intactRanges(name, seqs, problems), records };
}

function classify(broken: Broken[]): Problem[] {
  const byAt = new Map(broken.map((b) => [b.at, b]));
  const candidates = new Map<string, number>();
  for (const b of broken) {
    candidates.set(b.predecessorChain.toString('hex'), b.at - 1);
    candidates.set(b.chain.toString('hex'), b.at);
  }
  const linksTo = (b: Broken): number[] => {
    if (b.canonical === '') return [];
    const found: number[] = [];
    for (const [hex, at] of candidates) {
      if (at !== b.at - 1 && nextChain(Buffer.from(hex, 'hex'), b.canonical).equals(b.chain)) found.push(at);
    }
    return found;
  };
  const links = new Map(broken.map((b) => [b.at, linksTo(b)]));
  const problems: Problem[] = [];
  const inserted = new Set<number>();
  for (const b of broken) {
    const own = links.get(b.at)!;
    const next = byAt.get(b.at + 1);
    const report = (kind: Problem['kind'], detail: string): void => {
      problems.push({ rid: b.rid, line: b.seq, kind, detail });
    };
    if (own.length === 0) {
      if (next && links.get(next.at)!.includes(b.at - 1)) {
        inserted.add(b.at);
        report('inserted', `record seq ${b.seq} was not written by the agent`);
      } else if (b.gapBefore) report('removed', `records just before seq ${b.seq} were deleted`);
      else report('changed', `record seq ${b.seq} no longer matches its chain value`);
    } else if (own.includes(b.at - 2) && inserted.has(b.at - 1)) {
      continue; // follows an inserted record; itself intact
    } else report('reordered', `record seq ${b.seq} was moved from its place in the chain`);
  }
  return problems;
}

/** Runs of records with no problem named at them. */
function intactRanges(name: string, seqs: Float64Array, problems: Problem[]): VerifiedRange[] {
  if (problems.some((p) => p.line === undefined)) return [];
  const bad = new Set(problems.filter((p) => p.kind !== 'truncated').map((p) => p.line));
  const ranges: VerifiedRange[] = [];
  let start: number | null = null;
  let last = 0;
  for (const seq of seqs) {
    if (bad.has(seq)) {
      if (start !== null) ranges.push({ file: name, from: start, to: last });
      start = null;
    } else {
      start ??= seq;
      last = seq;
    }
  }
  if (start !== null) ranges.push({ file: name, from: start, to: last });
  return ranges;
}
