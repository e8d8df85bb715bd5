/**
 * Every folder listing of the file activity source, in one place: the start-up and full-scan
 * walk, the listing of folders that had events, and the listing of a folder that appeared. The
 * file system is injected (tests use a map), and the work per event-loop turn is bounded: after
 * `entriesPerTurn` entries a listing yields, so a large tree never holds the loop.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SnapshotEntry } from '../store/monitor-state.js';
import type { FileTree } from './file-tree.js';

/** The file system as the lister sees it. */
export interface ListingFs {
  /** Names in folder `dir`; throws when it cannot be read (the error's `code` is reported). */
  names(dir: string): string[];
  /** What is at `p` (not following a symbolic link), or undefined when nothing is. */
  entry(p: string): SnapshotEntry | undefined;
}

export function snapshotEntry(stat: fs.Stats): SnapshotEntry {
  const dir = stat.isDirectory();
  return {
    dir,
    dev: stat.dev,
    ino: stat.ino,
    size: dir ? 0 : stat.size,
    mtimeMs: dir ? 0 : stat.mtimeMs,
    birthMs: stat.birthtimeMs,
  };
}

export const nodeListingFs: ListingFs = {
  names: (dir) => fs.readdirSync(dir),
  entry(p) {
    try {
      const stat = fs.lstatSync(p, { throwIfNoEntry: false });
      return stat ? snapshotEntry(stat) : undefined;
    } catch {
      return undefined;
    }
  },
};

export interface TraverseHooks {
  /** Runs on each folder before it is read (the walk watches it first: nothing is missed). */
  beforeList?: (dir: string) => void;
  /** A folder that cannot be read. */
  unreadable?: (dir: string, error: unknown) => void;
}

export interface FolderListerOptions {
  fs?: ListingFs;
  /** Whether a path is monitored (coverage.ts); others are neither listed nor returned. */
  covers: (p: string) => boolean;
  /** True once the owner stopped: a long listing ends early. */
  stopped?: () => boolean;
  entriesPerTurn?: number;
  yieldTurn?: () => Promise<void>;
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class FolderLister {
  readonly fs: ListingFs;
  private readonly entriesPerTurn: number;
  private readonly yieldTurn: () => Promise<void>;
  private sinceYield = 0;

  constructor(private readonly o: FolderListerOptions) {
    this.fs = o.fs ?? nodeListingFs;
    this.entriesPerTurn = o.entriesPerTurn ?? 2000;
    this.yieldTurn = o.yieldTurn ?? nextTurn;
  }

  /** Counts `n` entries of work; yields to the event loop once a turn's share is done. */
  private async worked(n: number): Promise<void> {
    this.sinceYield += n;
    if (this.sinceYield < this.entriesPerTurn) return;
    this.sinceYield = 0;
    await this.yieldTurn();
  }

  /** Depth-first listing of the covered entries under `start` (not `start` itself) into `into`. */
  async traverse(start: string, into: Map<string, SnapshotEntry>, hooks: TraverseHooks = {}): Promise<void> {
    const stack = [start];
    while (stack.length > 0 && !this.o.stopped?.()) {
      const dir = stack.pop()!;
      hooks.beforeList?.(dir);
      let names: string[];
      try {
        names = this.fs.names(dir);
      } catch (error) {
        hooks.unreadable?.(dir, error);
        continue;
      }
      for (const name of names) {
        const p = path.join(dir, name);
        if (this.o.covers(p)) {
          const entry = this.fs.entry(p);
          if (entry) into.set(p, entry);
          if (entry?.dir) stack.push(p);
        }
        if (++this.sinceYield >= this.entriesPerTurn) await this.worked(0);
      }
      await this.worked(1);
    }
  }

  /**
   * Scans the include folder `root` into `into` (the root too). Returns false when it does not
   * exist.
   */
  async walk(root: string, into: Map<string, SnapshotEntry>, hooks: TraverseHooks = {}): Promise<boolean> {
    const rootEntry = this.fs.entry(root);
    if (!rootEntry) return false;
    into.set(root, rootEntry);
    if (rootEntry.dir) await this.traverse(root, into, hooks);
    return true;
  }

  /**
   * Lists the folders in `dirs` the tree knows and adds to `hints` (first seen `now`) each name
   * that differs from what the tree knows there: created or removed without an event reaching
   * us. A folder that cannot be read becomes a hint itself. Returns how many names were added.
   */
  listAgain(dirs: Iterable<string>, tree: FileTree, hints: Map<string, number>, now: number): number {
    let recovered = 0;
    for (const dir of dirs) {
      if (!tree.get(dir)?.dir) continue;
      let names: string[];
      try {
        names = this.fs.names(dir);
      } catch {
        if (!hints.has(dir)) hints.set(dir, now);
        continue;
      }
      const known = tree.childrenOf(dir);
      const present = new Set(names);
      const differing = [...names.filter((name) => !known.has(name)), ...[...known].filter((n) => !present.has(n))];
      for (const name of differing) {
        const p = path.join(dir, name);
        if (hints.has(p)) continue;
        hints.set(p, now);
        recovered++;
      }
    }
    return recovered;
  }

  /**
   * Looks at the named paths: `before` gets what the tree knew of them, `after` what is there
   * now. A path under a folder neither the tree knows nor this look found is left out.
   */
  async look(
    paths: Iterable<string>,
    tree: FileTree,
    before: Map<string, SnapshotEntry>,
    after: Map<string, SnapshotEntry>,
  ): Promise<void> {
    const underNewFolder: string[] = [];
    const lookAt = async (p: string): Promise<void> => {
      const entry = this.fs.entry(p);
      if (entry) after.set(p, entry);
      if (++this.sinceYield >= this.entriesPerTurn) await this.worked(0);
    };
    for (const p of paths) {
      if (!this.o.covers(p)) continue;
      const known = tree.get(p);
      if (known) before.set(p, known);
      else if (!tree.get(path.dirname(p))?.dir) {
        underNewFolder.push(p);
        continue;
      }
      await lookAt(p);
    }
    // Under a folder that is new in this batch: parents (shorter paths) first.
    underNewFolder.sort((a, b) => a.length - b.length);
    for (const p of underNewFolder) if (after.get(path.dirname(p))?.dir) await lookAt(p);
  }

  /**
   * A folder that is new at its path (created, moved or renamed here) is listed, so its contents
   * take part in the comparison: a file moved into it pairs with where it came from, and what
   * the tree knew under that path counts as before.
   */
  async expandNewFolders(
    tree: FileTree,
    before: Map<string, SnapshotEntry>,
    after: Map<string, SnapshotEntry>,
    /** Whether to list a new folder (an attributing source's events name what a created one holds). */
    listed: (folder: string) => boolean = () => true,
  ): Promise<void> {
    const fresh = [...after].filter(([p, e]) => e.dir && before.get(p)?.ino !== e.ino).map(([p]) => p);
    for (const folder of fresh) {
      for (const p of tree.get(folder) ? tree.descendants(folder) : []) {
        if (!before.has(p)) before.set(p, tree.get(p)!);
      }
      if (!listed(folder)) continue;
      const found = new Map<string, SnapshotEntry>();
      await this.traverse(folder, found);
      for (const [p, e] of found) if (!after.has(p)) after.set(p, e);
    }
  }
}
