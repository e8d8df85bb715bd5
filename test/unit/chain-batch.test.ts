/**
 * The record chain hashed a batch at a time (record-chain.ts `chainBatch`, the native addon in
 * native/src/chain/) gives exactly the chain of docs/integrity.md: `nextChain` folded over the
 * records. Existing stores must keep verifying, so any difference is a false tamper alarm.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chainAddon } from '../../agent/store/chain-addon.js';
import { CHAIN_BYTES, GENESIS, chainBatch, chainBatchJs, nextChain } from '../../agent/store/record-chain.js';

function folded(previous: Buffer, canonicals: string[]): Buffer {
  const out: Buffer[] = [];
  let chain = previous;
  for (const canonical of canonicals) {
    chain = nextChain(chain, canonical);
    out.push(chain);
  }
  return Buffer.concat(out);
}

/** Any text: full Unicode, lone surrogates, control characters, empty strings. */
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.string({ unit: fc.constantFrom('a', '"', '\\', '\n', '\u00e9', '\ud83d', '\ude00', '\u{1f600}'), maxLength: 60 }),
);
const predecessor = fc.oneof(fc.constant(GENESIS), fc.uint8Array({ minLength: 32, maxLength: 32 }).map(Buffer.from));

const addon = chainAddon();

describe('chainBatch', () => {
  it('equals nextChain folded over the batch, whatever the records hold', () => {
    fc.assert(
      fc.property(predecessor, fc.array(text, { maxLength: 40 }), (previous, canonicals) => {
        expect(chainBatch(previous, canonicals).equals(folded(previous, canonicals))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('gives one 32-byte value per record, the last one the head the next batch continues from', () => {
    const first = chainBatch(GENESIS, ['["a"]', '["b"]']);
    const second = chainBatch(first.subarray(CHAIN_BYTES), ['["c"]']);
    expect(first.length).toBe(2 * CHAIN_BYTES);
    expect(Buffer.concat([first, second]).equals(folded(GENESIS, ['["a"]', '["b"]', '["c"]']))).toBe(true);
    expect(chainBatch(GENESIS, []).length).toBe(0);
  });

  it('the JavaScript fallback gives the same values', () => {
    fc.assert(
      fc.property(predecessor, fc.array(text, { maxLength: 20 }), (previous, canonicals) => {
        expect(chainBatchJs(previous, canonicals).equals(folded(previous, canonicals))).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});

describe.skipIf(addon === null)('the native chain addon (native/src/chain/chain_batch.cc)', () => {
  it('agrees with the JavaScript fallback, records longer than its first scratch buffer included', () => {
    // Up to 12 KB of UTF-8: past the addon's 4 KB first buffer.
    const long = fc
      .tuple(text, fc.integer({ min: 1, max: 3000 }))
      .map(([piece, times]) => (piece === '' ? 'é' : piece).repeat(times).slice(0, 6000));
    fc.assert(
      fc.property(predecessor, fc.array(fc.oneof(text, long), { maxLength: 12 }), (previous, canonicals) => {
        expect(addon!.chainBatch(previous, canonicals).equals(chainBatchJs(previous, canonicals))).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it('hashes a record whose last character straddles the end of its first scratch buffer', () => {
    const canonicals: string[] = [];
    for (let ascii = 4086; ascii <= 4096; ascii++) {
      for (const last of ['\u{1f600}', '\ud83d', '\u20ac', '\u00e9']) canonicals.push('x'.repeat(ascii) + last);
    }
    expect(addon!.chainBatch(GENESIS, canonicals).equals(chainBatchJs(GENESIS, canonicals))).toBe(true);
  });

  it('refuses what is not a batch of strings instead of hashing something else', () => {
    expect(() => addon!.chainBatch(GENESIS, ['ok', 42 as unknown as string])).toThrow(TypeError);
    expect(() => addon!.chainBatch('x' as unknown as Buffer, [])).toThrow(TypeError);
    expect(() => addon!.chainBatch(GENESIS, 'abc' as unknown as string[])).toThrow(TypeError);
  });
});
