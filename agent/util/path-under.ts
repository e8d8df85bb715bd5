/** Whether one path lies within a folder, for coverage rules and output filters alike. */
import path from 'node:path';

/** True when `p` is `dir` or inside it. */
export function isUnder(p: string, dir: string): boolean {
  if (p === dir) return true;
  const prefix = dir.endsWith(path.sep) ? dir : dir + path.sep;
  return p.startsWith(prefix);
}
