/** The tray follows the agent: icon, tooltip, menu, and one notification per new error. */
import { describe, expect, it } from 'vitest';
import type { MenuItemConstructorOptions } from 'electron';
import { PortInUseError } from '../../agent/agent.js';
import { AgentHost } from '../../main/agent-host.js';
import { silentLogger } from '../../agent/log/logger.js';
import type { StartAtLogin } from '../../main/login-item.js';
import type { NotificationText } from '../../main/notifications.js';
import { TrayController, snapshotOf, transitionNotifications, type TrayLike } from '../../main/tray-controller.js';
import type { TraySnapshot } from '../../main/tray-model.js';

class RecordingTray implements TrayLike<MenuItemConstructorOptions[]> {
  images: string[] = [];
  tooltip = '';
  menu: MenuItemConstructorOptions[] = [];
  setImage(image: string) {
    this.images.push(image);
  }
  setToolTip(text: string) {
    this.tooltip = text;
  }
  setContextMenu(menu: MenuItemConstructorOptions[]) {
    this.menu = menu;
  }
}

const noLogin: StartAtLogin = { isEnabled: () => null, setEnabled: () => undefined };

describe('tray controller', () => {
  it('follows a host from starting to a failed start to running', async () => {
    let attempt = 0;
    const host = new AgentHost(async () => {
      attempt += 1;
      if (attempt === 1) throw new PortInUseError(4494, 'agentApi.port', '--api-port');
      return { stop: async () => undefined };
    }, silentLogger);
    const tray = new RecordingTray();
    const notes: NotificationText[] = [];
    const controller = new TrayController({
      tray,
      buildMenu: (t) => t,
      snapshot: () => snapshotOf(host, null, noLogin),
      failure: () => host.failure,
      iconFile: (s) => `tray-${s}.png`,
      run: () => undefined,
      notify: (n) => notes.push(n),
    });
    host.onChange(() => controller.render());
    controller.render();
    expect(tray.tooltip).toBe('Vigil · Starting…');
    await host.start();
    expect(tray.images).toEqual(['tray-running.png', 'tray-error.png']);
    expect(tray.tooltip).toMatch(/^Vigil · Error: port 4494 is already in use/);
    expect(notes.map((n) => n.title)).toEqual(['Vigil could not start: port 4494 is in use']);
    controller.render(); // a timer tick: no second notification for the same failure
    expect(notes).toHaveLength(1);
    const retry = tray.menu.find((m) => m.label === 'Start again');
    expect(retry).toBeDefined();
    await host.start();
    expect(tray.images.at(-1)).toBe('tray-running.png');
    expect(tray.tooltip).toBe('Vigil · Running');
    expect(tray.images).toHaveLength(3); // the image is only set when it changes
  });
});

describe('transition notifications', () => {
  const base: TraySnapshot = {
    phase: 'running',
    failure: null,
    monitoring: { state: 'running', todayCount: 3, issue: null, canPause: true },
    openAtLogin: false,
  };
  const quota = { code: 'disk_quota', message: 'the 5 GB quota is reached' };
  const withIssue: TraySnapshot = { ...base, monitoring: { ...base.monitoring!, state: 'error', issue: quota } };

  it('notifies when an issue appears, not while it lasts, and again when it comes back', () => {
    expect(transitionNotifications(base, withIssue, null).map((n) => n.key)).toEqual(['issue:disk_quota']);
    expect(transitionNotifications(withIssue, withIssue, null)).toEqual([]);
    expect(transitionNotifications(withIssue, base, null)).toEqual([]);
    expect(transitionNotifications(base, withIssue, null)).toHaveLength(1);
  });

  it('notifies a failed start once', () => {
    const failed: TraySnapshot = { phase: 'failed', failure: 'boom', monitoring: null, openAtLogin: null };
    const error = new Error('boom');
    expect(transitionNotifications(null, failed, error)).toHaveLength(1);
    expect(transitionNotifications(failed, failed, error)).toEqual([]);
  });
});
