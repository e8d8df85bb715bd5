/**
 * The record chain's definition, record by record (docs/integrity.md): SHA-256(previous ||
 * JSON.stringify(the 13 canonical values as stored)), for rows of `stride` bound values. The
 * reference the store's and the addon's faster paths are tested against.
 */
import { canonicalAsStored, nextChain } from '../../agent/store/record-chain.js';

export function chainDefinition(previous: Buffer, values: unknown[], rows: number, stride: number): Buffer {
  const out: Buffer[] = [];
  let chain = previous;
  for (let row = 0; row < rows; row++) {
    chain = nextChain(chain, canonicalAsStored(values.slice(row * stride, row * stride + 13), 0));
    out.push(chain);
  }
  return Buffer.concat(out);
}
