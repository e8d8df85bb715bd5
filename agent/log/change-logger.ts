/**
 * The ChangeRecorder used until the activity pipeline plugs in its own (docs/activity-pipeline.md): one log
 * line per configuration change, so changes are at least visible. Changes never carry secrets.
 */
import type { ChangeRecorder, ConfigChange } from '../change-log.js';
import type { Logger } from './logger.js';

export function loggingChangeRecorder(log: Logger): ChangeRecorder {
  return {
    recordChange(change: ConfigChange): void {
      log.info('configuration changed', {
        actor: change.actor,
        action: change.action,
        objectType: change.objectType,
        what: change.what,
        id: change.id,
      });
    },
  };
}
