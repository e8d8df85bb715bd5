/**
 * A folder found gone while entries known inside it had no event in this batch: with an
 * attributing source, their removal events are most likely still on their way (the reader
 * behind a burst of `rm -r`; each entry's delete is queued before its folder's). Recording the
 * folder's removal now would record those entries as removed by `unknown` (reconcile.ts), and
 * their events, arriving a moment later, would find nothing left to attribute. So the folder
 * waits for a later batch, up to `waitMs` after it was first hinted; what is still unreported
 * then is recorded without an actor, as before.
 */
import type { SnapshotEntry } from '../store/monitor-state.js';
import type { FileTree } from './file-tree.js';

export const EARLY_REMOVAL_WAIT_MS = 5_000;

/** Takes such folders out of `before` and hands each to `defer`; returns them. */
export function deferEarlyFolderRemovals(
  before: Map<string, SnapshotEntry>,
  after: ReadonlyMap<string, SnapshotEntry>,
  tree: FileTree,
  hints: ReadonlyMap<string, number>,
  now: number,
  defer: (p: string, firstSeen: number) => void,
  waitMs = EARLY_REMOVAL_WAIT_MS,
): string[] {
  const waiting: string[] = [];
  for (const [p, entry] of before) {
    if (!entry.dir || after.has(p)) continue;
    const firstSeen = hints.get(p) ?? now;
    if (now - firstSeen >= waitMs) continue;
    if (tree.descendants(p).every((inside) => before.has(inside))) continue;
    waiting.push(p);
  }
  for (const p of waiting) {
    before.delete(p);
    defer(p, hints.get(p) ?? now);
  }
  return waiting;
}
