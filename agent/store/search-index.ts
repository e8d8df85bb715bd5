/**
 * The agent's side of the substring index: starts the indexer worker thread, knows how far it
 * got, pokes it after writes, restarts it if it dies, and stops it with the agent.
 * Searches stay correct whatever the index does: records it has not reached are scanned.
 */
import { WorkerChannel } from '../util/worker-channel.js';
import type { Logger } from '../log/logger.js';
import type { IndexWorkerCommand, IndexWorkerConfig, IndexWorkerMessage } from './search-index-worker.js';

export interface SearchIndexOptions {
  audit: string;
  search: string;
  log: Logger;
  /** How often the worker looks for new records when idle. */
  pollMs?: number;
  chunk?: number;
  pruneEveryMs?: number;
}

export class SearchIndex {
  private readonly channel: WorkerChannel<never, never, IndexWorkerMessage>;
  private upto = 0;
  private lastError = '';
  private waiters = new Set<() => void>();
  private restartTimer: NodeJS.Timeout | null = null;

  private constructor(private readonly options: SearchIndexOptions) {
    const config: IndexWorkerConfig = {
      audit: options.audit,
      search: options.search,
      pollMs: options.pollMs ?? 250,
      chunk: options.chunk ?? 2000,
      pruneEveryMs: options.pruneEveryMs ?? 60_000,
    };
    this.channel = new WorkerChannel<never, never, IndexWorkerMessage>({
      callerUrl: import.meta.url,
      worker: 'search-index-worker',
      workerData: config,
      onEvent: (message) => this.onMessage(message),
      onError: (error) => options.log.error('search indexer failed', { error: error.message }),
      onExit: (code) => {
        // The index works on its own, not on demand: start it again after a pause.
        options.log.warn('search indexer stopped; restarting', { code });
        this.restartTimer = setTimeout(() => this.channel.start(), 1000);
        this.restartTimer.unref();
      },
    });
  }

  static start(options: SearchIndexOptions): SearchIndex {
    const index = new SearchIndex(options);
    index.channel.start();
    return index;
  }

  private onMessage(message: IndexWorkerMessage): void {
    if (message.type === 'progress') {
      this.upto = message.indexedUpto;
      this.lastError = '';
      for (const wake of this.waiters) wake();
    } else if (message.type === 'error' && message.message !== this.lastError) {
      this.lastError = message.message;
      this.options.log.warn('search indexer cannot read the audit database; retrying', { error: message.message });
    }
  }

  /** Highest `seq` the index covers, as last reported by the worker. */
  get indexedUpto(): number {
    return this.upto;
  }

  /** New records were written: index them now instead of at the next poll. */
  poke(): void {
    this.channel.post({ type: 'poke' } satisfies IndexWorkerCommand);
  }

  /** Resolves true once the index covers `seq`, false after `timeoutMs`. */
  waitUntil(seq: number, timeoutMs: number): Promise<boolean> {
    if (this.upto >= seq) return Promise.resolve(true);
    this.poke();
    return new Promise((resolve) => {
      const check = (): void => {
        if (this.upto < seq) return;
        finish(true);
      };
      const finish = (result: boolean): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(result);
      };
      const timer = setTimeout(() => finish(false), timeoutMs);
      this.waiters.add(check);
    });
  }

  async stop(): Promise<void> {
    if (this.restartTimer) clearTimeout(this.restartTimer);
    // The worker closes its databases when asked; one that does not within 3 s is terminated.
    await this.channel.close({ message: { type: 'stop' } satisfies IndexWorkerCommand, graceMs: 3000 });
  }
}
