/**
 * Names the lines of a log file that differ from what its sidecar recorded (docs/integrity.md,
 * "Log files"), from the line digests of both: lines missing at the end or added after it when
 * the rest is equal; otherwise the file's lines are matched to the recorded ones
 * (line-match.ts), and between two lines found in order the unmatched ones pair up as changed,
 * the rest of the file's are inserted and the rest of the recorded ones removed.
 */
import { consecutiveRuns, matchLines, range } from './line-match.js';
import type { ProblemKind } from './verify-report.js';

export interface Finding {
  kind: ProblemKind;
  /** The file's line (from 1), or for a removed line its number as written. */
  line: number;
  detail: string;
}

export interface LineComparison {
  findings: Finding[];
  /** 1 for each of the file's lines (0-based) found intact. */
  intact: Uint8Array;
  /** Whether every difference was named at its line (else the chain has the last word). */
  localized: boolean;
}

/**
 * Matches the file's lines to the recorded ones. Returns the file's line numbers found intact
 * and whether every difference was named at its line (else the chain has the last word).
 */
export function compareLines(
  expected: Float64Array,
  actual: Float64Array,
  cut: number | null,
  unknown: number,
): LineComparison {
  const findings: Finding[] = [];
  const problem = (kind: ProblemKind, line: number, detail: string): void => {
    findings.push({ kind, line, detail });
  };
  const runs = (kind: ProblemKind, indexes: number[], what: string, asWritten = false): void => {
    for (const [from, to] of consecutiveRuns(indexes)) {
      const lines = from === to ? `line ${from + 1}` : `lines ${from + 1}–${to + 1}`;
      problem(kind, from + 1, `${lines}${asWritten ? ' as written' : ''}: ${what}`);
    }
  };
  const same = (a: number, e: number): boolean => a === e || e === unknown;
  let prefix = 0;
  const shorter = Math.min(expected.length, actual.length);
  while (prefix < shorter && same(actual[prefix]!, expected[prefix]!)) prefix++;
  if (prefix === shorter) {
    const intact = new Uint8Array(actual.length).fill(1);
    if (actual.length < expected.length || cut !== null) {
      const first = cut ?? actual.length + 1;
      problem(
        'truncated',
        first,
        `the file ends ${cut !== null ? 'inside' : 'before'} line ${first}; its sidecar records ${expected.length} lines`,
      );
    }
    if (actual.length > expected.length) {
      intact.fill(0, expected.length);
      runs('inserted', range(expected.length, actual.length), 'not recorded in the sidecar');
    }
    return { findings, intact, localized: false };
  }
  return { findings, intact: differences(expected, actual, cut, problem, runs), localized: true };
}

/** Names each line that differs (the file's lines are not a prefix of the recorded ones, or the reverse). */
function differences(
  expected: Float64Array,
  actual: Float64Array,
  cut: number | null,
  problem: (kind: ProblemKind, line: number, detail: string) => void,
  runs: (kind: ProblemKind, indexes: number[], what: string, asWritten?: boolean) => void,
): Uint8Array {
  const { p, inOrder, reordered, missing } = matchLines(expected, actual);
  for (const j of reordered) {
    problem('reordered', j + 1, `line ${j + 1} was line ${p[j]! + 1} when written`);
  }
  let m = 0;
  let pendingA: number[] = [];
  const gap = (upTo: number, atEnd: boolean): void => {
    const gapE: number[] = [];
    while (m < missing.length && missing[m]! < upTo) gapE.push(missing[m++]!);
    const paired = Math.min(pendingA.length, gapE.length);
    for (let k = 0; k < paired; k++) {
      const j = pendingA[k]!;
      problem('changed', j + 1, `line ${j + 1} differs from line ${gapE[k]! + 1} as written`);
    }
    runs('inserted', pendingA.slice(paired), 'not written by the agent');
    const removed = gapE.slice(paired);
    if (atEnd && pendingA.length === 0 && removed.length > 0 && removed.at(-1) === expected.length - 1) {
      const first = cut ?? removed[0]! + 1;
      problem(
        'truncated',
        first,
        `the file ends before line ${removed[0]! + 1}; its sidecar records ${expected.length} lines`,
      );
    } else
      runs(
        'removed',
        removed.map((i) => i),
        'missing from the file',
        true,
      );
    pendingA = [];
  };
  for (let j = 0; j < actual.length; j++) {
    if (p[j]! < 0) pendingA.push(j);
    else if (inOrder[j]) gap(p[j]!, false);
  }
  gap(expected.length, true);
  const intact = inOrder.slice();
  for (const j of reordered) intact[j] = 0;
  return intact;
}
