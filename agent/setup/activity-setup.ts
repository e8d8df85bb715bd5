/**
 * The activity side of the agent (docs/architecture.md, docs/activity-pipeline.md), put together in start-up
 * order: log
 * files repaired before anything is written, then the pipeline, the self-audit recorder, the
 * file monitoring, and record retention. `stop` runs it backwards and flushes on the way:
 * watchers stop, what they saw is committed, outputs close, the store is left to the caller.
 */
import os from 'node:os';
import path from 'node:path';
import type { SettingsStore } from '../config/settings-store.js';
import type { DataPaths } from '../config/data-dir.js';
import type { Logger } from '../log/logger.js';
import { PipelineChangeRecorder, type ChangeRecorder } from '../pipeline/change-recorder.js';
import { Pipeline, type PipelineOptions } from '../pipeline/pipeline.js';
import type { LiveFeed } from '../pipeline/live-feed.js';
import type { StoredItem } from '../pipeline/pipeline-item.js';
import type { AuditStore } from '../store/audit-store.js';
import { MonitorStateTable } from '../store/monitor-state.js';
import { OutputPositions } from '../store/output-positions.js';
import { RecordRetention } from '../store/record-retention.js';
import { StatusRegistry } from '../status/status-registry.js';
import { OutputManager, type OutputManagerOptions } from '../outputs/output-manager.js';
import { LogFilesService } from '../outputs/log-files-service.js';
import { MonitorService, type MonitorServiceOptions } from '../monitor/monitor-service.js';
import { ADD_FOLDER_HINT, firstRunMonitoring } from '../monitor/default-host.js';
import { localAccount, type LocalAccount } from '../monitor/local-account.js';
import { MonitoringControl } from '../monitor/monitoring-control.js';
import { TodayCount } from '../store/today-count.js';
import { AlertBook } from '../alerts/alert-book.js';
import { AlertRulesService } from '../alerts/alert-rules.js';
import { AlertService } from '../alerts/alert-service.js';
import type { DomainPasswords } from '../config/domain-passwords.js';
import { DirectoryService } from '../directory/directory-service.js';
import { DirectoryStateTable } from '../directory/directory-state.js';
import { DomainStatusBoard } from '../directory/domain-status.js';
import { changesSelectionOf, parsePolicyXml } from '../resources/policy-xml.js';
import type { LogSigner } from '../integrity/log-sidecar.js';
import { ActivityRollup, type ActivityRollupOptions } from '../store/activity-rollup.js';
import type { TurnQueue } from '../util/turn-queue.js';

/** Tuning for tests and benchmarks; the defaults are the product's. */
export interface ActivityOptions {
  sourceTimings?: MonitorServiceOptions['sourceTimings'];
  maintenanceIntervalMs?: number;
  syslog?: OutputManagerOptions['syslog'];
  pipeline?: Pick<PipelineOptions, 'maxQueuedItems' | 'maxBatchItems'>;
  retention?: { firstRunDelayMs?: number; intervalMs?: number };
  /**
   * `off`: the folder watcher even where actors could be named. For an agent running inside a
   * test process, whose own file I/O fanotify never reports (docs/attribution.md).
   */
  attribution?: 'auto' | 'off';
  /** Per-operation LDAP timeout of the directory sources, in milliseconds. */
  directoryTimeoutMs?: number;
  rollup?: Pick<ActivityRollupOptions, 'backgroundDelayMs' | 'backgroundStepMs'>;
}

export interface ActivityServices {
  readonly pipeline: Pipeline;
  /** Committed records as they are written (the console streams this over SSE). */
  readonly feed: LiveFeed;
  /** Give this to services that change configuration (clients, hosts, outputs, settings). */
  readonly changeRecorder: PipelineChangeRecorder;
  readonly monitor: MonitorService;
  /** The directory sources of the monitored domains (docs/directory.md). */
  readonly directory: DirectoryService;
  /** Each domain's runtime status (the domain resource's `status`). */
  readonly domainStatus: DomainStatusBoard;
  readonly outputs: OutputManager;
  /** Runtime status and statistics of hosts and outputs, for the agent API's routes. */
  readonly status: StatusRegistry;
  /** The log files as `/api/v1/logs` lists them. */
  readonly logFiles: LogFilesService;
  readonly retention: RecordRetention;
  readonly account: LocalAccount;
  /** Pause/resume, today's count and current issues (the tray's `RunningAgent.monitoring`). */
  readonly monitoring: MonitoringControl;
  /** Alerts on mass changes and their rules (docs/alerts.md). */
  readonly alerts: AlertService;
  readonly alertRules: AlertRulesService;
  /** Record counts for the console's charts, counted in the background after commits. */
  readonly rollup: ActivityRollup;
  /** The last audit store write failure, or null while writes succeed. */
  writeProblem(): string | null;
  stop(): Promise<void>;
}

export interface ActivityStartOptions {
  settings: SettingsStore;
  store: AuditStore;
  paths: DataPaths;
  log: Logger;
  /** True when the settings file did not exist before this start. */
  firstRun: boolean;
  firstRunHome?: string | undefined;
  options?: ActivityOptions | undefined;
  /** Where pause and resume are reported, when not the pipeline's own recorder (tests). */
  changeRecorder?: ChangeRecorder | undefined;
  /** Signs retention's deletions (agent/integrity/chain-checkpoints.ts). */
  recordDeletion?: ((firstKeptSeq: number, predecessorChain: Buffer) => void) | undefined;
  /** The domains' bind passwords; without them no domain is monitored (tools that only record). */
  domainPasswords?: DomainPasswords | undefined;
  /** Signs the log files' sidecars (agent/integrity/log-sidecar.ts). */
  signer?: LogSigner | undefined;
  /** The turns the audit searches take (stores.ts): the rollup's slices take theirs there too. */
  turns?: TurnQueue | undefined;
}

export async function startActivityPipeline(start: ActivityStartOptions): Promise<ActivityServices> {
  const { settings, store, paths, log } = start;
  const tuning = start.options ?? {};
  const account = localAccount();

  let firstRunChange: { hostId: string; hostName: string; folders: string[] } | null = null;
  if (start.firstRun && settings.current.hosts.length === 0) {
    const { host, output } = firstRunMonitoring(start.firstRunHome ?? os.homedir(), account.hostname);
    await settings.update((draft) => {
      draft.hosts.push(host);
      draft.outputs.push(output);
    });
    firstRunChange = { hostId: host.id, hostName: host.host, folders: host.includePaths };
    if (host.includePaths.length > 0) {
      log.info('first run: monitoring the local host', { host: host.host, folders: host.includePaths.join(', ') });
    } else {
      log.warn(
        'first run: no folder is watched, so no file activity is recorded: the account running the agent has ' +
          `no Desktop, Documents, Downloads, Pictures, Music or Videos folder. ${ADD_FOLDER_HINT}`,
        { host: host.host, home: start.firstRunHome ?? os.homedir() },
      );
    }
  }

  const status = new StatusRegistry();
  const outputs = new OutputManager({
    settings,
    positions: new OutputPositions(store.db),
    status,
    log: log.child('outputs'),
    logsDir: paths.logs,
    hostname: account.hostname,
    userId: account.uid,
    signer: start.signer ?? null,
    ...(tuning.maintenanceIntervalMs !== undefined ? { maintenanceIntervalMs: tuning.maintenanceIntervalMs } : {}),
    ...(tuning.syslog ? { syslog: tuning.syslog } : {}),
  });
  outputs.start();

  // The alert engine counts every committed batch; it needs the pipeline to submit what fires.
  let alerts: AlertService | null = null;
  const alertBook = await AlertBook.load(paths.alerts, log.child('alerts'));
  let writeProblem: string | null = null;
  const writeProblemListeners = new Set<() => void>();
  const rollup = new ActivityRollup(store, { ...tuning.rollup, ...(start.turns ? { turns: start.turns } : {}) });
  const pipeline = new Pipeline({
    store,
    outputs,
    log: log.child('pipeline'),
    ...tuning.pipeline,
    onCommitted: (items) => {
      countHostRecords(status, items);
      alerts?.observe(items);
      rollup.soon();
    },
    onWriteProblem: (error) => {
      const next = error ? error.message : null;
      if (next === writeProblem) return;
      writeProblem = next;
      for (const listener of writeProblemListeners) listener();
    },
  });
  const changeRecorder = new PipelineChangeRecorder((items) => pipeline.write(items), account.hostname, log);
  const recorder = start.changeRecorder ?? changeRecorder;
  alerts = new AlertService({
    ...{ settings, book: alertBook, write: (items) => pipeline.write(items), recorder },
    ...{ workstation: account.hostname, log: log.child('alerts') },
  });
  if (firstRunChange) {
    changeRecorder.recordChange({
      actor: 'agent',
      action: 'Added',
      objectType: 'Host',
      what: firstRunChange.hostName,
      id: firstRunChange.hostId,
      details: [{ PropertyName: 'includePaths', After: firstRunChange.folders.join('; ') }],
    });
  }

  const monitor = new MonitorService({
    settings,
    pipeline,
    state: new MonitorStateTable(store.db, path.sep),
    status,
    account,
    log: log.child('monitor'),
    alwaysExclude: [paths.root],
    ...(tuning.sourceTimings ? { sourceTimings: tuning.sourceTimings } : {}),
    ...(tuning.attribution === 'off'
      ? { canAttribute: () => ({ ok: false as const, reason: 'turned off for this agent' }) }
      : {}),
  });
  monitor.start();

  const domainStatus = new DomainStatusBoard();
  const directory = new DirectoryService({
    settings,
    passwords: start.domainPasswords ?? { get: () => Promise.resolve(null) },
    pipeline,
    state: new DirectoryStateTable(store.db),
    status: domainStatus,
    log: log.child('directory'),
    changesOf: (xml) => changesSelectionOf(parsePolicyXml(xml)),
    ...(tuning.directoryTimeoutMs !== undefined ? { timeoutMs: tuning.directoryTimeoutMs } : {}),
  });
  directory.start();

  const retention = new RecordRetention({
    store,
    retentionDays: () => settings.current.auditStore.retentionDays,
    log: log.child('retention'),
    ...tuning.retention,
    ...(start.recordDeletion ? { recordDeletion: start.recordDeletion } : {}),
  });
  retention.start();

  const monitoring = new MonitoringControl({
    monitor,
    today: new TodayCount(() => store.db),
    status,
    guard: outputs.guard,
    feed: pipeline.feed,
    settings: () => settings.current,
    writeProblem: () => writeProblem,
    onWriteProblem: (listener) => {
      writeProblemListeners.add(listener);
      return () => writeProblemListeners.delete(listener);
    },
    recorder,
  });

  let stopping: Promise<void> | null = null;
  return {
    pipeline,
    feed: pipeline.feed,
    changeRecorder,
    monitor,
    directory,
    domainStatus,
    outputs,
    status,
    logFiles: new LogFilesService(paths.logs, () => settings.current),
    retention,
    account,
    monitoring,
    alerts,
    alertRules: new AlertRulesService(settings, recorder),
    rollup,
    writeProblem: () => writeProblem,
    stop: () =>
      (stopping ??= (async () => {
        monitoring.close();
        await monitor.stop();
        await alerts.stop();
        await directory.stop();
        await changeRecorder.flush();
        await pipeline.stop();
        await rollup.stop();
        await alerts.flush(); // an alert raised by the last batches: its book entry on disk
        await retention.stop();
        await outputs.stop();
      })()),
  };
}

function countHostRecords(status: StatusRegistry, items: readonly StoredItem[]): void {
  const perHost = new Map<string, { count: number; last: string }>();
  for (const item of items) {
    if (item.hostId === undefined) continue;
    const entry = perHost.get(item.hostId) ?? { count: 0, last: '' };
    entry.count++;
    if (item.stored.When > entry.last) entry.last = item.stored.When;
    perHost.set(item.hostId, entry);
  }
  for (const [hostId, { count, last }] of perHost) status.hostReceived(hostId, count, last);
}
