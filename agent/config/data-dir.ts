/**
 * Where Vigil keeps its data. The default is the per-user application data folder that
 * Electron's `app.getPath('userData')` gives the tray app (appData + product name), so the
 * headless agent and the tray app share one data directory (README.md).
 */
import os from 'node:os';
import path from 'node:path';

export const PRODUCT_NAME = 'Vigil';

export interface DataDirInputs {
  flag?: string | undefined;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  home?: string;
}

/** The per-user application data folder, as Electron's `app.getPath('appData')` computes it. */
export function appDataFolder(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = os.homedir(),
): string {
  if (platform === 'win32') return env['APPDATA'] ?? path.join(home, 'AppData', 'Roaming');
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support');
  return env['XDG_CONFIG_HOME'] || path.join(home, '.config');
}

/** `--data-dir` wins over `VIGIL_DATA_DIR`, which wins over the per-user default. */
export function resolveDataDir(inputs: DataDirInputs = {}): string {
  const env = inputs.env ?? process.env;
  const chosen = inputs.flag ?? env['VIGIL_DATA_DIR'];
  if (chosen) return path.resolve(chosen);
  return path.join(appDataFolder(env, inputs.platform, inputs.home), PRODUCT_NAME);
}

/** Fixed names inside the data directory; every module asks here instead of joining paths itself. */
export function dataPaths(dataDir: string) {
  return {
    root: dataDir,
    settings: path.join(dataDir, 'settings.json'),
    tlsDir: path.join(dataDir, 'tls'),
    certificate: path.join(dataDir, 'tls', 'cert.pem'),
    privateKey: path.join(dataDir, 'tls', 'key.pem'),
    auditDb: path.join(dataDir, 'audit.db'),
    /** Issued access and refresh tokens (agent/auth/token-store.ts). */
    authDb: path.join(dataDir, 'auth.db'),
    /** Substring index of the audit records; derived data, rebuilt when missing. */
    auditSearchDb: path.join(dataDir, 'audit-search.db'),
    logs: path.join(dataDir, 'logs'),
    secrets: path.join(dataDir, 'secrets'),
    consoleToken: path.join(dataDir, 'secrets', 'console-token'),
    /** Key of the HMACs that stand for client secrets and tokens (agent/auth/keyed-hash.ts). */
    pepper: path.join(dataDir, 'secrets', 'hmac-pepper'),
    /** Directory domains' bind passwords, one owner-only file each (config/domain-passwords.ts). */
    domainPasswords: path.join(dataDir, 'secrets', 'domain-passwords'),
    lockFile: path.join(dataDir, 'agent.lock'),
    /** Fired alerts not acknowledged yet (agent/alerts/alert-book.ts). */
    alerts: path.join(dataDir, 'alerts.json'),
    /** Log files extracted from their zip for the console's viewer; emptied at start and stop. */
    logViewCache: path.join(dataDir, 'cache', 'log-view'),
  } as const;
}

export type DataPaths = ReturnType<typeof dataPaths>;
