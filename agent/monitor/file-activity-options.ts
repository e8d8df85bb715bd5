/**
 * What a FileActivitySource (file-activity-source.ts) is built from: the host and its stores,
 * its timings, and what an attributing source (attributed-file-source.ts) adds: the actors,
 * and what its events alone can tell.
 */
import type { HostSettings } from '../config/monitoring-schema.js';
import type { Logger } from '../log/logger.js';
import type { Pipeline } from '../pipeline/pipeline.js';
import type { Coverage, MonitorStateTable } from '../store/monitor-state.js';
import type { StatusRegistry } from '../status/status-registry.js';
import type { ListingFs } from './folder-lister.js';
import type { FolderWatchers, HintListener, WatchErrorListener } from './folder-watchers.js';
import type { LocalAccount } from './local-account.js';
import type { ReconcileContext } from './reconcile.js';
import type { Scheduler } from './scheduler.js';

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
  listHintedFolders?: boolean;
  /** Tests: another file system, clock or watcher. */
  fs?: ListingFs;
  scheduler?: Scheduler;
  watchers?: (onHint: HintListener, onError: WatchErrorListener) => FolderWatchers;
  /** An attributing source's actors (attributed-file-source.ts). */
  actorOf?: ReconcileContext['actorOf'];
  /** From an attributing source: a path its events say was created and deleted again. */
  createdAndDeleted?: (p: string) => { dir: boolean } | undefined;
  /** From an attributing source: whether its events reported this path removed. */
  removalReported?: (p: string) => boolean;
  /** Whether a folder that appeared is listed for what it holds (default: always). */
  listNewFolder?: (folder: string) => boolean;
}
