/**
 * The in-memory snapshot of one host's monitored folders: every file and folder with its inode,
 * size and mtime, and for each folder the names inside it, so a folder can be compared with
 * its listing, and a renamed or removed folder moved or dropped without scanning all paths.
 */
import path from 'node:path';
import type { SnapshotEntry } from '../store/monitor-state.js';

export class FileTree {
  private readonly entries = new Map<string, SnapshotEntry>();
  private readonly children = new Map<string, Set<string>>();

  get size(): number {
    return this.entries.size;
  }

  get(p: string): SnapshotEntry | undefined {
    return this.entries.get(p);
  }

  set(p: string, entry: SnapshotEntry): void {
    this.entries.set(p, entry);
    const parent = path.dirname(p);
    if (parent === p) return;
    let names = this.children.get(parent);
    if (!names) this.children.set(parent, (names = new Set()));
    names.add(path.basename(p));
  }

  /** Removes one path (not what is under it). */
  delete(p: string): void {
    if (!this.entries.delete(p)) return;
    const parent = path.dirname(p);
    const names = this.children.get(parent);
    names?.delete(path.basename(p));
    if (names?.size === 0) this.children.delete(parent);
  }

  /** Names known inside folder `dir`. */
  childrenOf(dir: string): ReadonlySet<string> {
    return this.children.get(dir) ?? new Set();
  }

  /** Every path under `dir` (not `dir` itself), parents before children. */
  descendants(dir: string): string[] {
    const out: string[] = [];
    const stack = [dir];
    while (stack.length > 0) {
      const current = stack.pop()!;
      for (const name of this.children.get(current) ?? []) {
        const child = path.join(current, name);
        out.push(child);
        if (this.entries.get(child)?.dir) stack.push(child);
      }
    }
    return out;
  }

  /** Removes `dir` and everything under it; returns the removed paths, `dir` first. */
  deleteSubtree(dir: string): string[] {
    const removed = [dir, ...this.descendants(dir)];
    for (const p of removed.slice().reverse()) this.delete(p);
    for (const p of removed) this.children.delete(p);
    return removed;
  }

  /** Moves `from` and everything under it to `to` (a folder or file rename). */
  move(from: string, to: string, entry: SnapshotEntry): void {
    const moved = this.descendants(from).map((p) => [p, this.entries.get(p)!] as const);
    this.deleteSubtree(from);
    this.set(to, entry);
    for (const [p, e] of moved) this.set(to + p.slice(from.length), e);
  }

  /** Every folder in the tree. */
  folders(): string[] {
    const out: string[] = [];
    for (const [p, e] of this.entries) if (e.dir) out.push(p);
    return out;
  }

  entriesList(): Array<[string, SnapshotEntry]> {
    return [...this.entries];
  }
}
