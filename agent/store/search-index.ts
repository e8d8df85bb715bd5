/**
 * The agent's side of the substring index: starts the indexer worker thread, knows how far it
 * got, pokes it after writes, restarts it if it dies, and stops it with the agent.
 * Searches stay correct whatever the index does: records it has not reached are scanned.
 */
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../util/module-worker.js';
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
  private worker: Worker | null = null;
  private upto = 0;
  private stopping = false;
  private lastError = '';
  private waiters = new Set<() => void>();
  private restartTimer: NodeJS.Timeout | null = null;

  private constructor(private readonly options: SearchIndexOptions) {}

  static start(options: SearchIndexOptions): SearchIndex {
    const index = new SearchIndex(options);
    index.spawn();
    return index;
  }

  private spawn(): void {
    const config: IndexWorkerConfig = {
      audit: this.options.audit,
      search: this.options.search,
      pollMs: this.options.pollMs ?? 250,
      chunk: this.options.chunk ?? 2000,
      pruneEveryMs: this.options.pruneEveryMs ?? 60_000,
    };
    const worker = startModuleWorker(import.meta.url, 'search-index-worker', { workerData: config });
    worker.unref();
    worker.on('message', (message: IndexWorkerMessage) => this.onMessage(message));
    worker.on('error', (error) => this.options.log.error('search indexer failed', { error: error.message }));
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = null;
      if (this.stopping) return;
      this.options.log.warn('search indexer stopped; restarting', { code });
      this.restartTimer = setTimeout(() => this.spawn(), 1000);
      this.restartTimer.unref();
    });
    this.worker = worker;
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
    this.worker?.postMessage({ type: 'poke' } satisfies IndexWorkerCommand);
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
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ type: 'stop' } satisfies IndexWorkerCommand);
    const timer = setTimeout(() => void worker.terminate(), 3000);
    await exited;
    clearTimeout(timer);
  }
}
