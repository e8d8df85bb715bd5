/** The Range and If-Range rules of log file downloads (agent/http/byte-range.ts, RFC 9110 §13.1.5, RFC 9110 §14). */
import { describe, expect, it } from 'vitest';
import { decideRange, ifRangeMatches } from '../../agent/http/byte-range.js';

describe('decideRange on a 1000-byte file', () => {
  it.each([
    ['bytes=0-499', { kind: 'partial', start: 0, end: 499 }],
    ['bytes=500-999', { kind: 'partial', start: 500, end: 999 }],
    ['bytes=500-', { kind: 'partial', start: 500, end: 999 }],
    ['bytes=-100', { kind: 'partial', start: 900, end: 999 }],
    ['bytes=-5000', { kind: 'partial', start: 0, end: 999 }], // suffix longer than the file: all of it
    ['bytes=990-5000', { kind: 'partial', start: 990, end: 999 }], // last-pos past the end is cut
    ['BYTES = 0-0', { kind: 'partial', start: 0, end: 0 }],
  ])('%s → %j', (header, decision) => {
    expect(decideRange(header, 1000)).toEqual(decision);
  });

  it.each(['bytes=1000-', 'bytes=5000-6000', 'bytes=-0', 'bytes=1000-1000, 2000-'])('%s → 416', (header) => {
    expect(decideRange(header, 1000)).toEqual({ kind: 'unsatisfiable' });
  });

  it.each([undefined, 'items=0-1', 'bytes=', 'bytes=abc', 'bytes=5-1', 'bytes=--1', 'bytes=1-2-3', 'bytes=0-1,x'])(
    '%s is ignored: the whole file',
    (header) => {
      expect(decideRange(header, 1000)).toEqual({ kind: 'whole' });
    },
  );

  it('several ranges get the whole file (no multipart/byteranges)', () => {
    expect(decideRange('bytes=0-1, 5-6', 1000)).toEqual({ kind: 'whole' });
  });

  it('an empty file is always sent whole', () => {
    expect(decideRange('bytes=0-10', 0)).toEqual({ kind: 'whole' });
  });
});

describe('ifRangeMatches', () => {
  const etag = '"3e8-18b"';
  const date = 'Sun, 22 Nov 2026 10:00:00 GMT';
  it('applies the range only when the strong validator or the date still match', () => {
    expect(ifRangeMatches(undefined, etag, date)).toBe(true);
    expect(ifRangeMatches(etag, etag, date)).toBe(true);
    expect(ifRangeMatches('"other"', etag, date)).toBe(false);
    expect(ifRangeMatches(`W/${etag}`, etag, date)).toBe(false);
    expect(ifRangeMatches(date, etag, date)).toBe(true);
    expect(ifRangeMatches('Mon, 23 Nov 2026 10:00:00 GMT', etag, date)).toBe(false);
  });
});
