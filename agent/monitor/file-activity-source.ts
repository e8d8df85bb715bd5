/**
 * File activity of one host: watcher hints plus a snapshot become Added, Modified, Removed,
 * Renamed and Moved records (docs/activity-pipeline.md explains the design). An
 * ActivitySource (activity-source.ts), put together from four parts:
 *
 * - HintBatcher (hint-batcher.ts): watcher events become batches after a short settle time, so a
 *   burst of events for one file becomes one record; folders that had events are swept again
 *   when activity goes quiet (all of them after a burst that may have overflowed inotify).
 * - FolderLister (folder-lister.ts): every listing, bounded per event-loop turn.
 * - reconcile (reconcile.ts): a snapshot diff becomes records, snapshot ops and watch changes.
 * - hostStatusText (host-status-text.ts): the host status.
 *
 * At start-up the snapshot committed last time is compared with a scan, so what changed while
 * the agent was down is recorded. Full scans run at the configured interval and when a watcher
 * reports an error. Records and the snapshot rows they change are committed in one transaction.
 */
import type { SnapshotEntry } from '../store/monitor-state.js';
import type { ActivitySource, ActivitySourceStatus } from './activity-source.js';
import { ChangeCollector, submitChanges } from './change-collector.js';
import { CoverageMatcher } from './coverage.js';
import { deferEarlyFileRemovals, deferEarlyFolderRemovals } from './early-removal.js';
import type { FileActivitySourceOptions } from './file-activity-options.js';
import { FileTree } from './file-tree.js';
import { FolderHealth } from './folder-health.js';
import { FolderLister } from './folder-lister.js';
import { FolderWatchers, type HintListener, type WatchErrorListener } from './folder-watchers.js';
import { HintBatcher } from './hint-batcher.js';
import { reconcile, startingPoint, type Reconciled } from './reconcile.js';
import { realScheduler, type CancelTimer, type Scheduler } from './scheduler.js';
import { diffSnapshots, type SnapshotDiff } from './snapshot-diff.js';

export type { FileActivitySourceOptions };

export class FileActivitySource implements ActivitySource {
  readonly hostId: string;
  private readonly tree = new FileTree();
  private readonly watchers: FolderWatchers;
  private readonly matcher: CoverageMatcher;
  private readonly lister: FolderLister;
  private readonly batcher: HintBatcher;
  private readonly scheduler: Scheduler;
  private readonly retryMs: number;
  private retryTimer: CancelTimer | null = null;
  private rescanTimer: CancelTimer | null = null;
  private readonly health = new FolderHealth();
  private work: Promise<void> = Promise.resolve();
  private stopped = false;
  private started = false;
  private readonly counters = {
    flushes: 0,
    recoveredByListing: 0,
    fullScans: 0,
    recordsSubmitted: 0,
    earlyRemovalsExpired: 0,
  };

  constructor(private readonly options: FileActivitySourceOptions) {
    this.hostId = options.host.id;
    this.matcher = new CoverageMatcher(options.coverage);
    this.scheduler = options.scheduler ?? realScheduler;
    this.retryMs = options.retryMs ?? 30_000;
    const onHint: HintListener = (dir, name) => this.batcher.hint(dir, name);
    const onError: WatchErrorListener = (dir, error) => this.onWatchError(dir, error);
    this.watchers = options.watchers?.(onHint, onError) ?? new FolderWatchers(onHint, onError);
    this.lister = new FolderLister({
      covers: (p) => this.matcher.covers(p),
      stopped: () => this.stopped,
      ...(options.fs ? { fs: options.fs } : {}),
    });
    this.batcher = new HintBatcher({
      scheduler: this.scheduler,
      settleMs: options.settleMs ?? 100,
      maxDelayMs: options.maxDelayMs ?? 1000,
      sweepMs: options.sweepMs ?? 1000,
      overflowRisk: options.overflowRisk ?? 4096,
      listHintedFolders: options.listHintedFolders ?? true,
      onDue: () => void this.serial(() => this.flush()),
      onSweep: (folders) => this.sweep(folders === 'all' ? this.tree.folders() : folders),
    });
  }

  status(): ActivitySourceStatus {
    return {
      attribution: 'none',
      attributionReason: 'file change notifications do not name the process',
      counters: { ...this.counters, hints: this.batcher.hints, watchedFolders: this.watchers.count },
    };
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
      this.health.keepUnavailable(scanned, known.keys(), (p) => known.get(p));
      const start = startingPoint(known, scanned, this.matcher, previous ? new CoverageMatcher(previous) : null);
      const collector = new ChangeCollector();
      for (const p of start.forgotten) collector.op({ op: 'delete', path: p });
      for (const [p, entry] of start.baseline) {
        this.tree.set(p, entry);
        collector.op({ op: 'upsert', path: p, entry });
      }
      for (const [p, entry] of start.before) this.tree.set(p, entry);
      const diff = diffSnapshots(start.before, start.after);
      this.afterReconcile(this.reconcile(diff, collector, true, new Map()));
      await this.submit(collector, () => state.setCoverage(host.id, coverage));
      this.started = true;
      this.updateStatus();
      this.armRescan();
      this.options.log.info('monitoring folders', {
        host: host.host,
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
    this.batcher.close();
    this.retryTimer?.();
    this.rescanTimer?.();
    if (this.started && this.batcher.hasPending) void this.serial(() => this.flush());
    await this.work;
  }

  /** A full reconciling scan now (tests, the periodic timer). */
  rescan(): Promise<void> {
    return this.serial(() => this.fullScan());
  }

  /** Resolves when every event seen so far has been turned into records and committed. */
  async settle(): Promise<void> {
    while (this.batcher.hasWork) {
      this.batcher.dueNow();
      await this.work;
    }
    await this.work;
  }

  private serial(task: () => Promise<void>): Promise<void> {
    const run = this.work.then(task, task);
    this.work = run.catch((error: Error) => {
      this.options.log.error('file activity processing failed', { host: this.options.host.host, error: error.message });
      this.options.status.setHostStatus(this.hostId, 'Error', 'File activity processing failed', error.message);
    });
    return run;
  }

  private onWatchError(dir: string, error: Error): void {
    this.options.log.warn('folder watcher failed; rescanning', { dir, error: error.message });
    this.batcher.wantFullScan();
    this.batcher.hint(dir, null);
  }

  /** Turns the waiting hints into records: list folders that had events, look, compare. */
  private async flush(): Promise<void> {
    if (this.stopped && !this.started) return;
    const { hints, dirty, fullScan } = this.batcher.take();
    if (fullScan) return this.fullScan();
    this.counters.flushes++;
    const now = this.scheduler.now();
    // List every folder that had events: names the watcher did not report are found here.
    this.counters.recoveredByListing += this.lister.listAgain(dirty, this.tree, hints, now);
    const before = new Map<string, SnapshotEntry>();
    const after = new Map<string, SnapshotEntry>();
    await this.lister.look(hints.keys(), this.tree, before, after);
    await this.lister.expandNewFolders(this.tree, before, after, this.options.listNewFolder);
    const deferred = this.batcher.deferHotFiles(before, after, hints, now);
    const reported = this.options.removalReported;
    if (reported) {
      // An attributing source: what was found gone before its delete events waits for them.
      const batch = { before, after, hints, now, defer: (p: string, at: number) => this.batcher.defer(p, at) };
      for (const early of [deferEarlyFolderRemovals(batch, this.tree), deferEarlyFileRemovals(batch, reported)]) {
        for (const p of early.waiting) deferred.add(p);
        this.counters.earlyRemovalsExpired += early.expired; // removals whose events never came
      }
    }
    const collector = new ChangeCollector();
    const missing = this.health.missingRoots.size;
    const diff = { ...diffSnapshots(before, after), passed: this.passedThrough(hints.keys(), after, deferred) };
    const done = this.reconcile(diff, collector, false, hints);
    this.afterReconcile(done);
    await this.catchUpNewFolders(done.newFolders, collector, hints, deferred);
    if (this.health.missingRoots.size !== missing) this.updateStatus();
    await this.submit(collector);
    this.batcher.armSweep();
  }

  /** Hinted paths neither known nor on disk that events say were created and deleted again. */
  private passedThrough(hinted: Iterable<string>, after: ReadonlyMap<string, SnapshotEntry>, deferred: Set<string>) {
    const passed: Array<[string, boolean]> = [];
    const of = this.options.createdAndDeleted;
    if (!of) return passed;
    for (const p of hinted) {
      if (after.has(p) || deferred.has(p) || this.tree.get(p) || !this.matcher.covers(p)) continue;
      const life = of(p);
      if (life) passed.push([p, life.dir]);
    }
    return passed;
  }

  private reconcile(diff: SnapshotDiff, out: ChangeCollector, byScan: boolean, times: ReadonlyMap<string, number>) {
    const { host, account, coverage, actorOf } = this.options;
    const rootOf = (p: string) => this.matcher.rootOf(p);
    const context = { host, account, include: coverage.include, rootOf, actorOf, byScan, times };
    return reconcile(diff, this.tree, { ...context, now: this.scheduler.now() }, out);
  }

  private afterReconcile(done: Reconciled): void {
    for (const dir of done.unwatchUnder) this.watchers.unwatchUnder(dir);
    for (const dir of done.watch) this.watchFolder(dir);
    for (const dir of done.sweep) this.batcher.sweepLater(dir);
    for (const root of done.missingRoots) this.health.missingRoots.add(root);
  }

  /**
   * A folder appeared: it is watched (above), then listed again, each folder inside watched
   * before it is read, so what was created in it before its watch started is recorded too.
   */
  private async catchUpNewFolders(
    folders: readonly string[],
    out: ChangeCollector,
    times: ReadonlyMap<string, number>,
    skip: ReadonlySet<string>,
  ): Promise<void> {
    const listed = this.options.listNewFolder;
    if (listed) folders = folders.filter(listed);
    if (folders.length === 0) return;
    const found = new Map<string, SnapshotEntry>();
    for (const folder of folders) {
      await this.lister.traverse(folder, found, { beforeList: (dir) => this.watchFolder(dir) });
    }
    const added = [...found].filter(([p]) => !this.tree.get(p) && !skip.has(p));
    if (added.length === 0) return;
    added.sort((a, b) => a[0].length - b[0].length);
    const diff: SnapshotDiff = { removed: [], added, modified: [], renamed: [] };
    this.afterReconcile({ ...this.reconcile(diff, out, false, times), newFolders: [] });
  }

  private sweep(folders: string[]): void {
    const recoveredBefore = this.counters.recoveredByListing;
    for (const dir of folders) this.batcher.markDirty(dir);
    void this.serial(async () => {
      await this.flush();
      // A sweep that found something may have more to find: sweep again after quiet time.
      const found = this.counters.recoveredByListing - recoveredBefore;
      if (found === 0) this.batcher.sweepDone();
      else
        this.options.log.info('changes missed by the watcher found by listing', {
          host: this.options.host.host,
          count: found,
        });
    });
  }

  private async fullScan(): Promise<void> {
    this.counters.fullScans++;
    const scanned = new Map<string, SnapshotEntry>();
    this.health.rescanning();
    for (const root of this.options.coverage.include) await this.walk(root, scanned);
    if (this.stopped) return;
    const unavailable = this.health.unavailable().flatMap((p) => [p, ...this.tree.descendants(p)]);
    this.health.keepUnavailable(scanned, unavailable, (p) => this.tree.get(p));
    const collector = new ChangeCollector();
    const diff = diffSnapshots(new Map(this.tree.entriesList()), scanned);
    this.afterReconcile(this.reconcile(diff, collector, true, new Map()));
    await this.submit(collector);
    this.updateStatus();
    if (diffCount(diff) > 0) {
      this.options.log.info('folder scan found changes', { host: this.options.host.host, count: diffCount(diff) });
    }
  }

  /** Scans `root` into `into`, watching each folder before listing it. */
  private async walk(root: string, into: Map<string, SnapshotEntry>): Promise<void> {
    const exists = await this.lister.walk(root, into, {
      beforeList: (dir) => this.watchFolder(dir),
      unreadable: (dir, error) => this.health.cannotRead(dir, error),
    });
    if (!exists) this.health.missingRoots.add(root);
  }

  private watchFolder(dir: string): void {
    if (this.stopped) return;
    this.health.watched(dir, this.watchers.watch(dir));
  }

  private async submit(collector: ChangeCollector, also?: () => void): Promise<void> {
    const { pipeline, state, host, status, log } = this.options;
    this.counters.recordsSubmitted += collector.recordCount;
    await submitChanges(pipeline, collector, {
      applyOps: (ops) => state.apply(host.id, ops),
      ...(also ? { also } : {}),
      failed: (chunk, error) => {
        const count = chunk.items.length;
        status.hostStats(host.id).droppedCount += count;
        status.setHostStatus(host.id, 'Error', 'Some file activity could not be recorded', error.message);
        log.error('file activity records not stored', { host: host.host, count, error: error.message });
        this.batcher.wantFullScan(); // the snapshot did not change: the next scan finds it all again
      },
    });
  }

  // ---- periodic checks and status ----

  private armRescan(): void {
    const minutes = this.options.host.rescanIntervalMinutes;
    if (this.stopped || minutes <= 0) return;
    this.rescanTimer = this.scheduler.after(
      minutes * 60_000,
      () => void this.rescan().finally(() => this.armRescan()),
      true,
    );
  }

  /** Folders that could not be watched, and missing include folders, are looked at again. */
  private armRetry(): void {
    if (this.stopped || this.retryTimer) return;
    if (!this.health.needsRetry) return;
    const retry = (): void => {
      this.retryTimer = null;
      if (this.stopped) return;
      for (const dir of [...this.health.unwatched.keys()]) {
        if (!this.tree.get(dir)?.dir) this.health.unwatched.delete(dir);
        else {
          this.watchFolder(dir);
          this.batcher.markDirty(dir);
        }
      }
      if ([...this.health.missingRoots].some((root) => this.lister.fs.entry(root))) this.batcher.wantFullScan();
      void this.serial(() => this.flush()).finally(() => this.updateStatus());
    };
    this.retryTimer = this.scheduler.after(this.retryMs, retry, true);
  }

  private updateStatus(): void {
    const { type, summary, details } = this.health.statusText(this.options.coverage.include, this.retryMs);
    this.options.status.setHostStatus(this.hostId, type, summary, details);
    this.armRetry();
  }
}

const diffCount = (d: SnapshotDiff): number => d.added.length + d.removed.length + d.modified.length + d.renamed.length;
