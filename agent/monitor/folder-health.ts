/**
 * What the file activity source cannot see fully, and the host status that says so: include
 * folders that do not exist, folders that cannot be watched (ENOSPC: the inotify watch limit)
 * and folders that cannot be read. What is under them is kept in the snapshot, not reported
 * removed: an unmounted drive or a permission change is not a deletion.
 */
import type { SnapshotEntry } from '../store/monitor-state.js';
import { isUnder } from '../util/path-under.js';
import { hostStatusText, type HostStatusText } from './host-status-text.js';

export class FolderHealth {
  readonly missingRoots = new Set<string>();
  /** Folder → error code. */
  readonly unwatched = new Map<string, string>();
  /** Folder → error code. */
  readonly unreadable = new Map<string, string>();

  /** Something to look at again later (unwatched folders, missing include folders). */
  get needsRetry(): boolean {
    return this.unwatched.size > 0 || this.missingRoots.size > 0;
  }

  /** A full scan starts: missing and unreadable folders are found again by it. */
  rescanning(): void {
    this.missingRoots.clear();
    this.unreadable.clear();
  }

  watched(dir: string, error: NodeJS.ErrnoException | null): void {
    if (error) this.unwatched.set(dir, error.code ?? error.message);
    else this.unwatched.delete(dir);
  }

  cannotRead(dir: string, error: unknown): void {
    this.unreadable.set(dir, (error as NodeJS.ErrnoException).code ?? (error as Error).message);
  }

  /** Missing include folders and folders that cannot be read. */
  unavailable(): string[] {
    return [...this.missingRoots, ...this.unreadable.keys()];
  }

  /** Puts back into `scanned` what the snapshot knew under an unavailable folder. */
  keepUnavailable(
    scanned: Map<string, SnapshotEntry>,
    candidates: Iterable<string>,
    lookup: (p: string) => SnapshotEntry | undefined,
  ): void {
    const unavailable = this.unavailable();
    if (unavailable.length === 0) return;
    for (const p of candidates) {
      if (scanned.has(p)) continue;
      const inside = unavailable.some((dir) => isUnder(p, dir) && (p !== dir || this.missingRoots.has(dir)));
      const entry = lookup(p);
      if (inside && entry) scanned.set(p, entry);
    }
  }

  statusText(include: readonly string[], retryMs: number): HostStatusText {
    const { missingRoots, unwatched, unreadable } = this;
    return hostStatusText({ include, missingRoots, unwatched, unreadable, retryMs });
  }
}
