/**
 * The log viewer's line index (agent/outputs/log-line-index.ts) against the obvious reading of
 * a file: split on LF. Property tests with random line lengths (empty lines, CRLF, multi-byte
 * characters, lines longer than the split limit) and random growth in pieces.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineIndex, LineMatches, MAX_LINE_BYTES, STRIDE } from '../../agent/outputs/log-line-index.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/** The reference: complete LF-terminated lines, each split every MAX_LINE_BYTES bytes. */
function referenceLines(bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  for (;;) {
    const lf = bytes.indexOf(0x0a, start);
    if (lf < 0) {
      while (bytes.length - start >= MAX_LINE_BYTES) {
        out.push(bytes.subarray(start, start + MAX_LINE_BYTES));
        start += MAX_LINE_BYTES;
      }
      return out;
    }
    while (lf + 1 - start > MAX_LINE_BYTES) {
      out.push(bytes.subarray(start, start + MAX_LINE_BYTES));
      start += MAX_LINE_BYTES;
    }
    out.push(bytes.subarray(start, lf));
    start = lf + 1;
  }
}

const dir = makeTempDir('vigil-index-');
let fileNo = 0;

async function indexed(bytes: Buffer, pieces: number[] = []): Promise<{ index: LineIndex; file: fsp.FileHandle }> {
  const name = path.join(dir, `f${fileNo++}.log`);
  fs.writeFileSync(name, '');
  const file = await fsp.open(name, 'r');
  const index = new LineIndex();
  let written = 0;
  // Grow the file in pieces, extending the index after each, as today's log grows.
  for (const cut of [...pieces.filter((p) => p < bytes.length).sort((a, b) => a - b), bytes.length]) {
    if (cut <= written) continue;
    fs.appendFileSync(name, bytes.subarray(written, cut));
    written = cut;
    await index.extend(file, written, Buffer.alloc(4096)); // small chunks: many chunk boundaries
  }
  return { index, file };
}

const lineArb = fc.oneof(
  { weight: 8, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constantFrom('', '\r', 'Müller\tß€😀', 'x\r') },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 3 }).map((n) => 'y'.repeat(MAX_LINE_BYTES * n - 1 + n)) },
);

describe('LineIndex', () => {
  it('reads any range exactly as splitting the file would', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(lineArb, { maxLength: 300 }),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 5 }),
        fc.nat(),
        fc.nat(),
        async (lines, trailingPartial, pieces, a, b) => {
          const text = lines.map((l) => l.replace(/\n/g, ' ') + '\n').join('') + (trailingPartial ? 'partial' : '');
          const bytes = Buffer.from(text, 'utf8');
          const expected = referenceLines(bytes);
          const { index, file } = await indexed(
            bytes,
            pieces.map((p) => p % (bytes.length + 1)),
          );
          try {
            expect(index.lines).toBe(expected.length);
            const from = expected.length === 0 ? 0 : a % (expected.length + 1);
            const to = from + (b % (expected.length - from + 1));
            const got = await index.range(file, from, to);
            expect(got.map((x) => x.toString('hex'))).toEqual(expected.slice(from, to).map((x) => x.toString('hex')));
            // pick: scattered numbers come back right too
            const numbers = [...new Set([from, to - 1, Math.floor((from + to) / 2)])]
              .filter((n) => n >= 0 && n < expected.length)
              .sort((x, y) => x - y);
            const picked = await index.pick(file, numbers);
            for (const n of numbers) expect(picked.get(n)?.toString('hex')).toBe(expected[n]!.toString('hex'));
          } finally {
            await file.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('keeps one checkpoint per STRIDE lines', async () => {
    const bytes = Buffer.from(Array.from({ length: STRIDE * 10 + 3 }, (_, i) => `line ${i}\n`).join(''));
    const { index, file } = await indexed(bytes);
    try {
      expect(index.lines).toBe(STRIDE * 10 + 3);
      const last = await index.range(file, STRIDE * 10 + 2, STRIDE * 10 + 3);
      expect(last.map(String)).toEqual([`line ${STRIDE * 10 + 2}`]);
      expect(await index.range(file, 5, 5)).toEqual([]);
    } finally {
      await file.close();
    }
  });
});

describe('LineMatches', () => {
  it('finds the lines containing the text, ignoring case, as filtering the lines would', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('REPORT.txt', 'report', 'Räport', 'xreportx')),
          {
            maxLength: 2500,
          },
        ),
        fc.constantFrom('report', 'RÄP', 'x', 'not there'),
        async (lines, needle) => {
          const text = lines.map((l) => l.replace(/[\r\n]/g, ' ') + '\n').join('');
          const bytes = Buffer.from(text, 'utf8');
          const { index, file } = await indexed(bytes);
          try {
            const matches = new LineMatches(needle);
            await matches.extend(index, file);
            const expected = referenceLines(bytes)
              .map((l, i) => [l.toString('utf8').toLowerCase(), i] as const)
              .filter(([l]) => l.includes(needle.toLowerCase()))
              .map(([, i]) => i);
            expect(matches.count).toBe(expected.length);
            expect(matches.slice(0, expected.length + 5)).toEqual(expected);
          } finally {
            await file.close();
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
