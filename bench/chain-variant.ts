/**
 * The ingest benchmarks compare a store that chains as the agent does (SQLite computing each
 * row's chain value as it inserts it: `vigil_chain(…)`, when the addon is built) with the same
 * store whose chain values come from elsewhere: a constant in the same INSERTs ("without the
 * chain"), or computed by node:crypto before the inserts and bound (`AuditStore.chainValues`; the
 * store opened with `chainInJavaScript`, as it runs without the addon).
 */
import type { AuditStore } from '../agent/store/audit-store.js';
import { CHAIN_BYTES } from '../agent/store/record-chain.js';

/** A batch's chain values from `previous` and its bound values, `rows` rows of `stride` each. */
export type ChainValues = (previous: Buffer, values: unknown[], rows: number, stride: number) => Buffer;

function replaceChain(store: AuditStore, chainValues: ChainValues): void {
  (store as unknown as { chainValues: ChainValues }).chainValues = chainValues;
}

/** Zeros for chain values computed before the inserts. */
const zeroChain: ChainValues = (_previous, _values, rows) => Buffer.alloc(rows * CHAIN_BYTES);

/**
 * "Without the chain": the agent's INSERTs with each row's chain value 32 zero bytes instead of
 * `vigil_chain(…)`, the store's work otherwise unchanged (call before the first insert). Without
 * the addon, zeros bound in place of the chain values computed before the inserts.
 */
export function withoutChain(store: AuditStore): void {
  const fields = store as unknown as { chainExpression: string | null };
  if (fields.chainExpression === null) replaceChain(store, zeroChain);
  else fields.chainExpression = 'zeroblob(32)';
}

/**
 * Every order of `variants`, for benchmarks that give them turns: taken in turn, each runs
 * first, second … equally often, and after each of the others equally often (one variant's
 * garbage is collected during the next one's turn).
 */
export function everyOrder<T>(variants: readonly T[]): T[][] {
  if (variants.length <= 1) return [[...variants]];
  return variants.flatMap((first, i) =>
    everyOrder([...variants.slice(0, i), ...variants.slice(i + 1)]).map((rest) => [first, ...rest]),
  );
}
