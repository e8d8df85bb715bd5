/**
 * Random access to the lines of a large text file without reading it whole (the console's log
 * viewer: a 100 MB file must open at once and scroll smoothly). One pass over the file records
 * the byte offset of every STRIDE-th line (a sparse index: one 8-byte entry per 64 lines); a
 * range of lines is then read from the nearest entry with one positioned read. The pass reads
 * 1 MiB at a time and awaits each read, so the event loop runs in between. A growing file
 * (today's log) is indexed further from where the last pass stopped.
 *
 * A line ends with LF. Only complete lines count: the log writer appends whole lines, and a
 * line being written is picked up by the next pass. A line longer than MAX_LINE_BYTES is split
 * every MAX_LINE_BYTES bytes (the index and the reader apply the same rule), so a file without
 * line feeds cannot exhaust memory.
 */
import type { FileHandle } from 'node:fs/promises';

export const STRIDE = 64;
const CHUNK = 1024 * 1024;
export const MAX_LINE_BYTES = 1024 * 1024;
const LF = 0x0a;

/** Lines a matcher reads per step (a few hundred kilobytes of typical log lines). */
const MATCH_RUN_LINES = 16 * STRIDE;

export class LineIndex {
  /** checkpoints[k] = byte offset where line k·STRIDE starts. */
  private checkpoints = new Float64Array(1024);
  private checkpointCount = 1; // line 0 starts at offset 0
  private lineCount = 0;
  /** Bytes covered by complete lines (the offset where the next line starts). */
  private indexedBytes = 0;

  get lines(): number {
    return this.lineCount;
  }

  get bytes(): number {
    return this.indexedBytes;
  }

  /** Indexes the file from where the last pass stopped up to `size`. */
  async extend(file: FileHandle, size: number, buffer: Buffer = Buffer.allocUnsafe(CHUNK)): Promise<void> {
    let offset = this.indexedBytes;
    let lineStart = offset;
    while (offset < size) {
      const length = Math.min(buffer.length, size - offset);
      const { bytesRead } = await file.read(buffer, 0, length, offset);
      if (bytesRead === 0) break;
      let at = 0;
      for (;;) {
        const lf = buffer.indexOf(LF, at);
        if (lf < 0 || lf >= bytesRead) break;
        const next = offset + lf + 1;
        while (next - lineStart > MAX_LINE_BYTES) lineStart = this.addLine(lineStart + MAX_LINE_BYTES);
        lineStart = this.addLine(next);
        at = lf + 1;
      }
      offset += bytesRead;
      while (offset - lineStart >= MAX_LINE_BYTES && offset - lineStart > 0) {
        lineStart = this.addLine(lineStart + MAX_LINE_BYTES);
      }
    }
    this.indexedBytes = lineStart;
  }

  private addLine(nextStart: number): number {
    this.lineCount++;
    if (this.lineCount % STRIDE === 0) {
      if (this.checkpointCount === this.checkpoints.length) {
        const grown = new Float64Array(this.checkpoints.length * 2);
        grown.set(this.checkpoints);
        this.checkpoints = grown;
      }
      this.checkpoints[this.checkpointCount++] = nextStart;
    }
    return nextStart;
  }

  /** Where the block holding line `n` starts, and how many lines precede `n` in it. */
  private blockStart(n: number): { offset: number; skip: number } {
    const k = Math.floor(n / STRIDE);
    return { offset: this.checkpoints[k]!, skip: n - k * STRIDE };
  }

  /** Where the block holding line `n - 1` ends (a checkpoint, or the end of the indexed lines). */
  private blockEnd(n: number): number {
    const k = Math.ceil(n / STRIDE);
    return k < this.checkpointCount ? this.checkpoints[k]! : this.indexedBytes;
  }

  /** Lines `from` to `to` − 1 (0 ≤ from ≤ to ≤ lines), each a view into one shared read. */
  async range(file: FileHandle, from: number, to: number): Promise<Buffer[]> {
    if (from >= to) return [];
    const { offset, skip } = this.blockStart(from);
    const end = this.blockEnd(to);
    const bytes = Buffer.allocUnsafe(end - offset);
    let filled = 0;
    while (filled < bytes.length) {
      const { bytesRead } = await file.read(bytes, filled, bytes.length - filled, offset + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    const out: Buffer[] = [];
    let line = from - skip;
    let start = 0;
    while (line < to && start < filled) {
      const lf = bytes.indexOf(LF, start);
      let text: Buffer;
      if (lf < 0 || lf >= filled || lf + 1 - start > MAX_LINE_BYTES) {
        const stop = Math.min(filled, start + MAX_LINE_BYTES);
        text = bytes.subarray(start, stop);
        start = stop;
      } else {
        text = bytes.subarray(start, lf);
        start = lf + 1;
      }
      if (line >= from) out.push(text);
      line++;
    }
    return out;
  }

  /**
   * The lines with the given numbers (ascending, each < lines). Numbers whose blocks touch share
   * one read, so a page of a filtered view costs a few reads, not one per line.
   */
  async pick(file: FileHandle, numbers: readonly number[]): Promise<Map<number, Buffer>> {
    const out = new Map<number, Buffer>();
    let i = 0;
    while (i < numbers.length) {
      let j = i;
      while (
        j + 1 < numbers.length &&
        Math.floor(numbers[j + 1]! / STRIDE) <= Math.floor(numbers[j]! / STRIDE) + 1 &&
        numbers[j + 1]! - numbers[i]! < MATCH_RUN_LINES
      ) {
        j++;
      }
      const first = numbers[i]!;
      const lines = await this.range(file, first, numbers[j]! + 1);
      for (let m = i; m <= j; m++) {
        const line = lines[numbers[m]! - first];
        if (line) out.set(numbers[m]!, line);
      }
      i = j + 1;
    }
    return out;
  }
}

/**
 * Line numbers of the lines that contain `needle` (case-insensitive), kept up to date as the
 * index grows. Lines come from the index (so both agree on where lines end), a run of
 * MATCH_RUN_LINES at a time; a run without the needle anywhere costs one decode and one search.
 */
export class LineMatches {
  private matches = new Uint32Array(1024);
  private matchCount = 0;
  private scannedLines = 0;
  private readonly needle: string;

  constructor(needle: string) {
    this.needle = needle.toLowerCase();
  }

  get count(): number {
    return this.matchCount;
  }

  /** Matching line numbers from position `from` in the list of matches, at most `count`. */
  slice(from: number, count: number): number[] {
    return Array.from(this.matches.subarray(from, Math.min(this.matchCount, from + count)));
  }

  /** Scans the lines the index has and this matcher has not. */
  async extend(index: LineIndex, file: FileHandle): Promise<void> {
    while (this.scannedLines < index.lines) {
      const from = this.scannedLines;
      const to = Math.min(index.lines, from + MATCH_RUN_LINES);
      const lines = await index.range(file, from, to);
      if (lines.length > 0) {
        const first = lines[0]!;
        const last = lines[lines.length - 1]!;
        // The lines are views into one buffer: search the whole run once before looking at each.
        const run = Buffer.from(first.buffer, first.byteOffset, last.byteOffset + last.length - first.byteOffset);
        if (run.toString('utf8').toLowerCase().includes(this.needle)) {
          lines.forEach((line, i) => {
            if (line.toString('utf8').toLowerCase().includes(this.needle)) this.push(from + i);
          });
        }
      }
      this.scannedLines = to;
    }
  }

  private push(line: number): void {
    if (this.matchCount === this.matches.length) {
      const grown = new Uint32Array(this.matches.length * 2);
      grown.set(this.matches);
      this.matches = grown;
    }
    this.matches[this.matchCount++] = line;
  }
}
