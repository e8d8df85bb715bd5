/**
 * The line digests `vigil verify --logs` computes a chunk at a time (agent/integrity/
 * line-digests.ts; the addon's native/src/chain/log_digest.cc) are exactly those the sidecar
 * records (log-sidecar-format.ts `lineDigest`, `encodeDigests`): any difference is a false
 * tamper alarm on every log file. The native scanner reads untrusted files, so it also runs
 * under valgrind.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DigestList, encodeLineDigests, scanLines } from '../../agent/integrity/line-digests.js';
import { digestsFromBase64, encodeDigests, lineDigest } from '../../agent/integrity/log-sidecar-format.js';
import { chainAddon } from '../../agent/store/chain-addon.js';
import { buildNativeDriver, memcheck, inValgrindScratch } from '../helpers/native-driver.js';

const native = chainAddon()?.lineDigests ?? null;

/** One line's bytes, its line feed excluded: any byte but a line feed, UTF-8 text, or empty. */
const lineBytes = fc.oneof(
  fc.uint8Array({ maxLength: 400 }).map((bytes) => bytes.map((b) => (b === 0x0a ? 0x0b : b))),
  fc.string({ maxLength: 120 }).map((text) => Buffer.from(text.replaceAll('\n', ' '), 'utf8')),
  fc.constant(new Uint8Array(0)),
);

/** Lines joined with line feeds, maybe with an unfinished line after the last one. */
const chunk = fc
  .tuple(fc.array(lineBytes, { maxLength: 60 }), fc.option(lineBytes, { nil: null }))
  .map(([lines, rest]) => ({
    lines,
    bytes: Buffer.concat([...lines.flatMap((line) => [line, Buffer.from('\n')]), rest ?? Buffer.alloc(0)]),
  }));

/** Every whole line of `bytes` from `from`, scanned the way LogFileCheck does. */
function scanAll(bytes: Buffer, from: number, how: typeof native): { digests: number[]; ends: number[] } {
  const list = new DigestList();
  const ends: number[] = [];
  for (let start = from; ;) {
    const scanned = scanLines(bytes, start, list, how);
    if (scanned.count === 0) break;
    ends.push(...scanned.ends.subarray(0, scanned.count));
    start = scanned.ends[scanned.count - 1]!;
  }
  return { digests: [...list.view()], ends };
}

describe('line digests a chunk at a time', () => {
  it('are the sidecar definition of each line, with each line feed found, in JavaScript', () => {
    fc.assert(
      fc.property(chunk, ({ lines, bytes }) => {
        const { digests, ends } = scanAll(bytes, 0, null);
        expect(digests).toEqual(lines.map((line) => lineDigest(line, 0, line.length)));
        let end = 0;
        expect(ends).toEqual(lines.map((line) => (end += line.length + 1)));
      }),
      { numRuns: 300 },
    );
  });

  it('decode from a sidecar entry to what encodeDigests wrote for the lines', () => {
    fc.assert(
      fc.property(chunk, ({ bytes }) => {
        const encoded = encodeDigests(bytes);
        const list = new DigestList();
        list.pushEncoded(Buffer.from(encoded, 'base64'));
        expect([...list.view()]).toEqual(digestsFromBase64(encoded));
        expect([...list.view()]).toEqual(scanAll(bytes, 0, null).digests);
      }),
      { numRuns: 200 },
    );
  });

  it('are encoded for a sidecar entry by the log writer exactly as encodeDigests defines it, natively and in JavaScript', () => {
    fc.assert(
      fc.property(chunk, ({ bytes }) => {
        const defined = encodeDigests(bytes);
        expect(encodeLineDigests(bytes, null)).toBe(defined);
        if (native) expect(encodeLineDigests(bytes, native)).toBe(defined);
      }),
      { numRuns: 200 },
    );
    // Past one scan of 16,384 lines, and digests using all 48 bits.
    const many = Buffer.from(
      Array.from({ length: 40_000 }, (_, i) => `line ${i} ${'é'.repeat(i % 13)}`).join('\n') + '\n',
    );
    expect(encodeLineDigests(many, null)).toBe(encodeDigests(many));
    if (native) expect(encodeLineDigests(many, native)).toBe(encodeDigests(many));
  });

  it('go past one call: 40,000 lines of a file, and from an offset inside it', () => {
    const lines = Array.from(
      { length: 40_000 },
      (_, i) => `2026-11-20T08:00:00.000Z\tWS42\t${i}\t/home/a/${'x'.repeat(i % 97)}`,
    );
    const bytes = Buffer.from(lines.join('\n') + '\n');
    const all = scanAll(bytes, 0, native);
    expect(all.digests).toEqual(lines.map((line) => lineDigest(Buffer.from(line), 0, Buffer.byteLength(line))));
    expect(all.ends.at(-1)).toBe(bytes.length);
    const from = all.ends[19_999]!;
    expect(scanAll(bytes, from, native).digests).toEqual(all.digests.slice(20_000));
  });
});

describe.skipIf(native === null)('the native line scanner (native/src/chain/log_digest.cc)', () => {
  it('gives byte for byte the digests and line ends of the JavaScript definition, for random lines', () => {
    fc.assert(
      fc.property(chunk, fc.nat(), ({ bytes }, at) => {
        const from = bytes.length === 0 ? 0 : at % (bytes.length + 1);
        expect(scanAll(bytes, from, native)).toEqual(scanAll(bytes, from, null));
      }),
      { numRuns: 1000 },
    );
  });

  it('stops at the room it is given and reads a view of a larger buffer only', () => {
    const whole = Buffer.from('a\nbb\nccc\n\ndd');
    const digests = new Float64Array(2);
    const ends = new Float64Array(3);
    expect(native!(whole, 0, digests, ends)).toBe(2);
    expect([...ends.subarray(0, 2)]).toEqual([2, 5]);
    const view = whole.subarray(2, 9); // "bb\nccc\n"
    expect(native!(view, 0, new Float64Array(8), ends)).toBe(2);
    expect([...ends.subarray(0, 2)]).toEqual([3, 7]);
    expect(native!(whole, whole.length, digests, ends)).toBe(0);
    expect(native!(Buffer.alloc(0), 0, digests, ends)).toBe(0);
  });

  it('refuses arguments of the wrong kind with a TypeError, an offset outside the bytes with a RangeError', () => {
    const list = new Float64Array(4);
    expect(() => native!('abc' as unknown as Buffer, 0, list, list)).toThrow(TypeError);
    expect(() => native!(Buffer.from('a\n'), 0, new Uint32Array(4) as unknown as Float64Array, list)).toThrow(
      TypeError,
    );
    expect(() => native!(Buffer.from('a\n'), 3, list, list)).toThrow(RangeError);
    expect(() => native!(Buffer.from('a\n'), -1, list, list)).toThrow(RangeError);
    expect(() => native!(Buffer.from('a\n'), 0.5, list, list)).toThrow(RangeError);
  });
});

describe('the native line scanner under valgrind', () => {
  it('scans random chunks and capacities with no memory error (memcheck)', (ctx) => {
    inValgrindScratch(ctx, 'vigil-log-digest-driver-', (scratch) => {
      const built = buildNativeDriver(scratch, 'log-digest-driver', 'src/chain', [
        'tools/log_digest_driver.cc',
        'src/chain/log_digest.cc',
      ]);
      const driver = built.driver;
      expect(built.stderr).toBe('');
      expect(built.status).toBe(0);
      const run = memcheck(driver);
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(/^lines [1-9]\d+ checksum \d+\n$/);
    });
  }, 180_000);
});
