/**
 * Checks one log file against its sidecar (docs/integrity.md, "Log files"). Both are fed in
 * pieces, so a file is read once, as a stream (zips included), and a file the agent is writing
 * can be followed: its newest lines are checked once their sidecar entry is there.
 *
 * The chain over the file's lines, cut at the sidecar's batch boundaries, must equal the batch
 * entries and every valid signed entry. Where the lines differ from what the sidecar recorded,
 * the line digests name them: the file's lines are matched to the recorded ones by digest; lines
 * matched in order are intact, matched lines out of order were reordered, and between two intact
 * lines the unmatched ones pair up as changed, the rest of the file's as inserted and the rest of
 * the recorded as removed; recorded lines missing at the end were truncated.
 */
import type crypto from 'node:crypto';
import { GENESIS } from '../store/record-chain.js';
import {
  digestsFromBase64,
  lineDigest,
  nextLinesChain,
  parseSidecarLine,
  signatureMessage,
  type SignatureEntry,
} from './log-sidecar-format.js';
import { verifySignature } from './signing-key.js';
import { consecutiveRuns, matchLines, range } from './line-match.js';
import type { Problem, ProblemKind, VerifiedRange } from './verify-report.js';

interface Batch {
  line: number;
  offset: number;
  chain: string;
}

export interface LogFileResult {
  problems: Problem[];
  verified: VerifiedRange[];
  /** Whole lines read from the file. */
  lines: number;
}

/** A digest standing for a line adopted without one: it matches any line. */
const UNKNOWN = -1;

export class LogFileCheck {
  private readonly expected: number[] = [];
  private readonly batches: Batch[] = [];
  private readonly signatures: SignatureEntry[] = [];
  private readonly problems: Problem[] = [];
  private sidecarRest = '';
  private sidecarLines = 0;
  private sawHeader = false;

  private readonly actual: number[] = [];
  private carry: Buffer | null = null;
  private pending: Buffer[] = [];
  private batchIndex = 0;
  private chain: Buffer = GENESIS;
  /** The chain recomputed from the file at each batch boundary reached (line → hex). */
  private readonly computed = new Map<number, string>();
  private firstChainMismatch: Batch | null = null;
  /** Lines a change was found among without knowing which (not reported as verified). */
  private unvouched: { from: number; to: number } | null = null;

  /**
   * @param name    the name problems carry (the zip's name for a zipped file)
   * @param logName the log file's own name, which its sidecar and signatures name
   */
  constructor(
    private readonly name: string,
    private readonly logName: string,
    private readonly publicKey: crypto.KeyObject | null,
  ) {}

  /** The log file's size the sidecar's entries so far account for. */
  get coveredOffset(): number {
    return this.batches.at(-1)?.offset ?? 0;
  }

  /** More of the sidecar (its whole lines are read; a torn last line waits for the rest). */
  addSidecarText(text: string): void {
    const parts = (this.sidecarRest + text).split('\n');
    this.sidecarRest = parts.pop()!;
    for (const part of parts) this.sidecarLine(part);
    this.completeBatches();
  }

  /** More of the log file, in order. The chunk is kept until its batch is complete: pass a fresh one. */
  addFileBytes(chunk: Buffer): void {
    let start = 0;
    let segment = 0;
    for (;;) {
      const end = chunk.indexOf(0x0a, start);
      if (end < 0) break;
      if (this.carry) {
        const line = Buffer.concat([this.carry, chunk.subarray(0, end)]);
        this.actual.push(lineDigest(line, 0, line.length));
        this.carry = null;
      } else this.actual.push(lineDigest(chunk, start, end));
      start = end + 1;
      const batch = this.batches[this.batchIndex];
      if (batch && batch.line === this.actual.length) {
        this.pending.push(chunk.subarray(segment, start));
        segment = start;
        this.closeBatch();
      }
    }
    if (segment < chunk.length) this.pending.push(chunk.subarray(segment));
    if (start < chunk.length)
      this.carry = this.carry ? Buffer.concat([this.carry, chunk.subarray(start)]) : chunk.subarray(start);
  }

  finish(): LogFileResult {
    if (this.sidecarRest.trim() !== '')
      this.problem('signature', this.sidecarLines + 1, 'the sidecar ends with a torn entry', true);
    if (!this.sawHeader) this.problem('signature', undefined, 'the sidecar has no header naming its log file', true);
    const valid = this.checkSignatures();
    const cut = this.carry !== null ? this.actual.length + 1 : null;
    const { intact, localized } = this.compareLines(cut);
    this.checkChains(valid, localized);
    return { problems: this.problems, verified: this.ranges(intact), lines: this.actual.length };
  }

  private sidecarLine(text: string): void {
    this.sidecarLines++;
    const entry = parseSidecarLine(text);
    if (entry === null) {
      this.problem('signature', undefined, `sidecar line ${this.sidecarLines} is not a well-formed entry`, true);
      return;
    }
    if (entry.kind === 'header') {
      this.sawHeader = true;
      if (entry.header.file !== this.logName)
        this.problem('signature', undefined, `the sidecar belongs to ${JSON.stringify(entry.header.file)}`, true);
      return;
    }
    if (entry.kind === 'signature') {
      this.signatures.push(entry.entry);
      return;
    }
    const { line, offset, chain, digests } = entry.entry;
    const before = this.batches.at(-1)?.line ?? 0;
    const count = line - before;
    const list = digests === undefined ? new Array<number>(count).fill(UNKNOWN) : digestsFromBase64(digests);
    if (count <= 0 || list.length !== count) {
      this.problem('signature', line, `sidecar line ${this.sidecarLines} does not follow the entry before it`, true);
      return;
    }
    for (const digest of list) this.expected.push(digest);
    this.batches.push({ line, offset, chain });
  }

  /** Batches whose lines were read before their entry arrived. */
  private completeBatches(): void {
    const batch = this.batches[this.batchIndex];
    if (!batch || batch.line > this.actual.length || this.pending.length === 0) return;
    // Re-cut what is pending at the boundaries now known.
    const bytes = Buffer.concat(this.pending);
    this.pending = [];
    const from = this.actual.length - this.linesIn(bytes);
    let start = 0;
    let line = from;
    for (let at = bytes.indexOf(0x0a); at >= 0; at = bytes.indexOf(0x0a, at + 1)) {
      line++;
      const next = this.batches[this.batchIndex];
      if (next && next.line === line) {
        this.pending.push(bytes.subarray(start, at + 1));
        start = at + 1;
        this.closeBatch();
      }
    }
    if (start < bytes.length) this.pending.push(bytes.subarray(start));
  }

  private linesIn(bytes: Buffer): number {
    let count = 0;
    for (let at = bytes.indexOf(0x0a); at >= 0; at = bytes.indexOf(0x0a, at + 1)) count++;
    return count;
  }

  private closeBatch(): void {
    const batch = this.batches[this.batchIndex++]!;
    const bytes = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
    this.pending = [];
    this.chain = nextLinesChain(this.chain, bytes);
    const hex = this.chain.toString('hex');
    this.computed.set(batch.line, hex);
    if (hex !== batch.chain && this.firstChainMismatch === null) this.firstChainMismatch = batch;
  }

  /** The signed entries whose signature verifies; the others are problems. */
  private checkSignatures(): SignatureEntry[] {
    const valid: SignatureEntry[] = [];
    for (const entry of this.signatures) {
      const message = signatureMessage(this.logName, entry.signed, entry.chain, entry.time);
      const good =
        this.publicKey !== null && verifySignature(this.publicKey, message, Buffer.from(entry.signature, 'base64'));
      if (good) valid.push(entry);
      else {
        this.problem(
          'signature',
          entry.signed,
          this.publicKey === null
            ? 'no public key to check the sidecar signature with'
            : `the sidecar signature of lines up to ${entry.signed} is not the agent's`,
          true,
        );
      }
    }
    return valid;
  }

  /**
   * Matches the file's lines to the recorded ones. Returns the file's line numbers found intact
   * and whether every difference was named at its line (else the chain has the last word).
   */
  private compareLines(cut: number | null): { intact: boolean[]; localized: boolean } {
    const expected = this.expected;
    const actual = this.actual;
    const same = (a: number, e: number): boolean => a === e || e === UNKNOWN;
    let prefix = 0;
    const shorter = Math.min(expected.length, actual.length);
    while (prefix < shorter && same(actual[prefix]!, expected[prefix]!)) prefix++;
    if (prefix === shorter) {
      const intact = new Array<boolean>(actual.length).fill(true);
      if (actual.length < expected.length || cut !== null) {
        const first = cut ?? actual.length + 1;
        this.problem(
          'truncated',
          first,
          `the file ends ${cut !== null ? 'inside' : 'before'} line ${first}; its sidecar records ${expected.length} lines`,
        );
      }
      if (actual.length > expected.length) {
        for (let j = expected.length; j < actual.length; j++) intact[j] = false;
        this.runs('inserted', range(expected.length, actual.length), 'not recorded in the sidecar');
      }
      return { intact, localized: false };
    }
    return { intact: this.diff(cut), localized: true };
  }

  private diff(cut: number | null): boolean[] {
    const expected = this.expected;
    const actual = this.actual;
    const { p, inOrder, reordered, missing } = matchLines(expected, actual);
    for (const j of reordered) {
      this.problem('reordered', j + 1, `line ${j + 1} was line ${p[j]! + 1} when written`);
    }
    let m = 0;
    let pendingA: number[] = [];
    const gap = (upTo: number, atEnd: boolean): void => {
      const gapE: number[] = [];
      while (m < missing.length && missing[m]! < upTo) gapE.push(missing[m++]!);
      const paired = Math.min(pendingA.length, gapE.length);
      for (let k = 0; k < paired; k++) {
        const j = pendingA[k]!;
        this.problem('changed', j + 1, `line ${j + 1} differs from line ${gapE[k]! + 1} as written`);
      }
      this.runs('inserted', pendingA.slice(paired), 'not written by the agent');
      const removed = gapE.slice(paired);
      if (atEnd && pendingA.length === 0 && removed.length > 0 && removed.at(-1) === expected.length - 1) {
        const first = cut ?? removed[0]! + 1;
        this.problem(
          'truncated',
          first,
          `the file ends before line ${removed[0]! + 1}; its sidecar records ${expected.length} lines`,
        );
      } else
        this.runs(
          'removed',
          removed.map((i) => i),
          'missing from the file',
          true,
        );
      pendingA = [];
    };
    for (let j = 0; j < actual.length; j++) {
      if (p[j]! < 0) pendingA.push(j);
      else if (inOrder[j]) gap(p[j]!, false);
    }
    gap(expected.length, true);
    const intact = new Array<boolean>(actual.length);
    const moved = new Set(reordered);
    for (let j = 0; j < actual.length; j++) intact[j] = inOrder[j] === 1 && !moved.has(j);
    return intact;
  }

  /** Chains recomputed from the file against the sidecar's entries and the signatures. */
  private checkChains(valid: SignatureEntry[], localized: boolean): void {
    if (localized) return; // lines differ: named at their lines already
    const mismatch = this.firstChainMismatch;
    if (mismatch) {
      const before = this.batches[this.batches.indexOf(mismatch) - 1]?.line ?? 0;
      this.problem(
        'changed',
        before + 1,
        `a line among lines ${before + 1}–${mismatch.line} no longer matches its chain`,
      );
      this.unvouched = { from: before + 1, to: mismatch.line };
      return;
    }
    for (const entry of valid) {
      const computed = this.computed.get(entry.signed);
      if (computed === undefined) {
        if (entry.signed > this.actual.length && !this.problems.some((p) => p.kind === 'truncated')) {
          this.problem(
            'truncated',
            this.actual.length + 1,
            `the signed entry names line ${entry.signed}, past the end`,
          );
        }
      } else if (computed !== entry.chain) {
        this.problem(
          'changed',
          entry.signed,
          `lines up to ${entry.signed} differ from the signed chain: they were changed and the sidecar recomputed`,
        );
        this.unvouched = { from: 1, to: entry.signed };
        return;
      }
    }
  }

  /** One problem per run of consecutive lines (0-based indexes, reported from 1). */
  private runs(kind: ProblemKind, indexes: number[], what: string, asWritten = false): void {
    for (const [from, to] of consecutiveRuns(indexes)) {
      const lines = from === to ? `line ${from + 1}` : `lines ${from + 1}–${to + 1}`;
      this.problem(kind, from + 1, `${lines}${asWritten ? ' as written' : ''}: ${what}`);
    }
  }

  private problem(kind: ProblemKind, line: number | undefined, detail: string, sidecar = false): void {
    this.problems.push({
      file: this.name,
      ...(line !== undefined ? { line } : {}),
      kind,
      detail: sidecar ? `${detail} (${this.logName}.sig)` : detail,
    });
  }

  private ranges(intact: boolean[]): VerifiedRange[] {
    if (this.unvouched)
      for (let j = this.unvouched.from - 1; j < Math.min(intact.length, this.unvouched.to); j++) intact[j] = false;
    const marked = intact.flatMap((ok, j) => (ok ? [j] : []));
    return consecutiveRuns(marked).map(([from, to]) => ({ file: this.name, from: from + 1, to: to + 1 }));
  }
}
