/**
 * File activity of one host: watcher hints plus a snapshot become Added, Modified, Removed,
 * Renamed and Moved records (DESIGN.md §6; docs/activity-pipeline.md explains the design).
 *
 * - Start-up: the snapshot committed last time is compared with a scan of the folders, so what
 *   changed while the agent was down is recorded (Added, Removed, Modified, Renamed by inode).
 * - Live: watcher events only name a path; after a short settle time each named path is
 *   compared with the snapshot, so a burst of events for one file becomes one record, and a new
 *   folder is watched and then listed (files created in it before the watch are not missed).
 * - Every folder that had events is listed again when its changes are flushed and once more
 *   when activity goes quiet, so events the kernel or libuv dropped are still found; after a
 *   burst big enough to overflow the inotify queue, every watched folder is listed.
 * - Full scans run at the configured interval and when a watcher reports an error.
 *
 * Records and the snapshot rows they change are committed in one transaction.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { HostSettings } from '../config/monitoring-schema.js';
import type { Logger } from '../log/logger.js';
import type { Pipeline } from '../pipeline/pipeline.js';
import type { PipelineItem, Submission } from '../pipeline/pipeline-item.js';
import type { Coverage, MonitorStateTable, SnapshotEntry, SnapshotOp } from '../store/monitor-state.js';
import type { StatusRegistry } from '../status/status-registry.js';
import { CoverageMatcher, isUnder } from './coverage.js';
import { fileChangeToItem, type FileChange } from './file-change.js';
import { FileTree } from './file-tree.js';
import { FolderWatchers } from './folder-watchers.js';
import type { LocalAccount } from './local-account.js';
import { ADD_FOLDER_HINT } from './default-host.js';
import { diffSnapshots, type SnapshotDiff } from './snapshot-diff.js';

export interface FileActivitySourceOptions {
  host: HostSettings;
  coverage: Coverage;
  pipeline: Pipeline;
  state: MonitorStateTable;
  status: StatusRegistry;
  account: LocalAccount;
  log: Logger;
  /** Quiet time after the last event before changes are flushed. */
  settleMs?: number;
  /** Longest time a change waits while events keep coming. */
  maxDelayMs?: number;
  /** Quiet time after which active folders are listed once more. */
  sweepMs?: number;
  /** How often folders that could not be watched, and missing include folders, are checked. */
  retryMs?: number;
  /** Events between two sweeps above which every folder is listed (inotify queue overflow risk). */
  overflowRisk?: number;
}

const RECORDS_PER_SUBMISSION = 5000;
/** Pending paths beyond this turn into one full scan instead (memory stays bounded). */
const MAX_PENDING = 200_000;

function entryOf(stat: fs.Stats): SnapshotEntry {
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

function lstat(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Records and snapshot changes in commit-sized chunks that keep their order. */
class ChangeCollector {
  readonly chunks: Array<{ items: PipelineItem[]; ops: SnapshotOp[] }> = [{ items: [], ops: [] }];
  private get current() {
    return this.chunks[this.chunks.length - 1]!;
  }
  op(change: SnapshotOp): void {
    this.current.ops.push(change);
  }
  record(item: PipelineItem): void {
    this.current.items.push(item);
    if (this.current.items.length >= RECORDS_PER_SUBMISSION) this.chunks.push({ items: [], ops: [] });
  }
  get recordCount(): number {
    return this.chunks.reduce((n, c) => n + c.items.length, 0);
  }
}

export class FileActivitySource {
  readonly hostId: string;
  private readonly tree = new FileTree();
  private readonly watchers: FolderWatchers;
  private readonly matcher: CoverageMatcher;
  private pending = new Map<string, number>();
  private dirtyDirs = new Set<string>();
  private fullScanWanted = false;
  private firstPendingAt = 0;
  private lastHintAt = 0;
  private flushTimer: NodeJS.Timeout | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private rescanTimer: NodeJS.Timeout | null = null;
  private readonly sweepDirs = new Set<string>();
  private hintsSinceSweep = 0;
  private readonly unwatched = new Map<string, string>();
  private readonly missingRoots = new Set<string>();
  private readonly unreadable = new Map<string, string>();
  private work: Promise<void> = Promise.resolve();
  private stopped = false;
  private started = false;
  private readonly settleMs: number;
  private readonly maxDelayMs: number;
  private readonly sweepMs: number;
  private readonly retryMs: number;
  private readonly overflowRisk: number;
  /** Counters for tests, benchmarks and the status details. */
  readonly counters = { hints: 0, flushes: 0, recoveredByListing: 0, fullScans: 0, recordsSubmitted: 0 };

  constructor(private readonly options: FileActivitySourceOptions) {
    this.hostId = options.host.id;
    this.matcher = new CoverageMatcher(options.coverage);
    this.watchers = new FolderWatchers(
      (dir, name) => this.onHint(dir, name),
      (dir, error) => this.onWatchError(dir, error),
    );
    this.settleMs = options.settleMs ?? 100;
    this.maxDelayMs = options.maxDelayMs ?? 1000;
    this.sweepMs = options.sweepMs ?? 1000;
    this.retryMs = options.retryMs ?? 30_000;
    this.overflowRisk = options.overflowRisk ?? 4096;
  }

  /** Number of folders being watched. */
  get watchedFolders(): number {
    return this.watchers.count;
  }

  /** Loads the snapshot, watches and scans the folders, records what changed since. */
  start(): Promise<void> {
    return this.serial(async () => {
      const { state, host, coverage } = this.options;
      const previous = state.coverage(host.id);
      const known = state.load(host.id);
      const scanned = new Map<string, SnapshotEntry>();
      for (const root of coverage.include) await this.walk(root, scanned);
      if (this.stopped) return;
      this.keepUnavailable(scanned, [...known.keys()], (p) => known.get(p));
      const oldMatcher = previous ? new CoverageMatcher(previous) : null;

      // What the snapshot holds outside today's folders is forgotten; what today's folders hold
      // that the old ones did not is taken as the new baseline, without records.
      const collector = new ChangeCollector();
      const before = new Map<string, SnapshotEntry>();
      for (const [p, entry] of known) {
        if (this.matcher.covers(p)) before.set(p, entry);
        else collector.op({ op: 'delete', path: p });
      }
      const after = new Map<string, SnapshotEntry>();
      for (const [p, entry] of scanned) {
        if (oldMatcher?.covers(p) || before.has(p)) after.set(p, entry);
        else {
          this.tree.set(p, entry);
          collector.op({ op: 'upsert', path: p, entry });
        }
      }
      for (const [p, entry] of before) this.tree.set(p, entry);
      const diff = diffSnapshots(before, after);
      this.apply(diff, collector, { byScan: true, times: new Map(), scanNewFolders: false });
      await this.submit(collector, () => state.setCoverage(host.id, coverage));
      this.started = true;
      this.updateStatus();
      this.armTimers();
      this.options.log.info('monitoring folders', {
        host: host.name,
        folders: coverage.include.join(', '),
        watched: this.watchers.count,
        entries: this.tree.size,
        changesSinceLastRun: diffCount(diff),
      });
    });
  }

  /** Stops watching, records what was already seen, and waits for it to be committed. */
  async stop(): Promise<void> {
    if (this.stopped) return this.work;
    this.stopped = true;
    this.watchers.closeAll();
    for (const timer of [this.flushTimer, this.sweepTimer, this.retryTimer, this.rescanTimer]) {
      if (timer) clearTimeout(timer);
    }
    if (this.started && (this.pending.size > 0 || this.dirtyDirs.size > 0)) {
      void this.serial(() => this.flush());
    }
    await this.work;
  }

  /** Runs a full reconciling scan now (also used by tests and the periodic timer). */
  rescan(): Promise<void> {
    return this.serial(() => this.fullScan());
  }

  /** Resolves when every event seen so far has been turned into records and committed. */
  async settle(): Promise<void> {
    while (this.pending.size > 0 || this.dirtyDirs.size > 0 || this.flushTimer) {
      this.flushNow();
      await this.work;
    }
    await this.work;
  }

  private serial(task: () => Promise<void>): Promise<void> {
    const run = this.work.then(task, task);
    this.work = run.catch((error: Error) => {
      this.options.log.error('file activity processing failed', { host: this.options.host.name, error: error.message });
      this.options.status.setHostStatus(this.hostId, 'Error', 'File activity processing failed', error.message);
    });
    return run;
  }

  // ---- hints from the watchers ----

  private onHint(dir: string, name: string | null): void {
    if (this.stopped) return;
    this.counters.hints++;
    this.hintsSinceSweep++;
    const now = Date.now();
    this.dirtyDirs.add(dir);
    if (name !== null) {
      const p = path.join(dir, name);
      if (!this.pending.has(p)) this.pending.set(p, now);
      if (this.pending.size > MAX_PENDING) {
        this.pending.clear();
        this.fullScanWanted = true;
      }
    }
    if (this.firstPendingAt === 0) this.firstPendingAt = now;
    this.lastHintAt = now;
    this.flushTimer ??= setTimeout(() => this.onFlushTimer(), this.settleMs);
  }

  private onFlushTimer(): void {
    this.flushTimer = null;
    const now = Date.now();
    const quiet = now - this.lastHintAt >= this.settleMs;
    const overdue = now - this.firstPendingAt >= this.maxDelayMs;
    if (!quiet && !overdue) {
      this.flushTimer = setTimeout(() => this.onFlushTimer(), this.settleMs);
      return;
    }
    this.flushNow();
  }

  private flushNow(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    this.firstPendingAt = 0;
    void this.serial(() => this.flush());
  }

  private onWatchError(dir: string, error: Error): void {
    this.options.log.warn('folder watcher failed; rescanning', { dir, error: error.message });
    this.fullScanWanted = true;
    this.onHint(dir, null);
  }

  // ---- turning hints into changes ----

  private async flush(): Promise<void> {
    if (this.stopped && !this.started) return;
    if (this.fullScanWanted) {
      this.fullScanWanted = false;
      this.pending.clear();
      this.dirtyDirs.clear();
      return this.fullScan();
    }
    this.counters.flushes++;
    const hints = this.pending;
    const dirty = this.dirtyDirs;
    this.pending = new Map();
    this.dirtyDirs = new Set();
    const now = Date.now();

    // List every folder that had events: names the watcher did not report are found here.
    for (const dir of dirty) {
      this.sweepDirs.add(dir);
      if (!this.tree.get(dir)?.dir) continue;
      let names: string[];
      try {
        names = fs.readdirSync(dir);
      } catch {
        if (!hints.has(dir)) hints.set(dir, now);
        continue;
      }
      const known = this.tree.childrenOf(dir);
      const present = new Set(names);
      for (const name of names) {
        if (known.has(name)) continue;
        const p = path.join(dir, name);
        if (!hints.has(p)) {
          hints.set(p, now);
          this.counters.recoveredByListing++;
        }
      }
      for (const name of known) {
        if (present.has(name)) continue;
        const p = path.join(dir, name);
        if (!hints.has(p)) {
          hints.set(p, now);
          this.counters.recoveredByListing++;
        }
      }
    }

    const before = new Map<string, SnapshotEntry>();
    const after = new Map<string, SnapshotEntry>();
    let looked = 0;
    for (const p of hints.keys()) {
      if (!this.matcher.covers(p)) continue;
      const known = this.tree.get(p);
      if (known) before.set(p, known);
      else if (!this.tree.get(path.dirname(p))?.dir) continue; // under a folder not (yet) known
      const stat = lstat(p);
      if (stat) after.set(p, entryOf(stat));
      if (++looked % 2000 === 0) await yieldToLoop();
    }
    await this.expandNewFolders(before, after);
    const deferred = this.deferHotFiles(before, after, hints, now);
    const collector = new ChangeCollector();
    const missing = this.missingRoots.size;
    this.apply(diffSnapshots(before, after), collector, {
      byScan: false,
      times: hints,
      scanNewFolders: true,
      skip: deferred,
    });
    if (this.missingRoots.size !== missing) this.updateStatus();
    await this.submit(collector);
    this.armSweep();
  }

  /**
   * A file written in the last settle time is probably still being written (a create is an
   * open, then writes, then a close): it waits for the next flush, so one save is one record,
   * not an Added followed by a Modified. A file written without pause is still reported once
   * its first event is `maxDelayMs` old.
   */
  private deferHotFiles(
    before: Map<string, SnapshotEntry>,
    after: Map<string, SnapshotEntry>,
    hints: ReadonlyMap<string, number>,
    now: number,
  ): Set<string> {
    const deferred = new Set<string>();
    for (const [p, entry] of after) {
      if (entry.dir || entry.mtimeMs <= now - this.settleMs) continue;
      const firstSeen = hints.get(p) ?? now;
      if (now - firstSeen >= this.maxDelayMs) continue;
      deferred.add(p);
      if (!this.pending.has(p)) this.pending.set(p, firstSeen);
    }
    if (deferred.size > 0) {
      // What vanished may be the other half of a rename into a deferred path: it waits too.
      for (const p of before.keys()) {
        if (after.has(p) || now - (hints.get(p) ?? now) >= this.maxDelayMs) continue;
        deferred.add(p);
        if (!this.pending.has(p)) this.pending.set(p, hints.get(p) ?? now);
      }
    }
    for (const p of deferred) {
      before.delete(p);
      after.delete(p);
    }
    if (deferred.size > 0) {
      if (this.firstPendingAt === 0) this.firstPendingAt = now;
      this.flushTimer ??= setTimeout(() => this.onFlushTimer(), this.settleMs);
    }
    return deferred;
  }

  /**
   * A folder that is new at its path (created, moved or renamed here) is listed now, so its
   * contents take part in the comparison: a file moved into it pairs with where it came from.
   */
  private async expandNewFolders(before: Map<string, SnapshotEntry>, after: Map<string, SnapshotEntry>): Promise<void> {
    const fresh = [...after].filter(([p, e]) => e.dir && before.get(p)?.ino !== e.ino).map(([p]) => p);
    for (const folder of fresh) {
      for (const p of this.tree.get(folder) ? this.tree.descendants(folder) : []) {
        if (!before.has(p)) before.set(p, this.tree.get(p)!);
      }
      const found = new Map<string, SnapshotEntry>();
      await this.list(folder, found);
      for (const [p, e] of found) if (!after.has(p)) after.set(p, e);
    }
  }

  /** Lists what is under `folder` (not the folder itself) into `into`, without watching. */
  private list(folder: string, into: Map<string, SnapshotEntry>): Promise<void> {
    return this.traverse(folder, into, {});
  }

  /**
   * Depth-first listing of the covered entries under `start` into `into`, yielding to the event
   * loop every 2000 entries. `beforeList` runs on each folder before it is read (the initial walk
   * watches it first, so nothing created meanwhile is missed); `unreadable` gets the folders
   * that cannot be read.
   */
  private async traverse(
    start: string,
    into: Map<string, SnapshotEntry>,
    hooks: { beforeList?: (dir: string) => void; unreadable?: (dir: string, error: unknown) => void },
  ): Promise<void> {
    const stack = [start];
    let listed = 0;
    while (stack.length > 0 && !this.stopped) {
      const dir = stack.pop()!;
      hooks.beforeList?.(dir);
      let dirents: fs.Dirent[];
      try {
        dirents = fs.readdirSync(dir, { withFileTypes: true });
      } catch (error) {
        hooks.unreadable?.(dir, error);
        continue;
      }
      for (const dirent of dirents) {
        const p = path.join(dir, dirent.name);
        if (!this.matcher.covers(p)) continue;
        const stat = lstat(p);
        if (!stat) continue;
        const entry = entryOf(stat);
        into.set(p, entry);
        if (entry.dir) stack.push(p);
      }
      listed += dirents.length + 1;
      if (listed >= 2000) {
        listed = 0;
        await yieldToLoop();
      }
    }
  }

  /** Lists active folders once more after activity stops (all folders after a big burst). */
  private armSweep(): void {
    if (this.stopped) return;
    if (this.sweepTimer) clearTimeout(this.sweepTimer);
    this.sweepTimer = setTimeout(() => {
      this.sweepTimer = null;
      if (this.stopped) return;
      if (Date.now() - this.lastHintAt < this.sweepMs) return this.armSweep();
      const all = this.hintsSinceSweep >= this.overflowRisk;
      const dirs = all ? this.tree.folders() : [...this.sweepDirs];
      this.sweepDirs.clear();
      this.hintsSinceSweep = 0;
      if (dirs.length === 0) return;
      const recoveredBefore = this.counters.recoveredByListing;
      for (const dir of dirs) this.dirtyDirs.add(dir);
      void this.serial(async () => {
        await this.flush();
        // A sweep that found something may have more to find: sweep again after quiet time.
        if (this.counters.recoveredByListing === recoveredBefore) {
          if (this.sweepTimer) clearTimeout(this.sweepTimer);
          this.sweepTimer = null;
          this.sweepDirs.clear();
        } else {
          this.options.log.info('changes missed by the watcher found by listing', {
            host: this.options.host.name,
            count: this.counters.recoveredByListing - recoveredBefore,
          });
        }
      });
    }, this.sweepMs);
  }

  private async fullScan(): Promise<void> {
    this.counters.fullScans++;
    const scanned = new Map<string, SnapshotEntry>();
    this.missingRoots.clear();
    this.unreadable.clear();
    for (const root of this.options.coverage.include) await this.walk(root, scanned);
    if (this.stopped) return;
    this.keepUnavailable(
      scanned,
      [...this.unavailable()].flatMap((p) => [p, ...this.tree.descendants(p)]),
      (p) => this.tree.get(p),
    );
    const before = new Map(this.tree.entriesList());
    const collector = new ChangeCollector();
    const diff = diffSnapshots(before, scanned);
    this.apply(diff, collector, { byScan: true, times: new Map(), scanNewFolders: false });
    await this.submit(collector);
    this.updateStatus();
    if (diffCount(diff) > 0) {
      this.options.log.info('folder scan found changes', { host: this.options.host.name, count: diffCount(diff) });
    }
  }

  /** Missing include folders and folders that cannot be read. */
  private unavailable(): string[] {
    return [...this.missingRoots, ...this.unreadable.keys()];
  }

  /**
   * What is under a missing include folder (an unmounted drive?) or a folder that cannot be
   * read is not known to be gone: keep its snapshot rather than report it all removed.
   */
  private keepUnavailable(
    scanned: Map<string, SnapshotEntry>,
    candidates: string[],
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

  /** Scans `root` into `into`, watching each folder before listing it. */
  private async walk(root: string, into: Map<string, SnapshotEntry>): Promise<void> {
    const rootStat = lstat(root);
    if (!rootStat) {
      this.missingRoots.add(root);
      return;
    }
    const rootEntry = entryOf(rootStat);
    into.set(root, rootEntry);
    if (!rootEntry.dir) return;
    await this.traverse(root, into, {
      beforeList: (dir) => this.watchFolder(dir),
      unreadable: (dir, error) =>
        this.unreadable.set(dir, (error as NodeJS.ErrnoException).code ?? (error as Error).message),
    });
  }

  private watchFolder(dir: string): void {
    if (this.stopped) return;
    const error = this.watchers.watch(dir);
    if (error) this.unwatched.set(dir, error.code ?? error.message);
    else this.unwatched.delete(dir);
  }

  /** Turns a diff into records and snapshot changes, and updates the tree and the watchers. */
  private apply(
    diff: SnapshotDiff,
    out: ChangeCollector,
    how: {
      byScan: boolean;
      times: ReadonlyMap<string, number>;
      scanNewFolders: boolean;
      /** Paths left for a later flush. */
      skip?: ReadonlySet<string>;
    },
  ): void {
    const now = Date.now();
    const emit = (change: Omit<FileChange, 'timeMs' | 'root' | 'byScan'>, timePath: string): void => {
      const root = this.matcher.rootOf(change.newPath ?? change.path) ?? this.options.coverage.include[0] ?? '';
      const timeMs = how.times.get(timePath) ?? now;
      const full: FileChange = { ...change, timeMs, root, ...(how.byScan ? { byScan: true } : {}) };
      out.record(fileChangeToItem(full, this.options.host, this.options.account));
    };

    for (const [p, entry] of diff.removed) {
      if (entry.dir) {
        this.watchers.unwatchUnder(p);
        this.tree.deleteSubtree(p);
        out.op({ op: 'deleteTree', path: p });
      } else {
        this.tree.delete(p);
        out.op({ op: 'delete', path: p });
      }
      emit({ action: 'Removed', dir: entry.dir, path: p }, p);
      if (this.options.coverage.include.includes(p)) this.missingRoots.add(p);
    }

    for (const rename of diff.renamed) {
      const sameFolder = path.dirname(rename.from) === path.dirname(rename.to);
      if (rename.after.dir) this.watchers.unwatchUnder(rename.from);
      this.tree.move(rename.from, rename.to, rename.after);
      out.op({ op: rename.after.dir ? 'deleteTree' : 'delete', path: rename.from });
      out.op({ op: 'upsert', path: rename.to, entry: rename.after });
      if (rename.after.dir) {
        for (const p of this.tree.descendants(rename.to)) {
          const entry = this.tree.get(p)!;
          out.op({ op: 'upsert', path: p, entry });
          if (entry.dir) this.sweepDirs.add(p);
        }
        this.watchFolder(rename.to);
        for (const p of this.tree.descendants(rename.to)) if (this.tree.get(p)!.dir) this.watchFolder(p);
        // Look inside once more: anything that changed during the move is found by listing.
        this.sweepDirs.add(rename.to);
      }
      emit(
        {
          action: sameFolder ? 'Renamed' : 'Moved',
          dir: rename.after.dir,
          path: rename.from,
          newPath: rename.to,
        },
        rename.to,
      );
      const { before, after } = rename;
      if (!after.dir && (before.size !== after.size || before.mtimeMs !== after.mtimeMs)) {
        emit(
          { action: 'Modified', dir: false, path: rename.to, sizeBefore: before.size, sizeAfter: after.size },
          rename.to,
        );
      }
    }

    for (const [p, entry] of diff.added) {
      if (this.tree.get(p)) continue; // found while listing a new folder above it
      if (!this.tree.get(path.dirname(p))?.dir && !this.options.coverage.include.includes(p)) continue;
      this.tree.set(p, entry);
      out.op({ op: 'upsert', path: p, entry });
      emit({ action: 'Added', dir: entry.dir, path: p }, p);
      if (entry.dir && how.scanNewFolders) this.addNewFolder(p, out, emit, how.skip);
      else if (entry.dir) this.watchFolder(p);
    }

    for (const [p, old, entry] of diff.modified) {
      this.tree.set(p, entry);
      out.op({ op: 'upsert', path: p, entry });
      emit({ action: 'Modified', dir: false, path: p, sizeBefore: old.size, sizeAfter: entry.size }, p);
    }
  }

  /** A folder appeared: watch it first, then list it, so nothing created in it is missed. */
  private addNewFolder(
    folder: string,
    out: ChangeCollector,
    emit: (change: Omit<FileChange, 'timeMs' | 'root' | 'byScan'>, timePath: string) => void,
    skip?: ReadonlySet<string>,
  ): void {
    const stack = [folder];
    while (stack.length > 0) {
      const dir = stack.pop()!;
      this.watchFolder(dir);
      let dirents: fs.Dirent[];
      try {
        dirents = fs.readdirSync(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const dirent of dirents) {
        const p = path.join(dir, dirent.name);
        if (!this.matcher.covers(p) || skip?.has(p)) continue;
        const known = this.tree.get(p);
        if (known) {
          if (known.dir) stack.push(p); // listed with its parent already; still needs a watch
          continue;
        }
        const stat = lstat(p);
        if (!stat) continue;
        const entry = entryOf(stat);
        this.tree.set(p, entry);
        out.op({ op: 'upsert', path: p, entry });
        emit({ action: 'Added', dir: entry.dir, path: p }, p);
        if (entry.dir) stack.push(p);
      }
    }
  }

  private async submit(collector: ChangeCollector, also?: () => void): Promise<void> {
    const { pipeline, state, host, status } = this.options;
    const submissions: Array<Promise<unknown>> = [];
    collector.chunks.forEach((chunk, i) => {
      const last = i === collector.chunks.length - 1;
      if (chunk.items.length === 0 && chunk.ops.length === 0 && !(last && also)) return;
      const submission: Submission = {
        items: chunk.items,
        commitWith: () => {
          state.apply(host.id, chunk.ops);
          if (last) also?.();
        },
      };
      submissions.push(
        pipeline.submit(submission).catch((error: Error) => {
          status.hostStats(host.id).droppedCount += chunk.items.length;
          status.setHostStatus(host.id, 'Error', 'Some file activity could not be recorded', error.message);
          this.options.log.error('file activity records not stored', {
            host: host.name,
            count: chunk.items.length,
            error: error.message,
          });
          this.fullScanWanted = true;
        }),
      );
    });
    this.counters.recordsSubmitted += collector.recordCount;
    await Promise.all(submissions);
  }

  // ---- periodic checks and status ----

  private armTimers(): void {
    if (this.stopped) return;
    const minutes = this.options.host.rescanIntervalMinutes;
    if (minutes > 0) {
      this.rescanTimer = setTimeout(() => {
        this.rescanTimer = null;
        void this.rescan().finally(() => this.armTimers());
      }, minutes * 60_000);
      this.rescanTimer.unref();
    }
    this.armRetry();
  }

  /** Folders that could not be watched, and missing include folders, are looked at again. */
  private armRetry(): void {
    if (this.stopped || this.retryTimer) return;
    if (this.unwatched.size === 0 && this.missingRoots.size === 0) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (this.stopped) return;
      for (const dir of [...this.unwatched.keys()]) {
        if (!this.tree.get(dir)?.dir) this.unwatched.delete(dir);
        else {
          this.watchFolder(dir);
          this.dirtyDirs.add(dir);
        }
      }
      const appeared = [...this.missingRoots].filter((root) => lstat(root) !== undefined);
      if (appeared.length > 0) this.fullScanWanted = true;
      void this.serial(() => this.flush()).finally(() => {
        this.updateStatus();
        this.armRetry();
      });
    }, this.retryMs);
    this.retryTimer.unref();
  }

  private updateStatus(): void {
    const { status, coverage } = this.options;
    const problems: string[] = [];
    if (coverage.include.length === 0) {
      status.setHostStatus(this.hostId, 'Warning', 'No folder is watched: nothing is recorded', ADD_FOLDER_HINT);
      return;
    }
    for (const root of this.missingRoots)
      problems.push(`folder ${root} does not exist (checked again every ${this.retryMs / 1000} s)`);
    const limit = [...this.unwatched.values()].filter((code) => code === 'ENOSPC').length;
    if (limit > 0) {
      problems.push(
        `the inotify watch limit (fs.inotify.max_user_watches) is reached: ${limit} folders are not watched live and are checked every ${this.retryMs / 1000} s`,
      );
    }
    const other = [...this.unwatched].filter(([, code]) => code !== 'ENOSPC');
    if (other.length > 0) problems.push(`${other.length} folders cannot be watched (${other[0]![0]}: ${other[0]![1]})`);
    if (this.unreadable.size > 0) {
      const [first, code] = [...this.unreadable][0]!;
      problems.push(
        `${this.unreadable.size} ${this.unreadable.size === 1 ? 'folder' : 'folders'} cannot be read (${first}: ${code})`,
      );
    }
    if (problems.length === 0) {
      status.setHostStatus(
        this.hostId,
        'OK',
        `Monitoring ${coverage.include.length} ${coverage.include.length === 1 ? 'folder' : 'folders'}`,
        coverage.include.join('; '),
      );
    } else {
      status.setHostStatus(this.hostId, 'Warning', 'Some folders are not fully monitored', problems.join('; '));
    }
    this.armRetry();
  }
}

function diffCount(diff: SnapshotDiff): number {
  return diff.added.length + diff.removed.length + diff.modified.length + diff.renamed.length;
}
