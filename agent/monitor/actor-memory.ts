/**
 * Who last created, changed or removed each path, from the fanotify events, until the records
 * the batched hints become ask for it (attributed-file-source.ts). Bounded: entries older than
 * a few minutes, or beyond a count, are forgotten first in first out; a record that finds no
 * entry is recorded as found by a scan, `unknown`, never guessed.
 */
import type { Actor } from './actor.js';
import type { FileChange } from './file-change.js';

type Role = 'created' | 'modified' | 'removed';

interface Entry {
  at: number;
  created?: Actor;
  modified?: Actor;
  removed?: Actor;
}

export class ActorMemory {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly keepMs = 5 * 60_000,
    private readonly maxEntries = 200_000,
  ) {}

  remember(path: string, role: Role, actor: Actor): void {
    const at = this.now();
    const entry = this.entries.get(path) ?? { at };
    this.entries.delete(path); // re-inserted last: the map stays in time order
    entry.at = at;
    entry[role] = actor;
    this.entries.set(path, entry);
    this.forgetOld(at);
  }

  /** The actor of a change its events reported, or undefined. */
  actorOf(change: Pick<FileChange, 'action' | 'path' | 'newPath'>): Actor | undefined {
    const of = (p: string): Entry | undefined => this.entries.get(p);
    switch (change.action) {
      case 'Added':
        return of(change.path)?.created ?? of(change.path)?.modified;
      case 'Removed':
        return of(change.path)?.removed;
      case 'Modified':
        return of(change.path)?.modified ?? of(change.path)?.created;
      default: // Renamed, Moved: the rename's actor is remembered on both names
        return of(change.newPath ?? change.path)?.created ?? of(change.path)?.removed;
    }
  }

  private forgetOld(now: number): void {
    for (const [p, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && now - entry.at < this.keepMs) break;
      this.entries.delete(p);
    }
  }
}
