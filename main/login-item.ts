/**
 * "Start at login". Electron's login item API covers macOS and Windows only
 * (`app.setLoginItemSettings`, documented @platform darwin,win32); on Linux the desktop's
 * standard is an XDG autostart entry, `$XDG_CONFIG_HOME/autostart/<name>.desktop` (XDG
 * Autostart spec 0.5), which this module writes and removes itself.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PRODUCT_NAME } from './app-identity.js';

export interface LoginItemApp {
  getLoginItemSettings(options?: { path?: string; args?: string[] }): { openAtLogin: boolean };
  setLoginItemSettings(settings: { openAtLogin: boolean; path?: string; args?: string[] }): void;
}

export interface StartAtLogin {
  /** null where the platform offers no way to start at login. */
  isEnabled(): boolean | null;
  setEnabled(enabled: boolean): void;
}

/** What starts this app: the AppImage file when run from one, else the executable (+ app folder in development). */
export interface LaunchCommand {
  execPath: string;
  args: string[];
}

export function launchCommand(inputs: {
  isPackaged: boolean;
  execPath: string;
  appPath: string;
  env: NodeJS.ProcessEnv;
}): LaunchCommand {
  if (!inputs.isPackaged) return { execPath: inputs.execPath, args: [inputs.appPath] };
  // An AppImage mounts itself under a new /tmp path at each run; APPIMAGE names the file itself.
  return { execPath: inputs.env['APPIMAGE'] || inputs.execPath, args: [] };
}

/**
 * One Exec argument, quoted as the Desktop Entry spec ("The Exec key") requires: inside
 * double quotes, `"` `` ` `` `$` `\` take a backslash; then the string-value escape doubles
 * every backslash again; `%` is written `%%` (field codes).
 */
export function desktopExecArgument(arg: string): string {
  if (/[\n\r]/.test(arg)) throw new Error('a launch path cannot contain a line break');
  const quoted = `"${arg.replace(/(["`$\\])/g, '\\$1')}"`;
  return quoted.replace(/\\/g, '\\\\').replace(/%/g, '%%');
}

export function autostartEntry(launch: LaunchCommand): string {
  const exec = [launch.execPath, ...launch.args].map(desktopExecArgument).join(' ');
  return [
    '[Desktop Entry]',
    'Type=Application',
    `Name=${PRODUCT_NAME}`,
    'Comment=Workstation activity monitoring',
    `Exec=${exec}`,
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

/** `$XDG_CONFIG_HOME/autostart`, with the XDG Base Directory default `~/.config`. */
export function autostartDir(env: NodeJS.ProcessEnv, home: string): string {
  return path.join(env['XDG_CONFIG_HOME'] || path.join(home, '.config'), 'autostart');
}

export function startAtLogin(options: {
  platform: NodeJS.Platform;
  app: LoginItemApp;
  launch: LaunchCommand;
  autostartDir: string;
}): StartAtLogin {
  const { platform, app, launch } = options;
  if (platform === 'darwin' || platform === 'win32') {
    // Windows compares path and args when reading the setting back, so both calls pass them.
    const target = { path: launch.execPath, args: launch.args };
    return {
      isEnabled: () => app.getLoginItemSettings(target).openAtLogin,
      setEnabled: (enabled) => app.setLoginItemSettings({ openAtLogin: enabled, ...target }),
    };
  }
  if (platform === 'linux') {
    const file = path.join(options.autostartDir, 'vigil.desktop');
    return {
      isEnabled: () => fs.existsSync(file),
      setEnabled: (enabled) => {
        if (!enabled) return fs.rmSync(file, { force: true });
        fs.mkdirSync(options.autostartDir, { recursive: true });
        fs.writeFileSync(file, autostartEntry(launch), { mode: 0o644 });
      },
    };
  }
  return { isEnabled: () => null, setEnabled: () => undefined };
}
