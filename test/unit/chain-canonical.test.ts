/**
 * The canonical records the native addon builds from a slice's bound values (record-chain.ts
 * `chainRows`, native/src/chain/canonical_json.cc) must be byte for byte JSON.stringify of the
 * values as SQLite stores them (`canonicalAsStored`): any difference is a chain value that
 * `vigil verify` and every existing store disagree with. Checked against the JavaScript
 * definition over random values (full Unicode, lone surrogates, control characters, quotes,
 * backslashes, numbers of every kind, values repeated from the row before), and the packed
 * layout's checks against a layout that does not match its text.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chainAddon } from '../../agent/store/chain-addon.js';
import { CHAIN_BYTES, GENESIS, chainRows, chainRowsJs, nextChain, packRows } from '../../agent/store/record-chain.js';
import { chainDefinition } from '../helpers/chain-definition.js';
import { buildNativeDriver, memcheck, valgrindMissing } from '../helpers/native-driver.js';

const addon = chainAddon();

const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.string({
    unit: fc.constantFrom('a', '"', '\\', '\n', '\u0000', '\u001f', '\u007f', '\u00e9', '\u2028', '\ud83d', '\ude00'),
    maxLength: 30,
  }),
  fc.constantFrom('', 'WS42\\alice', 'File System', '\\ud83d', '"\\"'),
);
const number = fc.oneof(
  fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }),
  fc.double(),
  fc.constantFrom(0, -0, 2 ** 53, -(2 ** 53), 1e21, 1.5e-7, Number.NaN, Infinity, -Infinity, 1763632800000),
);
const value = fc.oneof(text, number, fc.constant(null));
const predecessor = fc.oneof(fc.constant(GENESIS), fc.uint8Array({ minLength: 32, maxLength: 32 }).map(Buffer.from));

/** Rows of 13 values at a stride (an INSERT's 14 with the chain column), some repeating the row before. */
const slice = fc
  .tuple(
    fc.integer({ min: 13, max: 15 }),
    fc.array(
      fc.tuple(
        fc.array(value, { minLength: 13, maxLength: 13 }),
        fc.array(fc.boolean(), { minLength: 13, maxLength: 13 }),
      ),
      {
        maxLength: 33,
      },
    ),
  )
  .map(([stride, rows]) => {
    const values = new Array<unknown>(rows.length * stride).fill('not canonical');
    rows.forEach(([own, repeat], row) => {
      for (let column = 0; column < 13; column++) {
        values[row * stride + column] = row > 0 && repeat[column] ? values[(row - 1) * stride + column] : own[column];
      }
    });
    return { stride, rows: rows.length, values };
  });

describe('chainRows: canonical records built from the bound values', () => {
  it('the JavaScript path is the definition', () => {
    fc.assert(
      fc.property(predecessor, slice, (previous, { values, rows, stride }) => {
        expect(
          chainRowsJs(previous, values, rows, stride).equals(chainDefinition(previous, values, rows, stride)),
        ).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('a store row as the pipeline binds it chains the same as its JSON.stringify', () => {
    const canonical: unknown[] = ['0000019aa1b2c3d4-1', 1763632800000, 'WS42\\alice', 'Modified', '/home/a "b".txt'];
    canonical.push('WS42', 'File', 'File System', 'plan', null, null, null, '[{"Message":"x\\ny"}]');
    const row = [...canonical, Buffer.alloc(32)];
    const expected = nextChain(GENESIS, JSON.stringify(row.slice(0, 13)));
    expect(chainRows(GENESIS, row, 1, 14).equals(expected)).toBe(true);
    expect(chainRows(GENESIS, [], 0, 14).length).toBe(0);
  });
});

describe.skipIf(addon === null)('the native canonical record (native/src/chain/canonical_json.cc)', () => {
  it('equals JSON.stringify of the values as stored, byte for byte, whatever they hold', () => {
    fc.assert(
      fc.property(predecessor, slice, (previous, { values, rows, stride }) => {
        const native = chainRows(previous, values, rows, stride);
        expect(native.length).toBe(rows * CHAIN_BYTES);
        expect(native.equals(chainDefinition(previous, values, rows, stride))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('stores half a surrogate pair as U+FFFD, as SQLite keeps it, and a whole pair as its character', () => {
    const row = (what: string): unknown[] => ['r', 1, 'w', 'a', what, 'l', 'o', 'd', null, null, null, null, null];
    const lone = chainRows(GENESIS, row('a\ud83db'), 1, 13);
    expect(lone.equals(nextChain(GENESIS, JSON.stringify(row('a\ufffdb'))))).toBe(true);
    expect(lone.equals(nextChain(GENESIS, JSON.stringify(row('a\ud83db'))))).toBe(false);
    // And the value is rewritten so, in place: the INSERT binds what was chained.
    const bound = row('a\ud83db');
    chainRows(GENESIS, bound, 1, 13);
    expect(bound[4]).toBe('a\ufffdb');
    const boundJs = row('a\ud83db');
    chainRowsJs(GENESIS, boundJs, 1, 13);
    expect(boundJs[4]).toBe('a\ufffdb');
    const pair = chainRows(GENESIS, row('\ud83d\ude00'), 1, 13);
    expect(pair.equals(nextChain(GENESIS, JSON.stringify(row('\u{1f600}'))))).toBe(true);
  });

  it('refuses a packed layout that does not match its text instead of reading past it', () => {
    const values = ['r', 1, 'w', 'a', 'x', 'l', 'o', 'd', null, null, null, null, null];
    const { text, kinds, numbers } = packRows(values, 1, 13);
    const chainPacked = (t: string, k: Int32Array, rows = 1): Buffer =>
      addon!.chainPacked(GENESIS, t, k, numbers, rows);
    expect(chainPacked(text, kinds).equals(chainRows(GENESIS, values, 1, 13))).toBe(true);
    const longer = Int32Array.from(kinds);
    longer[4] = 1_000_000;
    expect(() => chainPacked(text, longer)).toThrow(RangeError);
    expect(() => chainPacked(`${text}!`, kinds)).toThrow(RangeError);
    const repeatsNothing = Int32Array.from(kinds);
    repeatsNothing[2] = -2;
    expect(() => chainPacked(text, repeatsNothing)).toThrow(RangeError);
    const raw = Int32Array.from(kinds);
    raw[1] = -4 - 2_000_000_000;
    expect(() => chainPacked(text, raw)).toThrow(RangeError);
    expect(() => chainPacked(text, kinds.subarray(0, 13), 2)).toThrow(TypeError); // too short for two rows
    expect(() => addon!.chainPacked(GENESIS, 42 as unknown as string, kinds, numbers, 1)).toThrow(TypeError);
  });

  it('refuses values that are not canonical (objects) rather than chaining something else', () => {
    const values: unknown[] = ['r', 1, 'w', 'a', { x: 1 }, 'l', 'o', 'd', null, null, null, null, null];
    expect(() => chainRows(GENESIS, values, 1, 13)).toThrow(TypeError);
  });
});

describe('the canonical-record builder under valgrind', () => {
  it('builds and refuses random layouts and splits random texts with no memory error (memcheck)', (ctx) => {
    const missing = valgrindMissing();
    if (missing) ctx.skip(missing);
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-chain-driver-'));
    try {
      const built = buildNativeDriver(
        scratch,
        'chain-driver',
        'src/chain',
        ['tools/chain_driver.cc', 'src/chain/canonical_json.cc'],
        ['-lcrypto'],
      );
      const driver = built.driver;
      if (built.status !== 0 && /openssl\/sha\.h|lcrypto/.test(built.stderr)) ctx.skip('no OpenSSL development files');
      expect(built.status, built.stderr).toBe(0);
      const run = memcheck(driver);
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(run.stdout.trim()).toBe('accepted 1000 refused 1000');
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  }, 120_000);
});
