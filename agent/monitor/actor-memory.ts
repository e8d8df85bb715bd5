/**
 * Who last created, changed or removed each path, from the fanotify events, until the records
 * the batched hints become ask for it (attributed-file-source.ts). Bounded: entries older than
 * a few minutes, or beyond a count, are forgotten first in first out; a record that finds no
 * entry is recorded as found by a scan, `unknown`, never guessed.
 *
 * An Added or Removed record takes its actor: one life of a path gives one Added and one
 * Removed, however many events name the path afterwards (a write to a file already deleted).
 */
import type { Actor } from './actor.js';
import type { FileChange } from './file-change.js';

type Role = 'created' | 'modified' | 'removed';
/** A create or delete event, or one half of a rename or move. */
export type How = 'inPlace' | 'moved';

interface Entry {
  at: number;
  dir: boolean;
  created?: Actor;
  createdBy?: How;
  modified?: Actor;
  removed?: Actor;
  removedBy?: How;
  /** Made here by a create event (kept after its Added record took the actor). */
  createdInPlace?: boolean;
}

/** Events of one path within this long keep its place in the map: no delete and re-insert each. */
const REORDER_MS = 1000;

export class ActorMemory {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly keepMs = 5 * 60_000,
    private readonly maxEntries = 200_000,
  ) {}

  remember(path: string, role: Role, actor: Actor, dir = false, how: How = 'inPlace'): void {
    const at = this.now();
    let entry = this.entries.get(path);
    if (entry === undefined || at - entry.at >= REORDER_MS) {
      // Re-inserted last, so the map stays in time order (to within REORDER_MS).
      if (entry) this.entries.delete(path);
      else entry = { at, dir };
      this.entries.set(path, entry);
    }
    entry.at = at;
    entry.dir = dir;
    entry[role] = actor;
    if (role === 'created') {
      entry.createdBy = how;
      entry.createdInPlace = how === 'inPlace';
      // A new life of the path: a removal remembered before it was of the previous one.
      entry.removed = entry.removedBy = undefined;
    } else if (role === 'removed') {
      entry.removedBy = how;
    }
    this.forgetOld(at);
  }

  /** The actor of a change its events reported, or undefined. Added and Removed take theirs. */
  actorOf(change: Pick<FileChange, 'action' | 'path' | 'newPath'>): Actor | undefined {
    const entry = this.entries.get(change.path);
    switch (change.action) {
      case 'Added': {
        const actor = entry?.created ?? entry?.modified;
        if (entry) entry.created = entry.createdBy = undefined;
        return actor;
      }
      case 'Removed': {
        const actor = entry?.removed;
        if (entry) entry.removed = entry.removedBy = undefined;
        return actor;
      }
      case 'Modified':
        return entry?.modified ?? entry?.created;
      default: {
        // Renamed, Moved: the rename's actor is remembered on both names
        const to = this.entries.get(change.newPath ?? change.path);
        return to?.created ?? entry?.removed;
      }
    }
  }

  /** Whether events reported `path` removed (a removal not yet recorded). */
  removalReported(path: string): boolean {
    return this.entries.get(path)?.removed !== undefined;
  }

  /**
   * Paths that were created and then deleted, both reported by events and neither recorded
   * yet: a file that lived between two comparisons (`tar -x && rm -rf`). A path renamed away
   * is not one of them (its new name is compared).
   */
  createdAndDeleted(path: string): { dir: boolean } | undefined {
    const entry = this.entries.get(path);
    if (entry?.createdBy !== 'inPlace' || entry.removedBy !== 'inPlace') return undefined;
    return { dir: entry.dir };
  }

  /**
   * Whether `folder` was made where it is by a create event (not moved there): every entry
   * made inside it then has an event of its own, so listing it would only race those events.
   */
  createdInPlace(folder: string): boolean {
    const entry = this.entries.get(folder);
    return entry?.dir === true && entry.createdInPlace === true;
  }

  private forgetOld(now: number): void {
    for (const [p, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && now - entry.at < this.keepMs) break;
      this.entries.delete(p);
    }
  }
}
