/**
 * The step from "what the snapshot said" to "what happened": a snapshot diff becomes records,
 * snapshot operations (committed with the records) and watch changes. No file system, no clock
 * and no watcher here: the caller looks, then applies what this returns. The one thing it
 * changes is the in-memory tree it is given, kept equal to the snapshot rows it emits.
 */
import path from 'node:path';
import type { SnapshotEntry } from '../store/monitor-state.js';
import type { Actor } from './actor.js';
import type { ChangeCollector } from './change-collector.js';
import { fileChangeToItem, type FileChange, type MonitoredHost } from './file-change.js';
import type { FileTree } from './file-tree.js';
import type { LocalAccount } from './local-account.js';
import type { SnapshotDiff } from './snapshot-diff.js';

export interface ReconcileContext {
  host: MonitoredHost;
  account: LocalAccount;
  /** The host's include folders. */
  include: readonly string[];
  /** The include folder a path is under. */
  rootOf: (p: string) => string | undefined;
  /** Found by a scan (start-up, full scan), not reported by the watcher. */
  byScan: boolean;
  /** When each path was first named by an event; others get `now`. */
  times: ReadonlyMap<string, number>;
  now: number;
  /**
   * From an attributing source: who made a change its events reported. A change without one
   * was found by listing (a sweep, a rescan), so it is recorded as found by a scan, `unknown`.
   */
  actorOf?: (change: Pick<FileChange, 'action' | 'path' | 'newPath'>) => Actor | undefined;
}

/** What the caller does after a reconcile: watchers first, then listings. */
export interface Reconciled {
  /** Stop watching these folders and everything under them (applied before `watch`). */
  unwatchUnder: string[];
  /** Start watching these folders. */
  watch: string[];
  /** Folders that appeared: list them (after watching) for what was created meanwhile. */
  newFolders: string[];
  /** Folders to list again once activity goes quiet (a folder moved here). */
  sweep: string[];
  /** Include folders that disappeared. */
  missingRoots: string[];
  changes: number;
}

export function reconcile(diff: SnapshotDiff, tree: FileTree, ctx: ReconcileContext, out: ChangeCollector): Reconciled {
  const result: Reconciled = { unwatchUnder: [], watch: [], newFolders: [], sweep: [], missingRoots: [], changes: 0 };
  const emit = (change: Omit<FileChange, 'timeMs' | 'root' | 'byScan'>, timePath: string): void => {
    const root = ctx.rootOf(change.newPath ?? change.path) ?? ctx.include[0] ?? '';
    // Completed in place: each caller passes a fresh literal, and a spread copy costs more on
    // Node 20 than the rest of the record (file-change.ts).
    const full = change as FileChange;
    full.timeMs = ctx.times.get(timePath) ?? ctx.now;
    full.root = root;
    if (ctx.byScan) full.byScan = true;
    if (ctx.actorOf) {
      const actor = ctx.byScan ? undefined : ctx.actorOf(change);
      full.actor = actor ?? null;
      if (actor === undefined) full.byScan = true;
    }
    out.record(fileChangeToItem(full, ctx.host, ctx.account));
    result.changes++;
  };
  const emitPassed = (list: Array<[string, boolean]>): void => {
    const shallowFirst = [...list].sort((a, b) => a[0].length - b[0].length);
    for (const [p, dir] of shallowFirst) emit({ action: 'Added', dir, path: p }, p);
    for (const [p, dir] of shallowFirst.reverse()) emit({ action: 'Removed', dir, path: p }, p);
  };

  // Paths that lived between two comparisons: inside a folder removed now, before its removal.
  const removedFolders = new Set(diff.removed.filter(([, e]) => e.dir).map(([p]) => p));
  const passed = diff.passed ?? [];
  const insideRemoved = passed.filter(([p]) => hasAncestorIn(p, removedFolders));
  emitPassed(insideRemoved);

  for (const [p, entry] of diff.removed) {
    if (entry.dir) {
      result.unwatchUnder.push(p);
      // What is still known inside had no removal of its own (its events were lost).
      for (const inside of tree.descendants(p).reverse()) {
        emit({ action: 'Removed', dir: tree.get(inside)!.dir, path: inside }, inside);
      }
      tree.deleteSubtree(p);
      out.op({ op: 'deleteTree', path: p });
    } else {
      tree.delete(p);
      out.op({ op: 'delete', path: p });
    }
    emit({ action: 'Removed', dir: entry.dir, path: p }, p);
    if (ctx.include.includes(p)) result.missingRoots.push(p);
  }

  for (const rename of diff.renamed) {
    const { from, to, before, after } = rename;
    if (after.dir) result.unwatchUnder.push(from);
    tree.move(from, to, after);
    out.op({ op: after.dir ? 'deleteTree' : 'delete', path: from });
    out.op({ op: 'upsert', path: to, entry: after });
    if (after.dir) {
      const folders = [to];
      for (const p of tree.descendants(to)) {
        const entry = tree.get(p)!;
        out.op({ op: 'upsert', path: p, entry });
        if (entry.dir) folders.push(p);
      }
      result.watch.push(...folders);
      // Look inside once more: anything that changed during the move is found by listing.
      result.sweep.push(...folders);
    }
    const sameFolder = path.dirname(from) === path.dirname(to);
    emit({ action: sameFolder ? 'Renamed' : 'Moved', dir: after.dir, path: from, newPath: to }, to);
    if (!after.dir && (before.size !== after.size || before.mtimeMs !== after.mtimeMs)) {
      emit({ action: 'Modified', dir: false, path: to, sizeBefore: before.size, sizeAfter: after.size }, to);
    }
  }

  for (const [p, entry] of diff.added) {
    if (tree.get(p)) continue;
    if (!tree.get(path.dirname(p))?.dir && !ctx.include.includes(p)) continue;
    tree.set(p, entry);
    out.op({ op: 'upsert', path: p, entry });
    emit({ action: 'Added', dir: entry.dir, path: p }, p);
    if (entry.dir) {
      result.watch.push(p);
      result.newFolders.push(p);
    }
  }

  emitPassed(insideRemoved.length === 0 ? passed : passed.filter(([p]) => !hasAncestorIn(p, removedFolders)));

  for (const [p, old, entry] of diff.modified) {
    tree.set(p, entry);
    out.op({ op: 'upsert', path: p, entry });
    emit({ action: 'Modified', dir: false, path: p, sizeBefore: old.size, sizeAfter: entry.size }, p);
  }
  return result;
}

/**
 * The comparison at start-up. What the snapshot holds outside today's folders is forgotten;
 * what today's folders hold that yesterday's did not is taken as the new baseline, silently
 * (`baseline`, put in the tree and the snapshot without records). `before` and `after` are
 * what remains to compare.
 */
export function startingPoint(
  known: ReadonlyMap<string, SnapshotEntry>,
  scanned: ReadonlyMap<string, SnapshotEntry>,
  coverage: { covers(p: string): boolean },
  previousCoverage: { covers(p: string): boolean } | null,
): {
  before: Map<string, SnapshotEntry>;
  after: Map<string, SnapshotEntry>;
  forgotten: string[];
  baseline: Array<[string, SnapshotEntry]>;
} {
  const before = new Map<string, SnapshotEntry>();
  const forgotten: string[] = [];
  for (const [p, entry] of known) {
    if (coverage.covers(p)) before.set(p, entry);
    else forgotten.push(p);
  }
  const after = new Map<string, SnapshotEntry>();
  const baseline: Array<[string, SnapshotEntry]> = [];
  for (const [p, entry] of scanned) {
    if (previousCoverage?.covers(p) || before.has(p)) after.set(p, entry);
    else baseline.push([p, entry]);
  }
  return { before, after, forgotten, baseline };
}

function hasAncestorIn(p: string, folders: ReadonlySet<string>): boolean {
  if (folders.size === 0) return false;
  for (let dir = path.dirname(p); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (folders.has(dir)) return true;
  }
  return false;
}
