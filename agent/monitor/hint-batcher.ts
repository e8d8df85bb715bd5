/**
 * Collects watcher hints ("something happened to this name in this folder") into batches for the
 * file activity source (file-activity-source.ts):
 *
 * - A batch is due once events have been quiet for `settleMs`, or `maxDelayMs` after its first
 *   event while they keep coming, so a burst of events for one file becomes one record.
 * - Each folder that had events is remembered for a sweep: once activity has been quiet for
 *   `sweepMs` those folders are listed once more (every folder when more than `overflowRisk`
 *   events came since the last sweep: the kernel's queue may have overflowed).
 * - More than `maxPending` paths turn into one full scan instead (memory stays bounded).
 *
 * No file system and no clock of its own: time comes from the injected Scheduler.
 */
import path from 'node:path';
import type { SnapshotEntry } from '../store/monitor-state.js';
import type { CancelTimer, Scheduler } from './scheduler.js';

export interface HintBatcherOptions {
  scheduler: Scheduler;
  settleMs: number;
  maxDelayMs: number;
  sweepMs: number;
  overflowRisk: number;
  maxPending?: number;
  /**
   * false: a hint that names a file does not get its folder listed again. For events that name
   * every change and report their own losses (fanotify, docs/attribution.md): listing then
   * would only race the events still on their way, and find their changes without an actor.
   */
  listHintedFolders?: boolean;
  /** A batch is due: the owner takes it with `take()`. */
  onDue: () => void;
  /** Activity went quiet: list these folders again (`all`: every folder). */
  onSweep: (folders: string[] | 'all') => void;
}

/** Paths named by hints, with when each was first named, and folders to list again. */
export interface HintBatch {
  hints: Map<string, number>;
  dirty: Set<string>;
  /** A full scan replaces the batch (a watcher failed, too many paths, a commit failed). */
  fullScan: boolean;
}

export class HintBatcher {
  private pending = new Map<string, number>();
  private dirty = new Set<string>();
  private fullScan = false;
  private firstPendingAt = 0;
  private lastHintAt = 0;
  private flushTimer: CancelTimer | null = null;
  private sweepTimer: CancelTimer | null = null;
  private readonly sweepDirs = new Set<string>();
  private hintsSinceSweep = 0;
  private closed = false;
  hints = 0;

  constructor(private readonly o: HintBatcherOptions) {}

  /** Events, deferred paths or a timer are waiting to be processed. */
  get hasWork(): boolean {
    return this.pending.size > 0 || this.dirty.size > 0 || this.flushTimer !== null;
  }

  /** Paths or folders are waiting (what a stopping source still commits). */
  get hasPending(): boolean {
    return this.pending.size > 0 || this.dirty.size > 0;
  }

  /** A watcher event: `name` changed in `dir` (null: something in `dir`). */
  hint(dir: string, name: string | null): void {
    if (this.closed) return;
    this.hints++;
    this.hintsSinceSweep++;
    const now = this.o.scheduler.now();
    if (name === null || this.o.listHintedFolders !== false) this.dirty.add(dir);
    if (name !== null) {
      // Not path.join: watchers name an entry of a normalised folder, and joining normalises
      // the whole path again, once per event of a burst.
      const p = dir.endsWith(path.sep) ? dir + name : dir + path.sep + name;
      if (!this.pending.has(p)) this.pending.set(p, now);
      if (this.pending.size > (this.o.maxPending ?? 200_000)) {
        this.pending.clear();
        this.fullScan = true;
      }
    }
    if (this.firstPendingAt === 0) this.firstPendingAt = now;
    this.lastHintAt = now;
    this.armFlush();
  }

  /** The next batch is a full scan. */
  wantFullScan(): void {
    this.fullScan = true;
  }

  /** `dir` is listed with the next batch (without counting as an event). */
  markDirty(dir: string): void {
    this.dirty.add(dir);
  }

  /** `dir` is listed again when activity goes quiet. */
  sweepLater(dir: string): void {
    this.sweepDirs.add(dir);
  }

  /** A path left for a later batch (a file still being written); keeps when it was first seen. */
  defer(p: string, firstSeen: number): void {
    if (!this.pending.has(p)) this.pending.set(p, firstSeen);
    if (this.firstPendingAt === 0) this.firstPendingAt = this.o.scheduler.now();
    this.armFlush();
  }

  /** Makes the batch due now instead of after the settle time. */
  dueNow(): void {
    this.flushTimer?.();
    this.flushTimer = null;
    this.firstPendingAt = 0;
    this.o.onDue();
  }

  /** Takes what is waiting; the folders listed go on the sweep list. */
  take(): HintBatch {
    const batch: HintBatch = { hints: this.pending, dirty: this.dirty, fullScan: this.fullScan };
    this.pending = new Map();
    this.dirty = new Set();
    this.fullScan = false;
    if (batch.fullScan) {
      batch.hints.clear();
      batch.dirty.clear();
    }
    for (const dir of batch.dirty) this.sweepDirs.add(dir);
    return batch;
  }

  /**
   * A file written in the last settle time is probably still being written (a create is an
   * open, then writes, then a close): it waits for the next batch, so one save is one record,
   * not an Added followed by a Modified. A file written without pause is still reported once
   * its first event is `maxDelayMs` old. What vanished may be the other half of a rename into a
   * deferred path: it waits too. Returns the deferred paths, removed from `before` and `after`.
   */
  deferHotFiles(
    before: Map<string, SnapshotEntry>,
    after: Map<string, SnapshotEntry>,
    hints: ReadonlyMap<string, number>,
    now: number,
  ): Set<string> {
    const { settleMs, maxDelayMs } = this.o;
    const deferred = new Set<string>();
    for (const [p, entry] of after) {
      if (entry.dir || entry.mtimeMs <= now - settleMs) continue;
      if (now - (hints.get(p) ?? now) >= maxDelayMs) continue;
      deferred.add(p);
    }
    if (deferred.size > 0) {
      for (const p of before.keys()) {
        if (!after.has(p) && now - (hints.get(p) ?? now) < maxDelayMs) deferred.add(p);
      }
    }
    for (const p of deferred) {
      before.delete(p);
      after.delete(p);
      this.defer(p, hints.get(p) ?? now);
    }
    return deferred;
  }

  /** After a batch: lists its folders once more when activity has been quiet for `sweepMs`. */
  armSweep(): void {
    if (this.closed) return;
    this.sweepTimer?.();
    this.sweepTimer = this.o.scheduler.after(this.o.sweepMs, () => {
      this.sweepTimer = null;
      if (this.closed) return;
      if (this.o.scheduler.now() - this.lastHintAt < this.o.sweepMs) return this.armSweep();
      const all = this.hintsSinceSweep >= this.o.overflowRisk;
      const dirs = [...this.sweepDirs];
      this.sweepDirs.clear();
      this.hintsSinceSweep = 0;
      if (all) this.o.onSweep('all');
      else if (dirs.length > 0) this.o.onSweep(dirs);
    });
  }

  /** A sweep found nothing: no further sweep until new events come. */
  sweepDone(): void {
    this.sweepTimer?.();
    this.sweepTimer = null;
    this.sweepDirs.clear();
  }

  close(): void {
    this.closed = true;
    this.flushTimer?.();
    this.sweepTimer?.();
    this.flushTimer = this.sweepTimer = null;
  }

  private armFlush(): void {
    if (this.closed) return; // a stopping source flushes once itself; the rest is found at start
    this.flushTimer ??= this.o.scheduler.after(this.o.settleMs, () => this.onFlushTimer());
  }

  private onFlushTimer(): void {
    this.flushTimer = null;
    const now = this.o.scheduler.now();
    const quiet = now - this.lastHintAt >= this.o.settleMs;
    const overdue = now - this.firstPendingAt >= this.o.maxDelayMs;
    if (quiet || overdue) this.dueNow();
    else this.armFlush();
  }
}
