/**
 * Runs one file activity source per enabled host and follows the settings: a host enabled,
 * disabled, added, removed, renamed, or given other folders takes effect at once. A disabled or
 * removed host's snapshot is forgotten, so enabling it again starts from a fresh baseline
 * instead of reporting what changed while monitoring was off.
 *
 * Pausing (the tray's and the console's "Pause monitoring") stops every source as if each host
 * were disabled, without changing the settings: resuming starts from a fresh baseline, so
 * nothing done during the pause is recorded. The pause lives in memory; a restart resumes.
 */
import type { Settings } from '../config/settings-schema.js';
import type { SettingsStore } from '../config/settings-store.js';
import type { HostSettings } from '../config/monitoring-schema.js';
import type { Logger } from '../log/logger.js';
import type { Pipeline } from '../pipeline/pipeline.js';
import type { MonitorStateTable } from '../store/monitor-state.js';
import type { StatusRegistry } from '../status/status-registry.js';
import type { ActivitySource, Attribution } from './activity-source.js';
import { AttributedFileSource } from './attributed-file-source.js';
import { normaliseCoverage } from './coverage.js';
import { canAttribute, type AttributionProbe } from './fanotify/can-attribute.js';
import { FileActivitySource, type FileActivitySourceOptions } from './file-activity-source.js';
import type { LocalAccount } from './local-account.js';

export interface MonitorServiceOptions {
  settings: SettingsStore;
  pipeline: Pipeline;
  state: MonitorStateTable;
  status: StatusRegistry;
  account: LocalAccount;
  log: Logger;
  /** Folders never monitored (the agent's data dir). */
  alwaysExclude: string[];
  /** Timing overrides for tests. */
  sourceTimings?: Pick<FileActivitySourceOptions, 'settleMs' | 'maxDelayMs' | 'sweepMs' | 'retryMs' | 'overflowRisk'>;
  /** Whether sources can name the actor (docs/attribution.md); tests may say no. */
  canAttribute?: () => AttributionProbe;
}

interface Running {
  key: string;
  source: ActivitySource;
}

/** What, when changed, needs the source restarted (comment and the like do not). */
function sourceKey(host: HostSettings): string {
  const { host: name, includePaths, excludePaths, rescanIntervalMinutes, monitorReads } = host;
  return JSON.stringify([name, includePaths, excludePaths, rescanIntervalMinutes, monitorReads]);
}

export class MonitorService {
  private readonly running = new Map<string, Running>();
  private chain: Promise<void> = Promise.resolve();
  private unsubscribe: (() => void) | null = null;
  private stopped = false;
  private pausedNow = false;
  private probe: AttributionProbe | null = null;

  constructor(private readonly o: MonitorServiceOptions) {}

  /** Starts monitoring in the background; `ready()` tells when the first scans are done. */
  start(): void {
    this.enqueue(this.o.settings.current, true);
    this.unsubscribe = this.o.settings.onChange((next) => this.enqueue(next, false));
  }

  /** Resolves when every settings change so far is in effect (sources started and scanned). */
  ready(): Promise<void> {
    return this.chain;
  }

  get paused(): boolean {
    return this.pausedNow;
  }

  /**
   * Pauses or resumes every host's monitoring; resolves once the change is in effect (sources
   * stopped, or started and scanned). Settings changes made meanwhile apply on resume.
   */
  setPaused(paused: boolean): Promise<void> {
    if (paused === this.pausedNow) return this.chain;
    this.pausedNow = paused;
    this.enqueue(this.o.settings.current, false);
    return this.chain;
  }

  /** The running source of a host (tests and benchmarks). */
  source(hostId: string): ActivitySource | undefined {
    return this.running.get(hostId)?.source;
  }

  /** `none` when any running host cannot name actors, `process` when all can, null when none runs. */
  attribution(): Attribution | null {
    const all = [...this.running.values()].map(({ source }) => source.status().attribution);
    if (all.length === 0) return null;
    return all.includes('none') ? 'none' : 'process';
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    await this.chain;
    await Promise.all([...this.running.values()].map(({ source }) => source.stop()));
    this.running.clear();
  }

  private enqueue(settings: Settings, initial: boolean): void {
    this.chain = this.chain
      .then(() => this.reconcile(settings, initial))
      .catch((error: Error) => this.o.log.error('applying host settings failed', { error: error.message }));
  }

  private async reconcile(settings: Settings, initial: boolean): Promise<void> {
    if (this.stopped) return;
    const { state, status } = this.o;
    const paused = this.pausedNow;
    const wanted = new Map(settings.hosts.filter((h) => h.isEnabled && !paused).map((h) => [h.id, h]));

    for (const [id, running] of [...this.running]) {
      const host = wanted.get(id);
      if (host && sourceKey(host) === running.key) continue;
      this.running.delete(id);
      await running.source.stop();
      if (!host) await this.forget(id, settings);
    }
    if (initial) {
      // Snapshots of hosts removed or disabled while the agent was not running.
      for (const id of state.hostIds()) if (!wanted.has(id)) await this.forget(id, settings);
    }
    for (const host of settings.hosts) {
      if (!host.isEnabled) status.setHostStatus(host.id, 'OK', 'Monitoring is disabled');
      else if (paused)
        status.setHostStatus(host.id, 'OK', 'Monitoring is paused', 'Resume monitoring to record again.');
    }

    for (const [id, host] of wanted) {
      if (this.running.has(id) || this.stopped) continue;
      const source = await this.startSource(host);
      this.running.set(id, { key: sourceKey(host), source });
    }
  }

  /**
   * The actor-aware source where this process can name actors, else the watcher; if the
   * kernel refuses the watch at start, the watcher after all, with the reason.
   */
  private async startSource(host: HostSettings): Promise<ActivitySource> {
    this.probe ??= (this.o.canAttribute ?? canAttribute)();
    const options: FileActivitySourceOptions = {
      host,
      coverage: normaliseCoverage(host.includePaths, [...host.excludePaths, ...this.o.alwaysExclude]),
      pipeline: this.o.pipeline,
      state: this.o.state,
      status: this.o.status,
      account: this.o.account,
      log: this.o.log,
      ...this.o.sourceTimings,
    };
    let reason = this.probe.ok ? '' : this.probe.reason;
    if (this.probe.ok) {
      const attributed = new AttributedFileSource(options);
      const failed = await attributed.start().then(
        () => null,
        (error: Error) => error,
      );
      if (!failed) return this.started(attributed);
      await attributed.stop();
      reason = `fanotify watch failed: ${failed.message}`;
      this.o.log.warn('actor attribution unavailable; using the folder watcher', { host: host.host, reason });
    }
    const watcher = new FileActivitySource(options);
    await watcher.start().catch(() => undefined); // the source reports its own failure in its status
    return this.started(watcher, reason);
  }

  private started(source: ActivitySource, reason?: string): ActivitySource {
    const { attribution, attributionReason } = source.status();
    const why = reason || attributionReason;
    this.o.status.setHostAttribution(source.hostId, { attribution, ...(why ? { attributionReason: why } : {}) });
    return source;
  }

  private async forget(hostId: string, settings: Settings): Promise<void> {
    await this.o.pipeline.submit({ items: [], commitWith: () => this.o.state.dropHost(hostId) }).catch(() => undefined);
    if (!settings.hosts.some((h) => h.id === hostId)) this.o.status.forgetHost(hostId);
  }
}
