/** Start at login: Electron's login items on macOS/Windows, an XDG autostart entry on Linux. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  autostartDir,
  autostartEntry,
  desktopExecArgument,
  launchCommand,
  startAtLogin,
  type LoginItemApp,
} from '../../main/login-item.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/** Electron's login item settings as macOS/Windows keep them: one record per path + args. */
class LoginItems implements LoginItemApp {
  readonly items = new Map<string, boolean>();
  private key(o?: { path?: string; args?: string[] }) {
    return JSON.stringify([o?.path ?? '', o?.args ?? []]);
  }
  getLoginItemSettings(o?: { path?: string; args?: string[] }) {
    return { openAtLogin: this.items.get(this.key(o)) ?? false };
  }
  setLoginItemSettings(s: { openAtLogin: boolean; path?: string; args?: string[] }) {
    this.items.set(this.key(s), s.openAtLogin);
  }
}

describe('launch command', () => {
  it('is the executable when packaged, the AppImage file when run from one, electron + app folder in development', () => {
    const base = { execPath: '/opt/Vigil/vigil', appPath: '/opt/Vigil/resources/app.asar', env: {} };
    expect(launchCommand({ ...base, isPackaged: true })).toEqual({ execPath: '/opt/Vigil/vigil', args: [] });
    expect(launchCommand({ ...base, isPackaged: true, env: { APPIMAGE: '/home/ada/Vigil.AppImage' } })).toEqual({
      execPath: '/home/ada/Vigil.AppImage',
      args: [],
    });
    expect(
      launchCommand({
        ...base,
        isPackaged: false,
        execPath: '/repo/node_modules/electron/dist/electron',
        appPath: '/repo',
      }),
    ).toEqual({
      execPath: '/repo/node_modules/electron/dist/electron',
      args: ['/repo'],
    });
  });
});

describe('XDG autostart entry', () => {
  it('quotes Exec arguments as the Desktop Entry spec requires', () => {
    expect(desktopExecArgument('/opt/Vigil/vigil')).toBe('"/opt/Vigil/vigil"');
    expect(desktopExecArgument('/home/ada/My Apps/Vigil.AppImage')).toBe('"/home/ada/My Apps/Vigil.AppImage"');
    // `"` → \" and `$` → \$ inside the quotes, then every backslash doubled by the string escape.
    expect(desktopExecArgument('/tmp/a"b$c')).toBe('"/tmp/a\\\\"b\\\\$c"');
    expect(desktopExecArgument('/tmp/100%')).toBe('"/tmp/100%%"');
    expect(() => desktopExecArgument('/tmp/a\nb')).toThrow(/line break/);
  });

  it('is a complete desktop entry', () => {
    const text = autostartEntry({ execPath: '/opt/Vigil/vigil', args: [] });
    expect(text.split('\n')).toEqual([
      '[Desktop Entry]',
      'Type=Application',
      'Name=Vigil',
      'Comment=Workstation activity monitoring',
      'Exec="/opt/Vigil/vigil"',
      'Terminal=false',
      'X-GNOME-Autostart-enabled=true',
      '',
    ]);
  });

  it('lives in $XDG_CONFIG_HOME/autostart, defaulting to ~/.config', () => {
    expect(autostartDir({ XDG_CONFIG_HOME: '/cfg' }, '/home/ada')).toBe(path.join('/cfg', 'autostart'));
    expect(autostartDir({}, '/home/ada')).toBe(path.join('/home/ada', '.config', 'autostart'));
  });

  it('is written when enabled and removed when disabled', () => {
    const dir = path.join(makeTempDir(), 'autostart');
    const login = startAtLogin({
      platform: 'linux',
      app: new LoginItems(),
      launch: { execPath: '/home/ada/Vigil.AppImage', args: [] },
      autostartDir: dir,
    });
    expect(login.isEnabled()).toBe(false);
    login.setEnabled(true);
    expect(login.isEnabled()).toBe(true);
    expect(fs.readFileSync(path.join(dir, 'vigil.desktop'), 'utf8')).toContain('Exec="/home/ada/Vigil.AppImage"');
    login.setEnabled(false);
    expect(login.isEnabled()).toBe(false);
    expect(fs.existsSync(path.join(dir, 'vigil.desktop'))).toBe(false);
    login.setEnabled(false); // already off: no error
  });
});

describe('login items on macOS and Windows', () => {
  it.each(['darwin', 'win32'] as const)('%s: sets and reads back the same path and arguments', (platform) => {
    const app = new LoginItems();
    const launch = { execPath: 'C:\\Program Files\\Vigil\\Vigil.exe', args: [] };
    const login = startAtLogin({ platform, app, launch, autostartDir: '/unused' });
    expect(login.isEnabled()).toBe(false);
    login.setEnabled(true);
    expect(login.isEnabled()).toBe(true);
    expect([...app.items.keys()]).toEqual([JSON.stringify([launch.execPath, []])]);
    login.setEnabled(false);
    expect(login.isEnabled()).toBe(false);
  });

  it('is unavailable elsewhere', () => {
    const login = startAtLogin({
      platform: 'freebsd',
      app: new LoginItems(),
      launch: { execPath: 'x', args: [] },
      autostartDir: '/x',
    });
    expect(login.isEnabled()).toBeNull();
  });
});
