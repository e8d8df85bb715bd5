/**
 * The monitoring capability of a running agent (docs/tray.md): pause and resume file
 * monitoring, today's record count, the issue that stops or limits recording, and change
 * events. The tray app reads it from `RunningAgent.monitoring`; the console's status endpoint
 * and its Pause/Resume buttons use the same object, so both always agree.
 *
 * Issues, most serious first: activity records cannot be stored (audit database), the log
 * files reached their disk quota or the disk's free-space floor, an output or a host in the
 * Error state. Warnings (a folder that does not exist yet) are shown by the console but are not
 * issues: the tray turns red only when recording is really stopped or failing.
 */
import type { ChangeRecorder } from '../pipeline/change-recorder.js';
import type { Settings } from '../config/settings-schema.js';
import type { DiskGuard } from '../outputs/disk-guard.js';
import type { LiveFeed } from '../pipeline/live-feed.js';
import type { StatusRegistry } from '../status/status-registry.js';
import type { TodayCount } from '../store/today-count.js';
import type { MonitorService } from './monitor-service.js';

export interface MonitoringIssue {
  /** `audit_store`, `disk_quota`, `disk_space`, `output` or `monitoring`. */
  code: string;
  message: string;
}

export interface MonitoringControlDeps {
  monitor: MonitorService;
  today: TodayCount;
  status: StatusRegistry;
  guard: DiskGuard;
  feed: LiveFeed;
  settings: () => Readonly<Settings>;
  writeProblem: () => string | null;
  /** Subscribes to changes of `writeProblem`; returns the unsubscribe function. */
  onWriteProblem: (listener: () => void) => () => void;
  recorder: ChangeRecorder;
  /** Least time between two change events caused by new records. */
  recordEventIntervalMs?: number;
}

export class MonitoringControl {
  private readonly listeners = new Set<() => void>();
  private readonly unsubscribes: Array<() => void> = [];
  private recordTimer: NodeJS.Timeout | null = null;
  private lastRecordEvent = 0;

  constructor(private readonly deps: MonitoringControlDeps) {
    this.unsubscribes.push(
      deps.status.onStatusChange(() => this.emit()),
      deps.onWriteProblem(() => this.emit()),
      deps.feed.subscribe(() => this.recordsArrived()),
    );
  }

  /** True while monitoring is paused. */
  get paused(): boolean {
    return this.deps.monitor.paused;
  }

  /** Stops recording file activity (the APIs keep serving); recorded as a change by `actor`. */
  pause(actor = 'tray'): Promise<void> {
    return this.setPaused(true, actor);
  }

  /** Records again, from a fresh baseline: what changed during the pause is not reported. */
  resume(actor = 'tray'): Promise<void> {
    return this.setPaused(false, actor);
  }

  async setPaused(paused: boolean, actor: string): Promise<void> {
    const before = this.paused;
    const applied = this.deps.monitor.setPaused(paused);
    if (before !== paused) {
      this.deps.recorder.recordChange({
        actor,
        action: 'Modified',
        objectType: 'Monitoring',
        what: 'File monitoring',
        id: this.deps.settings().agent.id ?? 'agent',
        details: [
          { PropertyName: 'State', Before: before ? 'Paused' : 'Running', After: paused ? 'Paused' : 'Running' },
        ],
      });
      this.emit();
    }
    await applied;
  }

  /** Whether file records name the actor (the tray says when they cannot). */
  attribution(): 'process' | 'none' | null {
    return this.deps.monitor.attribution();
  }

  /** Activity records of today (local calendar day). */
  todayCount(): number {
    return this.deps.today.value();
  }

  /** The most serious current issue, or null. */
  issue(): MonitoringIssue | null {
    return this.issues()[0] ?? null;
  }

  /** Every current issue, most serious first. */
  issues(): MonitoringIssue[] {
    const out: MonitoringIssue[] = [];
    const problem = this.deps.writeProblem();
    if (problem !== null) out.push({ code: 'audit_store', message: `activity records cannot be stored: ${problem}` });
    const verdict = this.deps.guard.lastVerdict;
    if (!verdict.ok) {
      out.push({
        code: verdict.kind === 'quota' ? 'disk_quota' : 'disk_space',
        message: `log file writing stopped: ${verdict.reason}`,
      });
    }
    const settings = this.deps.settings();
    for (const output of settings.outputs) {
      const status = this.deps.status.output(output.id)?.status;
      if (status?.type === 'Error') {
        out.push({ code: 'output', message: `${output.type} output: ${status.summary}${detail(status.details)}` });
      }
    }
    for (const host of settings.hosts) {
      const status = this.deps.status.host(host.id)?.status;
      if (status?.type === 'Error') {
        out.push({ code: 'monitoring', message: `${host.host}: ${status.summary}${detail(status.details)}` });
      }
    }
    return out;
  }

  /** Called on pause and resume, issue changes, and new records (at most once a second). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    for (const unsubscribe of this.unsubscribes.splice(0)) unsubscribe();
    if (this.recordTimer) clearTimeout(this.recordTimer);
    this.recordTimer = null;
    this.listeners.clear();
  }

  private recordsArrived(): void {
    if (this.recordTimer) return;
    const interval = this.deps.recordEventIntervalMs ?? 1000;
    const wait = Math.max(0, this.lastRecordEvent + interval - Date.now());
    this.recordTimer = setTimeout(() => {
      this.recordTimer = null;
      this.lastRecordEvent = Date.now();
      this.emit();
    }, wait);
    this.recordTimer.unref();
  }

  private emit(): void {
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch {
        // One broken listener must not keep the others from hearing about the change.
      }
    }
  }
}

const detail = (details: string): string => (details ? ` (${details})` : '');
