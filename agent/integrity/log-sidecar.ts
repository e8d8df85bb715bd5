/**
 * Writes the sidecar of one log file (format: log-sidecar-format.ts, docs/integrity.md): a batch
 * entry with every batch of lines, inside the batch's transaction (undone with it), and a signed
 * entry at each checkpoint and when the file is closed.
 *
 * Crash safety follows the log file's: the entry is flushed to disk with the lines, before the
 * records commit; after a crash `cutSidecar` removes the entries of batches that did not commit,
 * so the file and its sidecar agree again without recomputing anything from the file.
 */
import fs from 'node:fs';
import { GENESIS } from '../store/record-chain.js';
import { writeAll } from '../util/write-all.js';
import {
  countLines,
  headerLine,
  nextLinesChain,
  parseSidecarLine,
  signatureMessage,
  SIDECAR_SUFFIX,
  type BatchEntry,
  type SignatureEntry,
} from './log-sidecar-format.js';
import { encodeLineDigests } from './line-digests.js';

export interface LogSigner {
  sign(message: Buffer): Buffer;
}

interface State {
  /** Bytes of the sidecar. */
  size: number;
  /** The last line covered, and the log file's size after it. */
  line: number;
  offset: number;
  chain: Buffer;
}

export function sidecarPath(logPath: string): string {
  return logPath + SIDECAR_SUFFIX;
}

interface ReadSidecar {
  state: State;
  signedLine: number;
  /** Bytes up to the end of the last whole, well-formed line. */
  wholeSize: number;
}

/** The sidecar's state after its entries (up to `keepOffset` of the log file when given). */
function readSidecar(file: string, keepOffset: number | null): ReadSidecar | null {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const state: State = { size: 0, line: 0, offset: 0, chain: GENESIS };
  let signedLine = 0;
  let start = 0;
  while (start < bytes.length) {
    const end = bytes.indexOf(0x0a, start);
    if (end < 0) break; // a torn last line
    const parsed = parseSidecarLine(bytes.toString('utf8', start, end));
    if (parsed === null) break;
    if (parsed.kind === 'batch') {
      if (keepOffset !== null && parsed.entry.offset > keepOffset) break;
      state.line = parsed.entry.line;
      state.offset = parsed.entry.offset;
      state.chain = Buffer.from(parsed.entry.chain, 'hex');
    } else if (parsed.kind === 'signature') signedLine = parsed.entry.signed;
    start = end + 1;
    state.size = start;
  }
  return { state, signedLine, wholeSize: state.size };
}

/**
 * Start-up repair: cuts the entries of batches past `keepOffset` (the committed size of the log
 * file; null to keep every whole entry) and a torn last line. Returns the bytes removed.
 */
export function cutSidecar(logPath: string, keepOffset: number | null): number {
  const file = sidecarPath(logPath);
  const read = readSidecar(file, keepOffset);
  if (read === null) return 0;
  const size = fs.statSync(file).size;
  if (read.wholeSize < size) fs.truncateSync(file, read.wholeSize);
  return size - read.wholeSize;
}

export class LogSidecar {
  private state: State;
  private undoState: State | null = null;
  private signedLine: number;

  private constructor(
    private readonly fd: number,
    private readonly logFileName: string,
    read: ReadSidecar,
  ) {
    this.state = read.state;
    this.signedLine = read.signedLine;
  }

  /**
   * Opens (or starts) the sidecar of the log file `logPath`, `logSize` bytes long now. Lines the
   * sidecar does not cover (a file written before sidecars existed) are adopted as they are,
   * in one entry without line digests; `onAdopt` is told.
   */
  static open(logPath: string, logFileName: string, logSize: number, onAdopt?: (lines: number) => void): LogSidecar {
    const file = sidecarPath(logPath);
    const read = readSidecar(file, null);
    const fd = fs.openSync(file, 'a', 0o600);
    try {
      if (read && read.wholeSize < fs.fstatSync(fd).size) fs.ftruncateSync(fd, read.wholeSize);
      const sidecar = new LogSidecar(fd, logFileName, read ?? { state: emptyState(), signedLine: 0, wholeSize: 0 });
      if (read === null || read.wholeSize === 0) sidecar.writeLine(headerLine(logFileName));
      if (sidecar.state.offset < logSize) {
        const tail = readRange(logPath, sidecar.state.offset, logSize);
        const lines = countLines(tail);
        sidecar.appendEntry(lines, logSize, false, tail);
        fs.fdatasyncSync(fd);
        onAdopt?.(lines);
      }
      sidecar.undoState = null;
      return sidecar;
    } catch (error) {
      fs.closeSync(fd);
      throw error;
    }
  }

  /** The last line covered (lines count from 1). */
  get lines(): number {
    return this.state.line;
  }

  /**
   * Inside the batch transaction, after the lines were written: appends their entry (not yet
   * flushed: call `sync`). `bytes` are the lines as written, whole lines. Returns the bytes
   * added to the sidecar.
   */
  append(bytes: Buffer, logSizeAfter: number): number {
    this.undoState ??= { ...this.state };
    return this.appendEntry(countLines(bytes), logSizeAfter, true, bytes);
  }

  sync(): void {
    fs.fdatasyncSync(this.fd);
  }

  /** The batch did not commit: remove its entries. */
  undo(): number {
    const undo = this.undoState;
    this.undoState = null;
    if (!undo) return 0;
    fs.ftruncateSync(this.fd, undo.size);
    const removed = this.state.size - undo.size;
    this.state = undo;
    return removed;
  }

  /** After COMMIT. */
  committed(): void {
    this.undoState = null;
  }

  /** Signs the chain up to the last line, if it moved since the last signature. */
  sign(signer: LogSigner, timeMs: number): void {
    if (this.state.line === 0 || this.state.line === this.signedLine || this.undoState !== null) return;
    const chain = this.state.chain.toString('hex');
    const signature = signer.sign(signatureMessage(this.logFileName, this.state.line, chain, timeMs));
    const entry: SignatureEntry = {
      signed: this.state.line,
      chain,
      time: timeMs,
      signature: signature.toString('base64'),
    };
    this.writeLine(JSON.stringify(entry) + '\n');
    fs.fdatasyncSync(this.fd);
    this.signedLine = this.state.line;
  }

  close(): void {
    fs.closeSync(this.fd);
  }

  private appendEntry(lines: number, logSizeAfter: number, withDigests: boolean, bytes: Buffer): number {
    if (lines === 0) return 0;
    const chain = nextLinesChain(this.state.chain, bytes);
    const entry: BatchEntry = {
      line: this.state.line + lines,
      offset: logSizeAfter,
      chain: chain.toString('hex'),
      ...(withDigests ? { digests: encodeLineDigests(bytes) } : {}),
    };
    const bytesWritten = this.writeLine(JSON.stringify(entry) + '\n');
    this.state.line = entry.line;
    this.state.offset = logSizeAfter;
    this.state.chain = chain;
    return bytesWritten;
  }

  private writeLine(line: string): number {
    const buffer = Buffer.from(line, 'utf8');
    writeAll(this.fd, buffer);
    this.state.size += buffer.length;
    return buffer.length;
  }
}

function emptyState(): State {
  return { size: 0, line: 0, offset: 0, chain: GENESIS };
}

function readRange(file: string, from: number, to: number): Buffer {
  const fd = fs.openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(to - from);
    let read = 0;
    while (read < buffer.length) {
      const n = fs.readSync(fd, buffer, read, buffer.length - read, from + read);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read);
  } finally {
    fs.closeSync(fd);
  }
}
