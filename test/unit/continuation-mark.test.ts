/** Continuation marks: round trip, durability of the key, and refusal of anything not issued. */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidMarkError, MARK_KEY_FILE, MarkCodec } from '../../agent/audit/continuation-mark.js';
import { textCondition, whenCondition } from '../../shared/audit-filters.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const payload = {
  conditions: [textCondition('Who', 'Contains', 'älice', ''), whenCondition('NotEqualTo', { timeframe: 'Today' }, '')],
  reference: 1_795_000_000_000,
  after: 4242,
};

describe('MarkCodec', () => {
  it('round-trips a search position and survives a reload of the key (a restart)', async () => {
    const secrets = path.join(makeTempDir(), 'secrets');
    const first = await MarkCodec.load(secrets);
    const mark = first.encode(payload);
    expect(mark).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    const second = await MarkCodec.load(secrets);
    expect(second.decode(`  ${mark}\n`)).toEqual(payload);
    const stat = fs.statSync(path.join(secrets, MARK_KEY_FILE));
    expect(stat.mode & 0o777).toBe(0o600);
    expect(fs.statSync(secrets).mode & 0o777).toBe(0o700);
  });

  it('refuses a mark from another key, and any single-character change', async () => {
    const a = await MarkCodec.load(path.join(makeTempDir(), 's'));
    const b = await MarkCodec.load(path.join(makeTempDir(), 's'));
    const mark = a.encode(payload);
    expect(() => b.decode(mark)).toThrow(InvalidMarkError);
    fc.assert(
      fc.property(fc.nat(mark.length - 1), fc.constantFrom(...'ABCxyz019_-.'), (at, char) => {
        fc.pre(mark[at] !== char);
        const edited = mark.slice(0, at) + char + mark.slice(at + 1);
        expect(() => a.decode(edited)).toThrow(InvalidMarkError);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses garbage of every shape', async () => {
    const codec = await MarkCodec.load(path.join(makeTempDir(), 's'));
    for (const bad of ['', '.', 'a.b', 'PG5yPjxuIG49IntFNzA', `${'a'.repeat(10)}.${'b'.repeat(43)}`, '€.€']) {
      expect(() => codec.decode(bad), bad).toThrow(InvalidMarkError);
    }
  });

  it('replaces a damaged key file with a new key', async () => {
    const secrets = path.join(makeTempDir(), 's');
    const old = await MarkCodec.load(secrets);
    fs.writeFileSync(path.join(secrets, MARK_KEY_FILE), 'short');
    const renewed = await MarkCodec.load(secrets);
    expect(() => renewed.decode(old.encode(payload))).toThrow(InvalidMarkError);
    expect(fs.readFileSync(path.join(secrets, MARK_KEY_FILE))).toHaveLength(32);
  });
});
