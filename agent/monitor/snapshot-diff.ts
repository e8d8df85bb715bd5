/**
 * Compares what the snapshot says about some paths with what is on disk now and names the
 * changes. A path that vanished and one that appeared with the same device and inode are one
 * rename (a folder's contents move with it and are not reported again). A file whose inode,
 * size or mtime changed was modified; folders are never "modified" (their mtime changes with
 * every file added inside).
 */
import path from 'node:path';
import type { SnapshotEntry } from '../store/monitor-state.js';
import { isUnder } from '../util/path-under.js';

export interface Rename {
  from: string;
  to: string;
  before: SnapshotEntry;
  after: SnapshotEntry;
}

export interface SnapshotDiff {
  /** Sorted deepest first (a folder's contents before the folder). */
  removed: Array<[string, SnapshotEntry]>;
  /** Sorted shallowest first (a folder before its contents). */
  added: Array<[string, SnapshotEntry]>;
  modified: Array<[string, SnapshotEntry, SnapshotEntry]>;
  /** Sorted shallowest first; renames implied by a folder rename are left out. */
  renamed: Rename[];
  /**
   * Paths (and whether each was a folder) created and deleted again between two comparisons,
   * known from an attributing source's events only: an Added and a Removed record each.
   */
  passed?: Array<[string, boolean]>;
}

const depth = (p: string): number => p.split(path.sep).length;
const identity = (e: SnapshotEntry): string => `${e.dir ? 'd' : 'f'}:${e.dev}:${e.ino}`;

/**
 * Same inode is not enough: a file deleted and another created can get the freed inode. Where
 * the file system keeps a creation time, it must match; elsewhere a renamed file keeps its size
 * and mtime (a file renamed and edited in one moment is then a removal and an addition).
 */
function sameObject(before: SnapshotEntry, after: SnapshotEntry): boolean {
  if (before.birthMs > 0 && after.birthMs > 0) return before.birthMs === after.birthMs;
  return before.dir || (before.size === after.size && before.mtimeMs === after.mtimeMs);
}

/** `before`: snapshot entries of the paths looked at; `after`: what exists now among them. */
export function diffSnapshots(
  before: ReadonlyMap<string, SnapshotEntry>,
  after: ReadonlyMap<string, SnapshotEntry>,
): SnapshotDiff {
  const removed = new Map<string, SnapshotEntry>();
  const added = new Map<string, SnapshotEntry>();
  const modified: Array<[string, SnapshotEntry, SnapshotEntry]> = [];
  const replaced: Array<[string, SnapshotEntry, SnapshotEntry]> = [];

  for (const [p, old] of before) {
    const now = after.get(p);
    if (!now) removed.set(p, old);
    else if (old.dir !== now.dir || (old.dir && (old.ino !== now.ino || old.dev !== now.dev))) {
      // A file became a folder or the other way round, or a folder was replaced by another.
      removed.set(p, old);
      added.set(p, now);
    } else if (!old.dir && (old.ino !== now.ino || old.dev !== now.dev)) {
      replaced.push([p, old, now]);
    } else if (!old.dir && (old.size !== now.size || old.mtimeMs !== now.mtimeMs)) {
      modified.push([p, old, now]);
    }
  }
  for (const [p, now] of after) if (!before.has(p)) added.set(p, now);

  // Pair vanished and appeared paths by inode: renames and moves.
  const vanished = new Map<string, string>();
  for (const [p, old] of removed) if (!added.has(p)) vanished.set(identity(old), p);
  const renamed: Rename[] = [];
  const candidates = [...added].filter(([p]) => !removed.has(p));
  // A file replaced by another one that was renamed over it (`mv a b` onto an existing b).
  for (const [p, old, now] of replaced) {
    const from = vanished.get(identity(now));
    if (from !== undefined && sameObject(removed.get(from)!, now)) {
      vanished.delete(identity(now));
      renamed.push({ from, to: p, before: removed.get(from)!, after: now });
      removed.delete(from);
    } else {
      modified.push([p, old, now]);
    }
  }
  for (const [p, now] of candidates) {
    const from = vanished.get(identity(now));
    if (from === undefined || !sameObject(removed.get(from)!, now)) continue;
    vanished.delete(identity(now));
    renamed.push({ from, to: p, before: removed.get(from)!, after: now });
    removed.delete(from);
    added.delete(p);
  }

  // Drop renames that a folder rename already explains (its contents, same relative path).
  renamed.sort((a, b) => depth(a.to) - depth(b.to));
  // Whatever else vanished or appeared under a renamed folder stays a removal or an addition.
  const folderRenames: Rename[] = [];
  const kept: Rename[] = [];
  for (const rename of renamed) {
    const parent = folderRenames.find((f) => isUnder(rename.from, f.from) && isUnder(rename.to, f.to));
    if (parent && rename.from.slice(parent.from.length) === rename.to.slice(parent.to.length)) continue;
    kept.push(rename);
    if (rename.after.dir) folderRenames.push(rename);
  }
  return {
    removed: [...removed].sort((a, b) => depth(b[0]) - depth(a[0])),
    added: [...added].sort((a, b) => depth(a[0]) - depth(b[0])),
    modified,
    renamed: kept,
  };
}
