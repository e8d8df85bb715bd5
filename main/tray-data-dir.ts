/**
 * The tray app's data directory: the same rules as `vigil agent` (README "Configuration and
 * data"), with Electron's userData folder as the default. userData is appData + productName,
 * which is exactly the folder the headless agent defaults to, so an operator can switch
 * between the tray app and `npm run agent` without moving anything.
 */
import path from 'node:path';

export function trayDataDir(userData: string, env: NodeJS.ProcessEnv = process.env): string {
  const override = env['VIGIL_DATA_DIR'];
  return override ? path.resolve(override) : userData;
}
