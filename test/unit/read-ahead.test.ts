/** Read-ahead keeps at most a few prepared pages, each briefly, and hands each out once. */
import { describe, expect, it } from 'vitest';
import { ReadAhead, type PreparedPage } from '../../agent/audit/read-ahead.js';

const page = (mark: string): PreparedPage => ({
  seqs: [1, 2],
  mark,
  next: { conditions: [], reference: 0, after: 2 },
  pageSlices: [[1, 2]],
  slices: [Promise.resolve(Buffer.from('{}'))],
});

describe('ReadAhead', () => {
  it('hands a prepared page out once, by mark and count', () => {
    const ahead = new ReadAhead();
    ahead.put(ReadAhead.key('m1', 10), page('m2'));
    expect(ahead.take(ReadAhead.key('m1', 20))).toBeNull();
    expect(ahead.take(ReadAhead.key(' m1\n', 10))?.mark).toBe('m2');
    expect(ahead.take(ReadAhead.key('m1', 10))).toBeNull();
  });

  it('keeps at most `max` pages, and none past their time', () => {
    let now = 0;
    const ahead = new ReadAhead(2, 1000, () => now);
    for (const m of ['a', 'b', 'c']) ahead.put(ReadAhead.key(m, 1), page(m));
    expect(ahead.take(ReadAhead.key('a', 1))).toBeNull();
    expect(ahead.take(ReadAhead.key('b', 1))).not.toBeNull();
    now = 1000;
    expect(ahead.take(ReadAhead.key('c', 1))).toBeNull();
  });

  it('a failed slice is no unhandled rejection', async () => {
    const ahead = new ReadAhead();
    ahead.put('k', { ...page('x'), slices: [Promise.reject(new Error('db gone'))] });
    await new Promise((resolve) => setTimeout(resolve, 10));
    await expect(ahead.take('k')!.slices[0]).rejects.toThrow('db gone');
  });
});
