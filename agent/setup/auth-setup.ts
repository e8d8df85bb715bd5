/**
 * Client applications and tokens (agent/auth/), and the hourly purge of expired tokens from
 * auth.db.
 */
import type { ChangeRecorder } from '../pipeline/change-recorder.js';
import { openAuthServices, type AuthServices } from '../auth/auth-services.js';
import type { Clock } from '../auth/lifetimes.js';
import type { DataPaths } from '../config/data-dir.js';
import type { SettingsStore } from '../config/settings-store.js';
import type { Logger } from '../log/logger.js';
import { withCleanups } from './cleanups.js';

const PURGE_INTERVAL_MS = 3600_000;

export interface AuthSetup {
  auth: AuthServices;
  stop(): Promise<void>;
}

export function startAuth(deps: {
  paths: DataPaths;
  settings: SettingsStore;
  recorder: ChangeRecorder;
  now: Clock;
  log: Logger;
  tokenSync?: 'FULL' | 'NORMAL' | undefined;
}): Promise<AuthSetup> {
  const log = deps.log.child('auth');
  return withCleanups(deps.log, async (cleanups) => {
    const auth = await openAuthServices({
      paths: deps.paths,
      settings: deps.settings,
      recorder: deps.recorder,
      now: deps.now,
      log,
      ...(deps.tokenSync ? { synchronous: deps.tokenSync } : {}),
    });
    cleanups.add(() => auth.close());
    const purge = (): void => {
      try {
        auth.tokens.purge();
      } catch (error) {
        deps.log.warn('token housekeeping failed', { error: (error as Error).message });
      }
    };
    purge();
    const timer = setInterval(purge, PURGE_INTERVAL_MS);
    timer.unref();
    cleanups.add(() => clearInterval(timer));
    return { auth };
  });
}
