/**
 * Fault and load tests run twice over: briefly in `npm test` (a few seconds each, so CI stays
 * within its budget) and at full size under `npm run test:stress` (vitest.stress.config.ts sets
 * VIGIL_STRESS=1). `sized(short, full)` picks the figure for the current run.
 */
export const STRESS = process.env['VIGIL_STRESS'] === '1';

export function sized<T>(short: T, full: T): T {
  return STRESS ? full : short;
}

/** A small seeded PRNG (mulberry32), so a failing stress run can be repeated with its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
