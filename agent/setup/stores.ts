/**
 * The audit database and what reads and writes it beside the activity pipeline: the store
 * (activity records, open for the agent's lifetime), its substring index, the audit API's
 * reader and its writer (docs/activity-pipeline.md).
 */
import type { DataPaths } from '../config/data-dir.js';
import type { Logger } from '../log/logger.js';
import { AuditReader } from '../store/audit-reader.js';
import { AuditStore } from '../store/audit-store.js';
import { AuditWriter } from '../store/audit-writer.js';
import { SearchIndex } from '../store/search-index.js';
import { TurnQueue } from '../util/turn-queue.js';
import { withCleanups } from './cleanups.js';

export interface AuditStores {
  store: AuditStore;
  index: SearchIndex;
  reader: AuditReader;
  writer: AuditWriter;
  /** One scheduler for all stepwise work of the audit API and the console's searches. */
  turns: TurnQueue;
  stop(): Promise<void>;
}

/** `stepMs`: how long an audit search works before it yields to the event loop. */
export function openStores(paths: DataPaths, log: Logger, stepMs?: number): Promise<AuditStores> {
  return withCleanups(log, (cleanups) => {
    const store = AuditStore.open({ file: paths.auditDb, backgroundCheckpoints: true });
    cleanups.add(() => store.close());
    const index = SearchIndex.start({
      audit: paths.auditDb,
      search: paths.auditSearchDb,
      log: log.child('search-index'),
    });
    cleanups.add(() => index.stop());
    const turns = new TurnQueue();
    const reader = new AuditReader({
      turns,
      file: paths.auditDb,
      searchFile: paths.auditSearchDb,
      ...(stepMs !== undefined ? { stepMs } : {}),
    });
    cleanups.add(() => reader.close(true));
    const writer = new AuditWriter(paths.auditDb);
    cleanups.add(() => writer.close());
    return { store, index, reader, writer, turns };
  });
}
