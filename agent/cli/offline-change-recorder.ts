/**
 * The self-audit hook for changes an admin command makes while no agent runs (DESIGN.md §6).
 * THE PLACE THE ACTIVITY PIPELINE PLUGS IN: it should return a recorder that appends the change
 * to the audit store of `paths` (the command holds the agent lock, so it is the only writer).
 * Until then the change is logged (stderr, shown with VIGIL_LOG_LEVEL=info).
 */
import type { ChangeRecorder } from '../change-log.js';
import type { DataPaths } from '../config/data-dir.js';
import { loggingChangeRecorder } from '../log/change-logger.js';
import type { Logger } from '../log/logger.js';

export function offlineChangeRecorder(_paths: DataPaths, log: Logger): ChangeRecorder {
  return loggingChangeRecorder(log.child('changes'));
}
