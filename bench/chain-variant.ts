/**
 * The ingest benchmarks compare a store that chains as the agent does with the same store whose
 * chain values come from elsewhere (the whole batch hashed before its inserts, by node:crypto, or
 * zeros for "without the chain"). `AuditStore.startChain` is the one place a batch's chain values
 * come from; this replaces it on one store.
 */
import type { AuditStore } from '../agent/store/audit-store.js';
import { CHAIN_BYTES, type BatchChains } from '../agent/store/record-chain.js';

/** A batch's chain values from `previous` and its bound values, `rows` rows of `stride` each. */
export type ChainValues = (previous: Buffer, values: unknown[], rows: number, stride: number) => Buffer;

export function replaceChain(store: AuditStore, chainValues: ChainValues): void {
  (store as unknown as { startChain: (...a: [Buffer, unknown[], number, number]) => BatchChains }).startChain = (
    previous,
    values,
    rows,
    stride,
  ) => {
    const chains = chainValues(previous, values, rows, stride);
    return { upTo: () => chains };
  };
}

/** "Without the chain": zeros, the store's work otherwise unchanged. */
export const zeroChain: ChainValues = (_previous, _values, rows) => Buffer.alloc(rows * CHAIN_BYTES);
