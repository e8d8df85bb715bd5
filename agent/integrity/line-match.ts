/**
 * Matches the lines of a log file to the lines its sidecar recorded, by their digests
 * (docs/integrity.md, "Log files"): each file line takes the next unused recorded line with its
 * digest; the longest run of matched lines in recorded order is intact, and matched lines out of
 * that order were reordered. Pure: log-file-check.ts names the problems.
 */

export interface LineMatch {
  /** For each file line, the index of the recorded line it matched, or -1. */
  p: Int32Array;
  /** 1 for the file lines in the longest run that keeps the recorded order. */
  inOrder: Uint8Array;
  /** File lines (indexes, ascending) that matched out of order, with a swapped neighbour. */
  reordered: number[];
  /** Recorded lines (indexes, ascending) that no file line matched. */
  missing: number[];
}

export function matchLines(expected: ArrayLike<number>, actual: ArrayLike<number>): LineMatch {
  const where = new Map<number, number[]>();
  for (let i = 0; i < expected.length; i++) {
    const list = where.get(expected[i]!);
    if (list) list.push(i);
    else where.set(expected[i]!, [i]);
  }
  const used = new Map<number, number>();
  const p = new Int32Array(actual.length).fill(-1);
  const taken = new Uint8Array(expected.length);
  for (let j = 0; j < actual.length; j++) {
    const list = where.get(actual[j]!);
    if (!list) continue;
    const k = used.get(actual[j]!) ?? 0;
    if (k >= list.length) continue;
    used.set(actual[j]!, k + 1);
    p[j] = list[k]!;
    taken[list[k]!] = 1;
  }
  const inOrder = longestIncreasing(p);
  const reordered = new Set<number>();
  for (let j = 0; j < actual.length; j++) {
    if (p[j]! < 0 || inOrder[j]) continue;
    reordered.add(j);
    if (j + 1 < actual.length && p[j + 1] === p[j]! - 1) reordered.add(j + 1);
    if (j > 0 && p[j - 1] === p[j]! + 1) reordered.add(j - 1);
  }
  const missing: number[] = [];
  for (let i = 0; i < expected.length; i++) if (!taken[i]) missing.push(i);
  return { p, inOrder, reordered: [...reordered].sort((a, b) => a - b), missing };
}

/** Ascending indexes as runs of consecutive ones: [first, last] each. */
export function consecutiveRuns(indexes: readonly number[]): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  for (let k = 0; k < indexes.length;) {
    let end = k;
    while (end + 1 < indexes.length && indexes[end + 1] === indexes[end]! + 1) end++;
    runs.push([indexes[k]!, indexes[end]!]);
    k = end + 1;
  }
  return runs;
}

export function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}

/** Marks (1) the indexes of a longest strictly increasing run of the non-negative values of `p`. */
function longestIncreasing(p: Int32Array): Uint8Array {
  const tails: number[] = [];
  const tailIndex: number[] = [];
  const previous = new Int32Array(p.length).fill(-1);
  for (let j = 0; j < p.length; j++) {
    const v = p[j]!;
    if (v < 0) continue;
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (tails[mid]! < v) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) previous[j] = tailIndex[lo - 1]!;
    tails[lo] = v;
    tailIndex[lo] = j;
  }
  const marks = new Uint8Array(p.length);
  let j = tails.length > 0 ? tailIndex[tails.length - 1]! : -1;
  while (j >= 0) {
    marks[j] = 1;
    j = previous[j]!;
  }
  return marks;
}
