/**
 * Which paths a host monitors: under one of its include folders and under none of its exclude
 * folders. The agent's own data folder is always excluded: its log files and database change
 * with every record, and watching them would feed the pipeline its own output forever.
 */
import path from 'node:path';
import type { Coverage } from '../store/monitor-state.js';
import { isUnder } from '../util/path-under.js';

export function normaliseCoverage(include: readonly string[], exclude: readonly string[]): Coverage {
  const excluded = [...new Set(exclude.map((p) => path.resolve(p)))].sort();
  const resolved = [...new Set(include.map((p) => path.resolve(p)))].sort();
  // An include inside another include is already covered; one inside an exclude is not watched.
  const included = resolved.filter(
    (p) => !resolved.some((other) => other !== p && isUnder(p, other)) && !excluded.some((ex) => isUnder(p, ex)),
  );
  return { include: included, exclude: excluded.filter((ex) => included.some((inc) => isUnder(ex, inc))) };
}

export class CoverageMatcher {
  constructor(readonly coverage: Coverage) {}

  /** The include folder `p` is under, when `p` is monitored. */
  rootOf(p: string): string | undefined {
    if (this.coverage.exclude.some((ex) => isUnder(p, ex))) return undefined;
    return this.coverage.include.find((root) => isUnder(p, root));
  }

  covers(p: string): boolean {
    return this.rootOf(p) !== undefined;
  }
}
