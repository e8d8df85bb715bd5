/**
 * File activity of one host with the actor named (docs/attribution.md): the fanotify watch
 * (fanotify/fanotify-watch.ts) takes the place of the folder watchers. Its events are the
 * hints of the same FileActivitySource, so the start-up comparison, the batching, the
 * listings, the rescans and the commit of records with their snapshot rows stay as they are;
 * what the events add is who acted, remembered per path (actor-memory.ts) until the records
 * are made. A change no event reported (a listing or scan found it) has `Who` `unknown` and a
 * Detection detail. A kernel queue overflow is a watcher error: counted, then a full scan.
 * With `monitorReads`, reads become `Read` records (at most one per process and file a minute,
 * kept by the watch); they change no snapshot, so they are submitted on their own.
 */
import path from 'node:path';
import type { ActivitySource, ActivitySourceStatus } from './activity-source.js';
import type { Actor } from './actor.js';
import { ActorMemory } from './actor-memory.js';
import { CoverageMatcher } from './coverage.js';
import { FanotifyWatch, type AttributedEvent } from './fanotify/fanotify-watch.js';
import { fileChangeToItem } from './file-change.js';
import { FileActivitySource, type FileActivitySourceOptions } from './file-activity-source.js';
import type { FolderWatchers, HintListener, WatchErrorListener } from './folder-watchers.js';

export type AttributedFileSourceOptions = Omit<FileActivitySourceOptions, 'watchers' | 'actorOf'> & {
  /** Tests: another watch. */
  watch?: (onEvents: (events: AttributedEvent[]) => void) => WatchLike;
};

/** The folder watchers of FileActivitySource, standing in for a fanotify watch of the whole tree. */
function eventDrivenWatchers(): FolderWatchers {
  const none = (): void => undefined;
  return {
    count: 0,
    has: () => true,
    watch: () => null,
    unwatch: none,
    unwatchUnder: none,
    closeAll: none,
  } as unknown as FolderWatchers;
}

type WatchLike = Pick<FanotifyWatch, 'start' | 'stop'> & Partial<Pick<FanotifyWatch, 'stats'>>;

export class AttributedFileSource implements ActivitySource {
  readonly hostId: string;
  private readonly inner: FileActivitySource;
  private readonly watch: WatchLike;
  private readonly actors = new ActorMemory();
  private readonly matcher: CoverageMatcher;
  private onHint: HintListener = () => undefined;
  private onError: WatchErrorListener = () => undefined;
  private reads: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly counters = { overflows: 0, unattributed: 0, reads: 0, removedWithoutEvent: 0 };

  constructor(private readonly options: AttributedFileSourceOptions) {
    this.hostId = options.host.id;
    this.matcher = new CoverageMatcher(options.coverage);
    this.inner = new FileActivitySource({
      ...options,
      // Every change has its event and losses are reported (overflow): no listing on a hunch.
      listHintedFolders: false,
      overflowRisk: Number.POSITIVE_INFINITY,
      watchers: (onHint, onError) => {
        this.onHint = onHint;
        this.onError = onError;
        return eventDrivenWatchers();
      },
      actorOf: (change) => this.actorOf(change),
      createdAndDeleted: (p) => this.actors.createdAndDeleted(p),
      removalReported: (p) => this.actors.removalReported(p),
      // A folder made here has a create event for each entry made in it: listing it when it
      // appears would find those entries before their events, and record them without actor.
      listNewFolder: (folder) => !this.actors.createdInPlace(folder),
    });
    const onEvents = (events: AttributedEvent[]): void => this.onEvents(events);
    this.watch =
      options.watch?.(onEvents) ??
      new FanotifyWatch({ folders: [...options.coverage.include], reads: options.host.monitorReads, onEvents });
  }

  status(): ActivitySourceStatus {
    const inner = this.inner.status();
    const native = this.watch.stats?.();
    const reader: Record<string, number> = {};
    if (native) {
      const { eventsRead, unknownActors, unresolvedPaths, connectorOverruns, connectorResyncs, movedFromUnknown } =
        native;
      Object.assign(reader, { eventsRead, unknownActors, unresolvedPaths, connectorOverruns, connectorResyncs });
      Object.assign(reader, { movedFromUnknown });
    }
    return { attribution: 'process', counters: { ...inner.counters, ...this.counters, ...reader } };
  }

  /**
   * Starts the watch first (so nothing between the scan and the watch is missed), then the
   * scan. Rejects only when the kernel refuses the watch; a failing scan is in the host status.
   */
  async start(): Promise<void> {
    this.watch.start();
    await this.inner.start().catch(() => undefined);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.watch.stop();
    await this.inner.stop();
    await this.reads;
  }

  rescan(): Promise<void> {
    return this.inner.rescan();
  }

  async settle(): Promise<void> {
    await this.inner.settle();
    await this.reads;
  }

  private onEvents(events: AttributedEvent[]): void {
    if (this.stopped) return;
    const reads: AttributedEvent[] = [];
    for (const event of events) {
      if (event.kind === 'overflow') {
        this.counters.overflows++;
        this.options.status.hostStats(this.hostId).overflowCount++;
        for (const root of this.options.coverage.include)
          this.onError(root, new Error('fanotify event queue overflow'));
        continue;
      }
      if (!this.matcher.covers(event.path) && !(event.oldPath && this.matcher.covers(event.oldPath))) continue;
      const actor = actorOf(event);
      switch (event.kind) {
        case 'read':
          if (!event.isDir) reads.push(event);
          continue;
        case 'create':
          this.actors.remember(event.path, 'created', actor, event.isDir);
          break;
        case 'moveTo':
          this.actors.remember(event.path, 'created', actor, event.isDir, 'moved');
          break;
        case 'rename':
          this.actors.remember(event.path, 'created', actor, event.isDir, 'moved');
          if (event.oldPath !== undefined) {
            this.actors.remember(event.oldPath, 'removed', actor, event.isDir, 'moved');
            this.hint(event.oldPath);
          }
          break;
        case 'delete':
          this.actors.remember(event.path, 'removed', actor, event.isDir);
          break;
        case 'moveFrom':
          this.actors.remember(event.path, 'removed', actor, event.isDir, 'moved');
          break;
        default: // modify, closeWrite
          this.actors.remember(event.path, 'modified', actor);
      }
      this.hint(event.path);
    }
    if (reads.length > 0) this.submitReads(reads);
  }

  private hint(p: string): void {
    if (!this.matcher.covers(p)) return;
    const cut = p.lastIndexOf(path.sep); // paths from the reader are absolute and normalised
    this.onHint(cut === 0 ? path.sep : p.slice(0, cut), p.slice(cut + 1));
  }

  private actorOf(change: Parameters<ActorMemory['actorOf']>[0]): Actor | undefined {
    const actor = this.actors.actorOf(change);
    if (actor && actor.who === null) this.countUnattributed(1);
    if (!actor && change.action === 'Removed') this.counters.removedWithoutEvent++;
    return actor;
  }

  private countUnattributed(count: number): void {
    this.counters.unattributed += count;
    this.options.status.hostStats(this.hostId).unattributedCount += count;
  }

  private submitReads(events: AttributedEvent[]): void {
    const { host, account, pipeline, log } = this.options;
    const items = events.map((event) => {
      const root = this.matcher.rootOf(event.path) ?? '';
      const change = { action: 'Modified' as const, dir: false, path: event.path, timeMs: Date.now(), root };
      const item = fileChangeToItem({ ...change, actor: actorOf(event) }, host, account);
      item.record.Action = 'Read';
      item.file!.operation = 'Read';
      return item;
    });
    this.counters.reads += items.length;
    this.countUnattributed(events.filter((e) => e.who === null).length);
    this.reads = this.reads
      .then(() => pipeline.submit({ items }))
      .then(
        () => undefined,
        (error: Error) => {
          this.options.status.hostStats(host.id).droppedCount += items.length;
          log.error('read records not stored', { host: host.host, count: items.length, error: error.message });
        },
      );
  }
}

function actorOf(event: AttributedEvent): Actor {
  return { who: event.who, uid: event.uid, pid: event.pid, exe: event.exe, loginWho: event.loginWho };
}
