/**
 * Removals found by a listing before their delete events were read, with an attributing source
 * (attributed-file-source.ts): they wait for a later batch, for a bounded time.
 *
 * A folder found gone while entries known inside it had no event in this batch: with an
 * attributing source, their removal events are most likely still on their way (the reader
 * behind a burst of `rm -r`; each entry's delete is queued before its folder's). Recording the
 * folder's removal now would record those entries as removed by `unknown` (reconcile.ts), and
 * their events, arriving a moment later, would find nothing left to attribute. So the folder
 * waits for a later batch, up to `waitMs` after it was first hinted; what is still unreported
 * then is recorded without an actor, and the folder is counted.
 *
 * The cost is linear in the batch: one pass counts the entries of `before` per parent folder;
 * a gone folder is complete when that count equals the number of names the tree knows in it
 * and each folder among them is complete too. A large tree removed over many batches is not
 * listed again at each of them.
 */
import path from 'node:path';
import type { SnapshotEntry } from '../store/monitor-state.js';
import type { FileTree } from './file-tree.js';

export const EARLY_REMOVAL_WAIT_MS = 5_000;

/** A batch's listing, its hints and where the removals that wait go. */
export interface RemovalBatch {
  /** The batch's known entries; those that wait are taken out. */
  before: Map<string, SnapshotEntry>;
  after: ReadonlyMap<string, SnapshotEntry>;
  /** When each path was first hinted. */
  hints: ReadonlyMap<string, number>;
  now: number;
  defer: (p: string, firstSeen: number) => void;
  waitMs?: number;
}

/**
 * Takes such folders out of `batch.before` and hands each to `batch.defer` (with when it was
 * first hinted).
 * `waiting`: those folders; `expired`: how many waited `waitMs` and go through now, with
 * entries whose events never came.
 */
export function deferEarlyFolderRemovals(batch: RemovalBatch, tree: FileTree): { waiting: string[]; expired: number } {
  const { before, after } = batch;
  const gone: string[] = [];
  for (const [p, entry] of before) if (entry.dir && !after.has(p)) gone.push(p);
  if (gone.length === 0) return { waiting: [], expired: 0 };

  // Entries of `before` per parent folder, and the folders among them.
  const childCount = new Map<string, number>();
  const childFolders = new Map<string, string[]>();
  for (const [p, entry] of before) {
    const parent = path.dirname(p);
    childCount.set(parent, (childCount.get(parent) ?? 0) + 1);
    if (entry.dir) {
      const folders = childFolders.get(parent);
      if (folders) folders.push(p);
      else childFolders.set(parent, [p]);
    }
  }
  const completeness = new Map<string, boolean>();
  const complete = (folder: string): boolean => {
    const known = completeness.get(folder);
    if (known !== undefined) return known;
    completeness.set(folder, false); // a cycle cannot happen in a tree; this only guards it
    const result =
      (childCount.get(folder) ?? 0) >= tree.childrenOf(folder).size &&
      (childFolders.get(folder) ?? []).every((inside) => complete(inside));
    completeness.set(folder, result);
    return result;
  };

  return holdBack(
    gone.filter((p) => !complete(p)),
    batch,
  );
}

/**
 * The same for a file: found gone by a listing (its folder was listed for another entry's event)
 * before the reader took its own delete event. It waits for a later batch, up to `waitMs` after
 * it was first hinted, unless its events already reported it removed. A file whose inode is
 * still in `after` under another name is half of a rename and is compared now, with the other
 * half. `expired`: files that waited in vain (recorded without an actor).
 */
export function deferEarlyFileRemovals(
  batch: RemovalBatch,
  removalReported: (p: string) => boolean,
): { waiting: string[]; expired: number } {
  const { before, after } = batch;
  const early: string[] = [];
  let present: Set<string> | null = null; // inodes in `after`, built only when a file is gone
  for (const [p, entry] of before) {
    if (entry.dir || after.has(p) || removalReported(p)) continue;
    present ??= new Set(Array.from(after.values(), (e) => `${e.dev}:${e.ino}`));
    if (!present.has(`${entry.dev}:${entry.ino}`)) early.push(p);
  }
  return holdBack(early, batch);
}

/** Defers the early removals that have waited less than `waitMs` since first hinted; counts the rest. */
function holdBack(early: readonly string[], batch: RemovalBatch): { waiting: string[]; expired: number } {
  const { before, hints, now, defer, waitMs = EARLY_REMOVAL_WAIT_MS } = batch;
  const waiting = early.filter((p) => now - (hints.get(p) ?? now) < waitMs);
  for (const p of waiting) {
    before.delete(p);
    defer(p, hints.get(p) ?? now);
  }
  return { waiting, expired: early.length - waiting.length };
}
