/**
 * The canonical records the store chains must be byte for byte JSON.stringify of the values as
 * SQLite stores them (`canonicalAsStored`): any difference is a chain value that `vigil verify`
 * and every existing store disagree with. Here the JavaScript path (record-chain.ts
 * `chainRowsJs`) against the definition over random values (full Unicode, lone surrogates,
 * control characters, quotes, backslashes, numbers of every kind), and the native writers
 * (native/src/chain/canonical_json.cc) under valgrind; SQLite's own chaining is checked in
 * chain-in-sqlite.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GENESIS, chainRowsJs, nextChain } from '../../agent/store/record-chain.js';
import { chainDefinition } from '../helpers/chain-definition.js';
import { buildNativeDriver, memcheck, inValgrindScratch } from '../helpers/native-driver.js';

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

describe('chainRowsJs: canonical records built from the bound values', () => {
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
    expect(chainRowsJs(GENESIS, row, 1, 14).equals(expected)).toBe(true);
    expect(chainRowsJs(GENESIS, [], 0, 14).length).toBe(0);
  });

  it('stores half a surrogate pair as U+FFFD, as SQLite keeps it, and a whole pair as its character', () => {
    const row = (what: string): unknown[] => ['r', 1, 'w', 'a', what, 'l', 'o', 'd', null, null, null, null, null];
    const lone = chainRowsJs(GENESIS, row('a\ud83db'), 1, 13);
    expect(lone.equals(nextChain(GENESIS, JSON.stringify(row('a\ufffdb'))))).toBe(true);
    expect(lone.equals(nextChain(GENESIS, JSON.stringify(row('a\ud83db'))))).toBe(false);
    // And the value is rewritten so, in place: the INSERT binds what was chained.
    const bound = row('a\ud83db');
    chainRowsJs(GENESIS, bound, 1, 13);
    expect(bound[4]).toBe('a\ufffdb');
    const pair = chainRowsJs(GENESIS, row('\ud83d\ude00'), 1, 13);
    expect(pair.equals(nextChain(GENESIS, JSON.stringify(row('\u{1f600}'))))).toBe(true);
  });
});

describe('the canonical-record builder under valgrind', () => {
  it('writes random texts and integers as the references do and splits random texts, with no memory error (memcheck)', (ctx) => {
    inValgrindScratch(ctx, 'vigil-chain-driver-', (scratch) => {
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
      expect(run.stdout.trim()).toBe('texts 2000 integers 2000 mismatches 0');
    });
  }, 120_000);
});
