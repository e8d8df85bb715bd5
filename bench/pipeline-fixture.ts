/**
 * The agent's ingest path as the pipeline benchmarks run it (bench/pipeline-ingest.ts,
 * bench/chain-cost.bench.ts): file changes normalised into activity records, the bounded
 * queue, an AuditStore in its own folder and a LogFile output writing TSV and its sidecar, with
 * the store's chain computed as the agent does ('chained': by SQLite as it inserts each row), by
 * node:crypto for the whole batch before its inserts ('fallback': the store without the native
 * addon), or replaced by zeros ('unchained': the same work without the chain).
 */
import fs from 'node:fs';
import path from 'node:path';
import { SettingsStore } from '../agent/config/settings-store.js';
import { localHostType } from '../agent/config/monitoring-schema.js';
import { countLines } from '../agent/integrity/log-sidecar-format.js';
import { silentLogger } from '../agent/log/logger.js';
import { fileChangeToItem, type FileChange } from '../agent/monitor/file-change.js';
import { localAccount } from '../agent/monitor/local-account.js';
import { OutputManager } from '../agent/outputs/output-manager.js';
import { Pipeline } from '../agent/pipeline/pipeline.js';
import { AuditStore } from '../agent/store/audit-store.js';
import { OutputPositions } from '../agent/store/output-positions.js';
import { StatusRegistry } from '../agent/status/status-registry.js';
import { withoutChain } from './chain-variant.js';

export type Variant = 'chained' | 'fallback' | 'unchained';

export const account = localAccount();
export const host = { id: 'bench-host', host: 'bench' };

/**
 * `n` Added changes of files in 500 folders, 100 to a millisecond (a burst): changes `from` to
 * `from + n` of the burst that starts at `t`, so that a long burst can be made a block at a time.
 */
export function changes(n: number, from = 0, t = Date.now()): FileChange[] {
  return Array.from({ length: n }, (_, k) => ({
    action: 'Added',
    dir: false,
    path: `/home/user/Documents/project-${(from + k) % 500}/report-${from + k}.docx`,
    timeMs: t + Math.floor((from + k) / 100),
    root: '/home/user/Documents',
  }));
}

export interface BenchPipeline {
  pipeline: Pipeline;
  /** Normalises the changes and submits them; resolves once they are committed. */
  write(input: readonly FileChange[]): Promise<unknown>;
  /** Throws unless the store and the log files hold `expected` records. */
  checkHolds(expected: number): void;
  close(): Promise<void>;
}

export async function openBenchPipeline(dir: string, variant: Variant): Promise<BenchPipeline> {
  const settingsFile = path.join(dir, 'settings.json');
  fs.writeFileSync(
    settingsFile,
    JSON.stringify({
      hosts: [{ id: host.id, host: host.host, type: localHostType(), includePaths: ['/home/user/Documents'] }],
      outputs: [{ id: 'bench-log', hostId: host.id, type: 'LogFile' }],
    }),
  );
  const settings = await SettingsStore.open(settingsFile);
  const store = AuditStore.open({ file: path.join(dir, 'audit.db'), chainInJavaScript: variant === 'fallback' });
  if (variant === 'unchained') withoutChain(store);
  const logsDir = path.join(dir, 'logs');
  const outputs = new OutputManager({
    settings,
    positions: new OutputPositions(store.db),
    status: new StatusRegistry(),
    log: silentLogger,
    logsDir,
    hostname: account.hostname,
    userId: account.uid,
  });
  outputs.start();
  const pipeline = new Pipeline({ store, outputs, log: silentLogger });
  return {
    pipeline,
    write: (input) => pipeline.write(input.map((change) => fileChangeToItem(change, host, account))),
    checkHolds(expected) {
      const lines = fs
        .readdirSync(logsDir)
        .filter((f) => !f.endsWith('.sig')) // the sidecars (docs/integrity.md)
        // Counted in the bytes: a day's log of millions of lines is past V8's longest string.
        .reduce((n, f) => n + countLines(fs.readFileSync(path.join(logsDir, f))), 0);
      if (store.count() !== expected || lines !== expected) {
        throw new Error(`lost records: store ${store.count()}, log lines ${lines}, expected ${expected}`);
      }
    },
    async close() {
      await pipeline.stop();
      await outputs.stop();
      store.close();
      await settings.close();
    },
  };
}
