/** The accesslog cursor's look-back (agent/directory/accesslog-cursor.ts). */
import { describe, expect, it } from 'vitest';
import {
  accesslogCursorText,
  advance,
  lookbackFrom,
  parseAccesslogCursor,
} from '../../agent/directory/accesslog-cursor.js';

describe('accesslog cursor', () => {
  it('looks back 60 seconds before the newest reqStart, in the generalized time slapd compares', () => {
    expect(lookbackFrom('20261124090354.000056Z')).toBe('20261124090254.000000Z');
    expect(lookbackFrom('20260101000030.000001Z')).toBe('20251231235930.000000Z');
    expect(lookbackFrom('')).toBe('');
  });

  it('keeps the reqStarts read within the look-back of the newest and forgets older ones', () => {
    const first = advance({ newest: '', seen: [] }, ['20261124090100.000001Z', '20261124090300.000002Z']);
    expect(first).toEqual({ newest: '20261124090300.000002Z', seen: ['20261124090300.000002Z'] });
    const next = advance(first, ['20261124090330.000001Z', '20261124090250.000003Z']);
    expect(next.newest).toBe('20261124090330.000001Z');
    expect(next.seen).toEqual(['20261124090250.000003Z', '20261124090300.000002Z', '20261124090330.000001Z']);
  });

  it('reads its own text back, and a bare reqStart of an older agent as a cursor without look-back', () => {
    const cursor = { newest: '20261124090330.000001Z', seen: ['20261124090330.000001Z'] };
    expect(parseAccesslogCursor(accesslogCursorText(cursor))).toEqual(cursor);
    expect(parseAccesslogCursor('20261124090330.000001Z')).toEqual({ newest: '20261124090330.000001Z', seen: null });
    expect(parseAccesslogCursor('')).toEqual({ newest: '', seen: null });
  });
});
