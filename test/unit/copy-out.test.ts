/**
 * The fleet's raw text reads (agent/fleet/copy-out.ts): statement values written into a COPY's
 * text are integers, lists of integers or days only, and a binary COPY stream's one value is
 * read as its bytes. The same path against a real PostgreSQL: test/integration/fleet-audit-json.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { firstValue, inlineLiterals } from '../../agent/fleet/copy-out.js';

/** A binary COPY stream (PostgreSQL's COPY documentation, "Binary Format") of `tuples`. */
function binaryCopy(tuples: Array<Array<Buffer | null>>): Buffer {
  const parts: Buffer[] = [Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)];
  for (const tuple of tuples) {
    const count = Buffer.alloc(2);
    count.writeInt16BE(tuple.length);
    parts.push(count);
    for (const field of tuple) {
      const length = Buffer.alloc(4);
      length.writeInt32BE(field === null ? -1 : field.length);
      parts.push(length, ...(field === null ? [] : [field]));
    }
  }
  parts.push(Buffer.from([0xff, 0xff]));
  return Buffer.concat(parts);
}

describe('inlineLiterals', () => {
  it('writes integers, lists of integers and days into the statement', () => {
    expect(
      inlineLiterals('seq >= $1 AND seq = ANY($3::bigint[]) AND day = $2::date AND x = $10', [
        7,
        '2026-11-24',
        [1, 2, 30],
        0,
        0,
        0,
        0,
        0,
        0,
        12345678901,
      ]),
    ).toBe("seq >= 7 AND seq = ANY('{1,2,30}'::bigint[]) AND day = '2026-11-24'::date AND x = 12345678901");
  });

  it('refuses any other value, naming its position, and a missing one', () => {
    for (const value of [
      "2026-11-24'; DROP TABLE vigil_records; --",
      '1',
      1.5,
      [1, '2'],
      null,
      Number.MAX_SAFE_INTEGER + 1,
    ]) {
      expect(() => inlineLiterals('a = $1', [value])).toThrow(/\$1 is not an integer/);
    }
    expect(() => inlineLiterals('a = $1 AND b = $2', [1])).toThrow(/\$2 is missing/);
  });
});

describe('firstValue', () => {
  it('is the bytes of the first field, UTF-8 left as it came', () => {
    const text = Buffer.from('{"Who":"HOST\\\\müller 😀"}', 'utf8');
    expect(firstValue(binaryCopy([[text]]))).toEqual(text);
    expect(firstValue(binaryCopy([[Buffer.alloc(0)]]))).toEqual(Buffer.alloc(0));
  });

  it('is null for NULL and for no row', () => {
    expect(firstValue(binaryCopy([[null]]))).toBeNull();
    expect(firstValue(binaryCopy([]))).toBeNull();
  });

  it('refuses a stream that is not binary COPY, has two columns, or is cut short', () => {
    expect(() => firstValue(Buffer.from('1\tabc\n'))).toThrow(/no binary COPY data/);
    expect(() => firstValue(binaryCopy([[Buffer.from('a'), Buffer.from('b')]]))).toThrow(/2 columns/);
    const whole = binaryCopy([[Buffer.from('abcdef')]]);
    expect(() => firstValue(whole.subarray(0, whole.length - 5))).toThrow(/truncated/);
  });
});
