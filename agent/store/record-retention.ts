/**
 * Retention of the audit store: records older than `auditStore.retentionDays` are deleted in
 * the background, a small batch per transaction with a pause between batches, so the pipeline
 * and the audit API never wait long behind a purge.
 */
import type { Logger } from '../log/logger.js';
import type { AuditStore } from './audit-store.js';

const DAY_MS = 86_400_000;

/** Records before this time are past retention; the fleet database applies the same policy (docs/fleet.md). */
export function retentionCutoff(now: number, retentionDays: number): number {
  return now - retentionDays * DAY_MS;
}

export interface RecordRetentionOptions {
  store: AuditStore;
  retentionDays: () => number;
  log: Logger;
  /** Records per delete transaction. */
  batchSize?: number;
  /** Time between runs; the first run starts after `firstRunDelayMs`. */
  intervalMs?: number;
  firstRunDelayMs?: number;
  now?: () => number;
  /** Signs each deletion as a retention checkpoint (docs/integrity.md). */
  recordDeletion?: (firstKeptSeq: number, predecessorChain: Buffer) => void;
}

export class RecordRetention {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private stopped = false;

  constructor(private readonly options: RecordRetentionOptions) {}

  start(): void {
    this.schedule(this.options.firstRunDelayMs ?? 60_000);
  }

  /** Deletes everything past retention now; resolves with the number of records deleted. */
  runOnce(): Promise<number> {
    this.running ??= this.purge().finally(() => (this.running = null));
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.runOnce()
        .catch((error: Error) => this.options.log.error('record retention failed', { error: error.message }))
        .finally(() => this.schedule(this.options.intervalMs ?? 3_600_000));
    }, delayMs);
    this.timer.unref();
  }

  private async purge(): Promise<number> {
    const now = this.options.now?.() ?? Date.now();
    const cutoff = retentionCutoff(now, this.options.retentionDays());
    const batch = this.options.batchSize ?? 1000;
    let total = 0;
    for (;;) {
      const deleted = this.options.store.deleteOlderThan(cutoff, batch, this.options.recordDeletion);
      total += deleted;
      if (deleted < batch || this.stopped) break;
      // Let other work (pipeline batches, API reads) run between purge transactions.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    if (total > 0) {
      this.options.log.info('old activity records deleted', {
        count: total,
        olderThan: new Date(cutoff).toISOString(),
      });
    }
    return total;
  }
}
