/** A file system as a map and a clock that tests step, for the file activity source's parts. */
import path from 'node:path';
import type { ListingFs } from '../../../agent/monitor/folder-lister.js';
import type { CancelTimer, Scheduler } from '../../../agent/monitor/scheduler.js';
import type { SnapshotEntry } from '../../../agent/store/monitor-state.js';

export const w = (...parts: string[]): string => path.join(path.sep, 'w', ...parts);

let nextIno = 100;
export const file = (ino = nextIno++, size = 1, mtimeMs = 1000): SnapshotEntry => ({
  dir: false,
  dev: 1,
  ino,
  size,
  mtimeMs,
  birthMs: ino * 10,
});
export const folder = (ino = nextIno++): SnapshotEntry => ({
  dir: true,
  dev: 1,
  ino,
  size: 0,
  mtimeMs: 0,
  birthMs: ino * 10,
});

/** Paths to entries; a folder's names are the paths directly under it. */
export class MapFs implements ListingFs {
  readonly entries = new Map<string, SnapshotEntry>();
  listings = 0;
  constructor(entries: Array<[string, SnapshotEntry]> = []) {
    for (const [p, e] of entries) this.entries.set(p, e);
  }
  names(dir: string): string[] {
    if (!this.entries.get(dir)?.dir) throw Object.assign(new Error(`ENOENT: ${dir}`), { code: 'ENOENT' });
    this.listings++;
    return [...this.entries.keys()].filter((p) => path.dirname(p) === dir && p !== dir).map((p) => path.basename(p));
  }
  entry(p: string): SnapshotEntry | undefined {
    return this.entries.get(p);
  }
  /** Moves `from` (and what is under it) to `to`, keeping inodes: a rename. */
  move(from: string, to: string): void {
    for (const [p, e] of [...this.entries]) {
      if (p !== from && !p.startsWith(from + path.sep)) continue;
      this.entries.delete(p);
      this.entries.set(to + p.slice(from.length), e);
    }
  }
}

export class ManualClock implements Scheduler {
  time = 1_000_000;
  private timers: Array<{ at: number; fn: () => void; live: boolean }> = [];
  now(): number {
    return this.time;
  }
  after(ms: number, fn: () => void): CancelTimer {
    const timer = { at: this.time + ms, fn, live: true };
    this.timers.push(timer);
    return () => {
      timer.live = false;
    };
  }
  /** Moves time on by `ms`, running the timers that come due, in order. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.live && t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      due.live = false;
      this.time = due.at;
      due.fn();
    }
    this.timers = this.timers.filter((t) => t.live);
    this.time = end;
  }
  get pending(): number {
    return this.timers.filter((t) => t.live).length;
  }
}
