/**
 * The data dir, made ready before anything reads it: owner-only (docs/security.md, F10), held
 * by this agent alone (agent.lock), its settings open, and domain bind passwords that an older
 * settings.json still holds moved to their files.
 */
import fs from 'node:fs/promises';
import { AgentLock } from '../config/agent-lock.js';
import type { DataPaths } from '../config/data-dir.js';
import { restrictDatabaseFiles, restrictNewFiles, secureDataDir } from '../config/data-dir-permissions.js';
import { DomainPasswords } from '../config/domain-passwords.js';
import { SettingsStore } from '../config/settings-store.js';
import type { Logger } from '../log/logger.js';
import { withCleanups } from './cleanups.js';

export interface DataDirSetup {
  lock: AgentLock;
  settings: SettingsStore;
  /** True when the settings file did not exist before this start. */
  firstRun: boolean;
  domainPasswords: DomainPasswords;
  stop(): Promise<void>;
}

export async function openDataDir(paths: DataPaths, log: Logger): Promise<DataDirSetup> {
  restrictNewFiles();
  await secureDataDir(paths.root, log);
  await restrictDatabaseFiles(paths.root);
  return withCleanups(log, async (cleanups) => {
    const lock = await AgentLock.acquire(paths.lockFile, paths.root);
    cleanups.add(() => lock.release());
    const firstRun = !(await fs.stat(paths.settings).catch(() => null));
    const settings = await SettingsStore.open(paths.settings);
    cleanups.add(() => settings.close());
    if (settings.migration) {
      log.info('settings migrated to the current shape; the original is kept', {
        from: settings.migration.writtenBy,
        backup: settings.migration.backup,
      });
    }
    const domainPasswords = new DomainPasswords(paths.domainPasswords);
    await domainPasswords.migrateFrom(settings, log);
    return { lock, settings, firstRun, domainPasswords };
  });
}
