/**
 * The outputs of every owner — each host and each directory domain (output-owner.ts) — built from
 * the settings and rebuilt when they change: an output enabled, disabled, added, removed or
 * edited, or its host or domain enabled or disabled, takes effect on the next batch. It is the
 * pipeline's output stage: log files write inside the batch transaction, syslog after COMMIT.
 */
import type { Settings } from '../config/settings-schema.js';
import type { SettingsStore } from '../config/settings-store.js';
import type { Logger } from '../log/logger.js';
import type { OutputStage } from '../pipeline/pipeline.js';
import type { StoredItem } from '../pipeline/pipeline-item.js';
import type { OutputPositions } from '../store/output-positions.js';
import type { StatusRegistry } from '../status/status-registry.js';
import { DiskGuard } from './disk-guard.js';
import { LogFileOutput } from './log-file-output.js';
import { SyslogOutput } from './syslog-output.js';
import { sweepOrphanLogFiles } from './orphan-log-files.js';
import { hostKey, itemOwnerKey, type OwnedOutput } from './output-owner.js';
import type { LogSigner } from '../integrity/log-sidecar.js';

export interface OutputManagerOptions {
  settings: SettingsStore;
  positions: OutputPositions;
  status: StatusRegistry;
  log: Logger;
  logsDir: string;
  hostname: string;
  userId: number | null;
  /** Signs the log files' sidecars (docs/integrity.md). */
  signer?: LogSigner | null;
  /** How often log files are zipped and past-retention files deleted. */
  maintenanceIntervalMs?: number;
  now?: () => number;
  /** For tests: syslog buffer and backoff. */
  syslog?: { bufferLimit?: number; initialBackoffMs?: number; maxBackoffMs?: number };
}

type Output = LogFileOutput | SyslogOutput;

interface Running {
  key: string;
  output: Output;
}

export class OutputManager implements OutputStage {
  readonly guard: DiskGuard;
  private readonly running = new Map<string, Running>();
  private logOutputs: LogFileOutput[] = [];
  private syslogOutputs: SyslogOutput[] = [];
  private unsubscribe: (() => void) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private changes: Promise<void> = Promise.resolve();
  private written: LogFileOutput[] = [];

  constructor(private readonly o: OutputManagerOptions) {
    this.guard = new DiskGuard(o.logsDir, () => o.settings.current.logStorage);
  }

  /** Repairs the log files (before any batch is written), starts outputs and maintenance. */
  start(): void {
    this.guard.measure();
    this.apply(this.o.settings.current);
    this.unsubscribe = this.o.settings.onChange((next) => {
      this.changes = this.changes
        .then(() => this.apply(next))
        .catch((error: Error) => {
          this.o.log.error('applying output settings failed', { error: error.message });
        });
    });
    const interval = this.o.maintenanceIntervalMs ?? 60_000;
    const tick = (): void => {
      void this.maintain().finally(() => {
        if (this.timer === null) return;
        this.timer = setTimeout(tick, interval);
        this.timer.unref();
      });
    };
    this.timer = setTimeout(tick, 0);
    this.timer.unref();
  }

  /** The running LogFile output with this id, if any (for the log files service and tests). */
  logFileOutput(id: string): LogFileOutput | undefined {
    const output = this.running.get(id)?.output;
    return output instanceof LogFileOutput ? output : undefined;
  }

  syslogOutput(id: string): SyslogOutput | undefined {
    const output = this.running.get(id)?.output;
    return output instanceof SyslogOutput ? output : undefined;
  }

  /** Settings changes are applied in order; resolves once the latest is in effect. */
  settled(): Promise<void> {
    return this.changes;
  }

  writeInTransaction(items: readonly StoredItem[]): void {
    if (this.logOutputs.length === 0) return;
    const byOwner = groupByOwner(items);
    for (const output of this.logOutputs) {
      const owned = byOwner.get(output.ownerKey);
      if (!owned) continue;
      this.written.push(output);
      output.write(owned);
    }
  }

  rollback(): void {
    for (const output of this.written.splice(0)) output.rollback();
  }

  committed(items: readonly StoredItem[]): void {
    for (const output of this.written.splice(0)) output.committed();
    if (this.syslogOutputs.length === 0) return;
    const byOwner = groupByOwner(items);
    // Agent notices (alerts: docs/alerts.md) go to every syslog output, whatever its owner and filter.
    const broadcast = items.filter((item) => item.broadcast === true);
    for (const output of this.syslogOutputs) {
      const owned = byOwner.get(output.ownerKey);
      if (owned) output.send(owned);
      if (broadcast.length > 0) output.send(broadcast);
    }
  }

  /** At a checkpoint of the record chain (between batches): signs each open log file's sidecar. */
  signLogFiles(timeMs: number): void {
    for (const output of this.logOutputs) output.sign(timeMs);
  }

  /** Zips closed days, applies retention, removes orphan files past the default retention. */
  async maintain(): Promise<void> {
    for (const output of this.logOutputs) {
      await output.maintain().catch((error: Error) => {
        this.o.log.warn('log file maintenance failed', { output: output.id, error: error.message });
      });
    }
    const settings = this.o.settings.current;
    sweepOrphanLogFiles(this.o.logsDir, settings, this.o.now?.() ?? Date.now(), this.guard, this.o.log);
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.changes;
    await Promise.all([...this.running.values()].map(({ output }) => output.stop()));
    this.running.clear();
    this.logOutputs = [];
    this.syslogOutputs = [];
  }

  private apply(settings: Settings): void {
    const wanted = wantedOutputs(settings);
    for (const [id, running] of this.running) {
      if (wanted.get(id)?.key === running.key) continue;
      this.running.delete(id);
      void running.output.stop();
      if (!wanted.has(id)) {
        const exists = [...settings.outputs, ...settings.domainOutputs].some((o) => o.id === id);
        if (exists) this.o.status.setOutputStatus(id, 'OK', 'Disabled');
        else {
          this.o.status.forgetOutput(id);
          this.o.positions.delete(id);
        }
      }
    }
    for (const [id, { owned, key }] of wanted) {
      if (this.running.has(id)) continue;
      const built = this.build(owned);
      if (built) this.running.set(id, { key, output: built });
    }
    // Outputs that exist but are disabled (or whose host or domain is) show it in their status.
    for (const output of [...settings.outputs, ...settings.domainOutputs]) {
      if (!wanted.has(output.id)) this.o.status.setOutputStatus(output.id, 'OK', 'Disabled');
    }
    const all = [...this.running.values()].map((r) => r.output);
    this.logOutputs = all.filter((o): o is LogFileOutput => o instanceof LogFileOutput);
    this.syslogOutputs = all.filter((o): o is SyslogOutput => o instanceof SyslogOutput);
  }

  private build(owned: OwnedOutput): Output | null {
    const { status, log } = this.o;
    const { output } = owned;
    try {
      if (output.type === 'LogFile') {
        const logFile = new LogFileOutput({
          ...owned,
          dir: this.o.logsDir,
          positions: this.o.positions,
          guard: this.guard,
          status,
          log: log.child('log-file'),
          userId: this.o.userId,
          signer: this.o.signer ?? null,
          ...(this.o.now ? { now: this.o.now } : {}),
        });
        logFile.recover();
        return logFile;
      }
      const syslog = new SyslogOutput({
        ...owned,
        status,
        log: log.child('syslog'),
        hostname: this.o.hostname,
        ...this.o.syslog,
      });
      syslog.start();
      return syslog;
    } catch (error) {
      const message = (error as Error).message;
      log.error('output could not start', { output: output.id, error: message });
      status.setOutputStatus(output.id, 'Error', 'Output could not start', message);
      return null;
    }
  }
}

/** The enabled outputs of enabled hosts and domains, each with the key that rebuilds it when it changes. */
function wantedOutputs(settings: Settings): Map<string, { owned: OwnedOutput; key: string }> {
  const wanted = new Map<string, { owned: OwnedOutput; key: string }>();
  const hosts = new Map(settings.hosts.map((h) => [h.id, h]));
  for (const output of settings.outputs) {
    const host = hosts.get(output.hostId);
    if (!host || !output.isEnabled || !host.isEnabled) continue;
    wanted.set(output.id, { owned: { output, host }, key: JSON.stringify([output, host.host]) });
  }
  const domains = new Map(settings.domains.map((d) => [d.id, d]));
  for (const output of settings.domainOutputs) {
    const domain = domains.get(output.domainId);
    if (!domain || !output.isEnabled || !domain.isEnabled) continue;
    wanted.set(output.id, { owned: { output, domain }, key: JSON.stringify([output, domain.name]) });
  }
  return wanted;
}

function groupByOwner(items: readonly StoredItem[]): Map<string, readonly StoredItem[]> {
  // The usual batch: file activity of one host (a watcher flush), passed on without copying.
  const first = items[0]?.hostId;
  if (first !== undefined && items.every((item) => item.hostId === first && item.file !== undefined)) {
    return new Map([[hostKey(first), items]]);
  }
  const byOwner = new Map<string, StoredItem[]>();
  for (const item of items) {
    const key = itemOwnerKey(item);
    if (key === undefined) continue;
    let list = byOwner.get(key);
    if (!list) byOwner.set(key, (list = []));
    list.push(item);
  }
  return byOwner;
}
