/**
 * A batch's chain values computed a slice at a time as the store inserts it (record-chain.ts
 * `startChainRows`) are exactly the chain of docs/integrity.md, however the caller asks for
 * the slices; a batch given up half-way (its transaction failed) leaves the next one correct;
 * and a store that inserts through it keeps a chain `vigil verify` accepts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditStore } from '../../agent/store/audit-store.js';
import { CHAIN_BYTES, GENESIS, chainRowsJs, startChainRows } from '../../agent/store/record-chain.js';
import { verifyStore } from '../../agent/integrity/verify-store.js';
import { chainDefinition } from '../helpers/chain-definition.js';
import type { NewActivityRecord } from '../../shared/activity-record.js';

const STRIDE = 14;

/** A batch as the store binds it: a burst's repeated values, some odd text, a chain column. */
function batchValues(rows: number, odd: string[], seed: number): unknown[] {
  const values = new Array<unknown>(rows * STRIDE).fill(null);
  for (let row = 0; row < rows; row++) {
    const at = row * STRIDE;
    const previous = row > 0 && (row + seed) % 7 !== 0;
    values[at] = `rid-${seed}-${row}`;
    values[at + 1] = 1763632800000 + Math.floor(row / 50) * 1000;
    values[at + 2] = previous ? values[at - STRIDE + 2] : `WS42\\user-${(row + seed) % 5}`;
    values[at + 3] = 'Modified';
    values[at + 4] = `/home/a/${odd[row % Math.max(1, odd.length)] ?? ''}/${row}`;
    values[at + 5] = 'WS42';
    values[at + 6] = 'File';
    values[at + 7] = 'File System';
    values[at + 8] = row % 3 === 0 ? null : 'plan';
    values[at + 12] = row % 11 === 0 ? JSON.stringify([{ Message: odd[0] ?? '' }]) : null;
  }
  return values;
}

const oddText = fc.array(
  fc.string({
    unit: fc.constantFrom('a', '"', '\\', '\n', '\u0000', '\u00e9', '\u2028', '\ud83d', '\ude00'),
    maxLength: 12,
  }),
  { minLength: 1, maxLength: 5 },
);

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('a batch chained slice by slice (startChainRows)', () => {
  it('gives the definition, however the caller waits for the slices', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 256, max: 1500 }),
        oddText,
        fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 20 }),
        fc.nat(),
        (rows, odd, steps, seed) => {
          const values = batchValues(rows, odd, seed);
          const expected = chainDefinition(GENESIS, values, rows, STRIDE);
          const out = Buffer.alloc(rows * CHAIN_BYTES + 64, 0xee);
          const chains = startChainRows(GENESIS, values, rows, STRIDE, out);
          let ready = 0;
          for (const step of steps) {
            ready = Math.min(rows, ready + step);
            const buffer = chains.upTo(ready);
            expect(buffer.subarray(0, ready * CHAIN_BYTES).equals(expected.subarray(0, ready * CHAIN_BYTES))).toBe(
              true,
            );
          }
          expect(
            chains
              .upTo(rows)
              .subarray(0, rows * CHAIN_BYTES)
              .equals(expected),
          ).toBe(true);
          // Nothing past the batch is written; and the bound values are those chained.
          expect(out.subarray(rows * CHAIN_BYTES).every((byte) => byte === 0xee)).toBe(true);
          expect(chainRowsJs(GENESIS, values, rows, STRIDE).equals(expected)).toBe(true);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('a batch given up half-way does not disturb the next one', () => {
    const first = batchValues(2000, ['x'], 1);
    startChainRows(GENESIS, first, 2000, STRIDE, Buffer.alloc(2000 * CHAIN_BYTES)).upTo(64);
    const second = batchValues(700, ['y\ud83d'], 2);
    const previous = Buffer.alloc(32, 7);
    const out = Buffer.alloc(700 * CHAIN_BYTES);
    expect(
      startChainRows(previous, second, 700, STRIDE, out)
        .upTo(700)
        .equals(chainDefinition(previous, second, 700, STRIDE)),
    ).toBe(true);
  });

  it('refuses rows the batch does not have', () => {
    const values = batchValues(300, ['z'], 3);
    const chains = startChainRows(GENESIS, values, 300, STRIDE, Buffer.alloc(300 * CHAIN_BYTES));
    expect(() => chains.upTo(301)).toThrow(RangeError);
  });
});

describe('a store inserting batches of every size', () => {
  it('keeps one chain that verifies, across small and large batches', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-chain-bg-'));
    dirs.push(dir);
    const file = path.join(dir, 'audit.db');
    const store = AuditStore.open({ file, synchronous: 'NORMAL' });
    const record = (i: number): NewActivityRecord => ({
      Who: i % 9 === 0 ? 'WS42\\b\u00e9' : 'WS42\\alice',
      Action: 'Modified',
      What: `/home/alice/report-${i}\ud83d.docx`,
      When: new Date(Date.UTC(2026, 10, 20) + i * 10).toISOString(),
      Where: 'WS42',
      ObjectType: 'File',
      DataSource: 'File System',
      ...(i % 4 === 0 ? { MonitoringPlan: { Name: 'plan', ID: 'p1' }, Item: { Name: '/home/alice' } } : {}),
      ...(i % 13 === 0 ? { DetailList: [{ PropertyName: 'Size', Before: '1', After: '2' }] } : {}),
    });
    let at = 0;
    for (const size of [1, 300, 31, 2500, 255, 256, 5000, 7]) {
      store.insertBatch(Array.from({ length: size }, (_, i) => record(at + i)));
      at += size;
    }
    expect(store.count()).toBe(at);
    store.close();
    const checked = await verifyStore(file, null, { workers: 1 });
    expect(checked.problems).toEqual([]);
    expect(checked.records).toBe(at);
  });
});
