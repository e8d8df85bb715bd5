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
import path from 'node:path';
import type crypto from 'node:crypto';
import Database from 'better-sqlite3';
import { CANONICAL_COLUMNS, GENESIS, nextChain } from '../store/record-chain.js';
import { checkpointMessage, type CheckpointRow } from './chain-checkpoints.js';
import { verifySignature } from './signing-key.js';
import type { Problem, VerifiedRange } from './verify-report.js';

interface Broken {
  /** Position in seq order (0-based) among the rows read. */
  at: number;
  seq: number;
  rid: string;
  canonical: string;
  chain: Buffer;
  predecessorChain: Buffer;
  gapBefore: boolean;
}

/** More broken links than this are reported without working out their kind. */
const CLASSIFY_LIMIT = 10_000;

export interface StoreCheck {
  problems: Problem[];
  verified: VerifiedRange[];
  records: number;
}

export function verifyStore(file: string, publicKey: crypto.KeyObject | null): StoreCheck {
  const name = path.basename(file);
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    // One read transaction: records and checkpoints from the same snapshot.
    return db.transaction(() => check(db, name, publicKey))();
  } finally {
    db.close();
  }
}

function check(db: Database.Database, name: string, publicKey: crypto.KeyObject | null): StoreCheck {
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
  const retentions = new Map(signed.filter((cp) => cp.kind === 'retention').map((cp) => [cp.seq, cp.chain]));
  const heads = new Map(signed.filter((cp) => cp.kind === 'head').map((cp) => [cp.seq, cp.chain]));

  // Raw rows: the 13 canonical columns, then seq and chain; cutting the array back to the 13
  // makes it the canonical value list itself (record-chain.ts).
  const rows = db.prepare(`SELECT ${CANONICAL_COLUMNS}, seq, chain FROM activity_records ORDER BY seq`).raw();
  const broken: Broken[] = [];
  const seqs: number[] = [];
  let previous: Buffer = GENESIS;
  let previousSeq = 0;
  let at = 0;
  for (const row of rows.iterate() as IterableIterator<unknown[]>) {
    const seq = row[13] as number;
    const chain = (row[14] as Buffer | null) ?? Buffer.alloc(0);
    row.length = 13;
    const canonical = JSON.stringify(row);
    if (at === 0 && seq !== 1) {
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
        previous = chain; // judge the rest on their own
      }
    }
    if (at > 0 || previous !== chain) {
      if (!nextChain(previous, canonical).equals(chain)) {
        const entry = {
          at,
          seq,
          rid: row[0] as string,
          canonical: broken.length < CLASSIFY_LIMIT ? canonical : '',
          chain,
          predecessorChain: previous,
          gapBefore: at > 0 && seq !== previousSeq + 1,
        };
        broken.push(entry);
      }
    }
    const head = heads.get(seq);
    if (head) {
      if (!head.equals(chain)) {
        problems.push({
          file: name,
          rid: row[0] as string,
          line: seq,
          kind: 'changed',
          detail: `record seq ${seq} differs from the signed checkpoint: records up to it were changed and the chain recomputed`,
        });
      }
    }
    seqs.push(seq);
    previous = chain;
    previousSeq = seq;
    at++;
  }
  const newest = at > 0 ? seqs[at - 1]! : 0;
  const oldest = at > 0 ? seqs[0]! : 0;
  const present = heads.size > 0 ? new Set(seqs) : new Set<number>();
  for (const [seq] of heads) {
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
  return { problems, verified: intactRanges(name, seqs, problems), records: at };
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
function intactRanges(name: string, seqs: number[], problems: Problem[]): VerifiedRange[] {
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
