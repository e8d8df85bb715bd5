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
import crypto from 'node:crypto';
import { GENESIS } from '../store/record-chain.js';
import { DigestList, scanLines } from './line-digests.js';
import {
  countLines,
  DIGEST_BYTES,
  lineDigest,
  parseSidecarLine,
  signatureMessage,
  type SignatureEntry,
} from './log-sidecar-format.js';
import { verifySignature } from './signing-key.js';
import { compareLines } from './line-differences.js';
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
  private readonly expected = new DigestList();
  private readonly batches: Batch[] = [];
  private readonly signatures: SignatureEntry[] = [];
  private readonly problems: Problem[] = [];
  private sidecarRest = '';
  private sidecarLines = 0;
  private sawHeader = false;

  private readonly actual = new DigestList();
  private carry: Buffer | null = null;
  private pending: Buffer[] = [];
  /** Where the bytes of the chunk being read that are not yet in a closed batch start. */
  private segment = 0;
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
    this.segment = 0;
    if (this.carry) {
      const end = chunk.indexOf(0x0a);
      if (end < 0) {
        this.carry = Buffer.concat([this.carry, chunk]);
        this.pending.push(chunk);
        return;
      }
      const line = Buffer.concat([this.carry, chunk.subarray(0, end)]);
      this.carry = null;
      this.actual.push(lineDigest(line, 0, line.length));
      start = end + 1;
      const batch = this.batches[this.batchIndex];
      if (batch && batch.line === this.actual.length) this.cutBatch(chunk, start);
    }
    while (start < chunk.length) {
      const before = this.actual.length;
      const { count, ends } = scanLines(chunk, start, this.actual);
      if (count === 0) break;
      // The batches ending among these lines (an entry for lines read earlier is taken when it arrives).
      for (let batch = this.batches[this.batchIndex]; batch; batch = this.batches[this.batchIndex]) {
        if (batch.line <= before || batch.line > before + count) break;
        this.cutBatch(chunk, ends[batch.line - before - 1]!);
      }
      start = ends[count - 1]!;
    }
    if (this.segment < chunk.length) this.pending.push(chunk.subarray(this.segment));
    if (start < chunk.length) this.carry = chunk.subarray(start);
  }

  /** Closes the batch that ends at `end` in `chunk`. */
  private cutBatch(chunk: Buffer, end: number): void {
    this.pending.push(chunk.subarray(this.segment, end));
    this.segment = end;
    this.closeBatch();
  }

  finish(): LogFileResult {
    if (this.sidecarRest.trim() !== '')
      this.problem('signature', this.sidecarLines + 1, 'the sidecar ends with a torn entry', true);
    if (!this.sawHeader) this.problem('signature', undefined, 'the sidecar has no header naming its log file', true);
    const valid = this.checkSignatures();
    const cut = this.carry !== null ? this.actual.length + 1 : null;
    const { findings, intact, localized } = compareLines(this.expected.view(), this.actual.view(), cut, UNKNOWN);
    for (const { kind, line, detail } of findings) this.problem(kind, line, detail);
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
    const encoded = digests === undefined ? null : Buffer.from(digests, 'base64');
    if (count <= 0 || (encoded !== null && Math.floor(encoded.length / DIGEST_BYTES) !== count)) {
      this.problem('signature', line, `sidecar line ${this.sidecarLines} does not follow the entry before it`, true);
      return;
    }
    if (encoded === null) this.expected.fill(UNKNOWN, count);
    else this.expected.pushEncoded(encoded);
    this.batches.push({ line, offset, chain });
  }

  /** Batches whose lines were read before their entry arrived. */
  private completeBatches(): void {
    const batch = this.batches[this.batchIndex];
    if (!batch || batch.line > this.actual.length || this.pending.length === 0) return;
    // Re-cut what is pending at the boundaries now known.
    const bytes = Buffer.concat(this.pending);
    this.pending = [];
    const from = this.actual.length - countLines(bytes);
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

  /** The chain over the pending bytes, which are the next batch's lines (log-sidecar-format.ts `nextLinesChain`). */
  private closeBatch(): void {
    const batch = this.batches[this.batchIndex++]!;
    const hash = crypto.createHash('sha256').update(this.chain);
    for (const piece of this.pending) hash.update(piece);
    this.pending = [];
    this.chain = hash.digest();
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

  private problem(kind: ProblemKind, line: number | undefined, detail: string, sidecar = false): void {
    this.problems.push({
      file: this.name,
      ...(line !== undefined ? { line } : {}),
      kind,
      detail: sidecar ? `${detail} (${this.logName}.sig)` : detail,
    });
  }

  /** The runs of intact lines (1 in `intact`, by 0-based index), reported from 1. */
  private ranges(intact: Uint8Array): VerifiedRange[] {
    if (this.unvouched) intact.fill(0, this.unvouched.from - 1, Math.min(intact.length, this.unvouched.to));
    const out: VerifiedRange[] = [];
    for (let j = intact.indexOf(1); j >= 0;) {
      const end = intact.indexOf(0, j);
      const to = end < 0 ? intact.length : end;
      out.push({ file: this.name, from: j + 1, to });
      j = end < 0 ? -1 : intact.indexOf(1, end);
    }
    return out;
  }
}
