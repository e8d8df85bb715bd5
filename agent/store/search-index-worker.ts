/**
 * Worker thread that runs the SearchIndexer: indexes new records as they arrive (polling, or
 * at once when the agent pokes it after a write), prunes records retention removed, and backs
 * off while the audit database cannot be read.
 */
import { workerData } from 'node:worker_threads';
import { serveRequests } from '../util/worker-channel.js';
import { SearchIndexer } from './search-indexer.js';

export interface IndexWorkerConfig {
  audit: string;
  search: string;
  pollMs: number;
  chunk: number;
  pruneEveryMs: number;
}

export type IndexWorkerCommand = { type: 'poke' } | { type: 'stop' };
export type IndexWorkerMessage =
  { type: 'progress'; indexedUpto: number } | { type: 'error'; message: string } | { type: 'stopped' };

const config = workerData as IndexWorkerConfig;
const indexer = new SearchIndexer({ audit: config.audit, search: config.search });

let stopping = false;
let wake: (() => void) | null = null;
// Commands only: the indexer answers no requests.
const channel = serveRequests<never, never, IndexWorkerMessage>(
  () => {
    throw new Error('the search indexer takes no requests');
  },
  (command) => {
    if ((command as IndexWorkerCommand).type === 'stop') stopping = true;
    wake?.();
  },
);
const post = channel.emit;

const pause = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      wake = null;
      resolve();
    };
    const timer = setTimeout(done, ms);
    wake = done;
  });

async function run(): Promise<void> {
  let failures = 0;
  let lastPrune = 0;
  let reported = -1;
  while (!stopping) {
    try {
      const added = indexer.step(config.chunk);
      if (Date.now() - lastPrune >= config.pruneEveryMs) {
        indexer.prune(50_000);
        lastPrune = Date.now();
      }
      const upto = indexer.state().indexed_upto;
      if (upto !== reported) post({ type: 'progress', indexedUpto: (reported = upto) });
      failures = 0;
      if (added < config.chunk) await pause(config.pollMs);
      else await new Promise((resolve) => setImmediate(resolve));
    } catch (error) {
      failures += 1;
      post({ type: 'error', message: (error as Error).message });
      indexer.close();
      reported = -1;
      await pause(Math.min(30_000, 250 * 2 ** Math.min(failures, 7)));
    }
  }
  indexer.close();
  post({ type: 'stopped' });
  channel.close(); // the listener would keep the thread alive
}

void run();
