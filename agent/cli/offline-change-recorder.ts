/**
 * The self-audit hook for changes an admin command makes while no agent runs (docs/activity-pipeline.md):
 * the change is appended to the audit store of the data directory. The command holds the
 * agent lock, so it is the only writer; the record is committed before the command returns.
 */
import os from 'node:os';
import { configChangeToItem, type ChangeRecorder, type ConfigChange } from '../pipeline/change-recorder.js';
import type { DataPaths } from '../config/data-dir.js';
import type { Logger } from '../log/logger.js';
import { AuditStore } from '../store/audit-store.js';

export interface OfflineChangeRecorder extends ChangeRecorder {
  close(): void;
}

export function offlineChangeRecorder(paths: DataPaths, log: Logger): OfflineChangeRecorder {
  let store: AuditStore | null = null;
  return {
    recordChange(change: ConfigChange): void {
      try {
        store ??= AuditStore.open({ file: paths.auditDb });
        store.insertBatch([configChangeToItem(change, os.hostname(), Date.now()).record]);
      } catch (error) {
        // The change itself is made; say loudly that its audit record is missing.
        log.error('configuration change not recorded in the audit store', {
          actor: change.actor,
          objectType: change.objectType,
          what: change.what,
          error: (error as Error).message,
        });
      }
    },
    close(): void {
      store?.close();
    },
  };
}
