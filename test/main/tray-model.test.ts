/** The tray as data: icon, tooltip and menu for every state, and menu clicks. */
import { describe, expect, it } from 'vitest';
import { menuTemplate } from '../../main/tray-menu.js';
import {
  TOOLTIP_MAX,
  trayIconState,
  trayMenu,
  trayTooltip,
  type TrayAction,
  type TrayMenuItem,
  type TraySnapshot,
} from '../../main/tray-model.js';

const running: TraySnapshot = {
  phase: 'running',
  failure: null,
  monitoring: { state: 'running', todayCount: 1234, issue: null, canPause: true },
  openAtLogin: false,
};

function item(items: TrayMenuItem[], label: RegExp): TrayMenuItem {
  const found = items.find((i) => i.kind !== 'separator' && label.test(i.label));
  if (!found) throw new Error(`no menu item ${label}`);
  return found;
}

function enabled(items: TrayMenuItem[], label: RegExp): boolean {
  const i = item(items, label);
  return i.kind === 'action' || i.kind === 'checkbox' ? i.enabled : false;
}

describe('tray menu model', () => {
  it('has every item docs/tray.md lists, in order, while running', () => {
    const labels = trayMenu(running).flatMap((i) => (i.kind === 'action' || i.kind === 'checkbox' ? [i.label] : []));
    expect(labels).toEqual([
      'Open console',
      'Pause monitoring',
      'Copy API URL',
      'Copy certificate fingerprint',
      'Open log folder',
      'Start at login',
      'Quit Vigil',
    ]);
    for (const label of labels) expect(enabled(trayMenu(running), new RegExp(`^${label}$`))).toBe(true);
  });

  it("shows the state and today's count at the top, not clickable", () => {
    const [first, second] = trayMenu(running);
    expect(first).toEqual({ kind: 'label', label: 'Vigil: Running' });
    expect(second).toEqual({ kind: 'label', label: '1,234 records today' });
  });

  it('offers Resume while paused', () => {
    const paused: TraySnapshot = { ...running, monitoring: { ...running.monitoring!, state: 'paused' } };
    expect(item(trayMenu(paused), /monitoring/)).toMatchObject({ label: 'Resume monitoring', action: 'resume' });
    expect(trayIconState(paused)).toBe('paused');
  });

  it('greys out Pause when the agent cannot pause, and leaves the count out when it cannot count', () => {
    const basic: TraySnapshot = {
      ...running,
      monitoring: { state: 'running', todayCount: null, issue: null, canPause: false },
    };
    const items = trayMenu(basic);
    expect(enabled(items, /Pause monitoring/)).toBe(false);
    expect(items.some((i) => i.kind === 'label' && /today/.test(i.label))).toBe(false);
    expect(trayTooltip(basic)).toBe('Vigil · Running');
  });

  it('while starting, only what needs no agent is enabled', () => {
    const starting: TraySnapshot = { phase: 'starting', failure: null, monitoring: null, openAtLogin: true };
    const items = trayMenu(starting);
    expect(enabled(items, /Open console/)).toBe(false);
    expect(enabled(items, /Copy API URL/)).toBe(false);
    expect(enabled(items, /Copy certificate/)).toBe(false);
    expect(enabled(items, /Open log folder/)).toBe(true);
    expect(enabled(items, /Quit/)).toBe(true);
    expect(item(items, /Start at login/)).toMatchObject({ checked: true, enabled: true });
    expect(trayTooltip(starting)).toBe('Vigil · Starting…');
    expect(trayIconState(starting)).toBe('running');
  });

  it('after a failed start: error icon, the reason, and Start again', () => {
    const failed: TraySnapshot = {
      phase: 'failed',
      failure: 'port 4494 is already in use',
      monitoring: null,
      openAtLogin: false,
    };
    const items = trayMenu(failed);
    expect(trayIconState(failed)).toBe('error');
    expect(items[0]).toEqual({ kind: 'label', label: 'Vigil: Error: port 4494 is already in use' });
    expect(item(items, /Start again/)).toMatchObject({ action: 'retry-start', enabled: true });
    expect(trayTooltip(failed)).toBe('Vigil · Error: port 4494 is already in use');
    expect(trayMenu(running).some((i) => i.kind === 'action' && i.action === 'retry-start')).toBe(false);
  });

  it('an issue while running (disk quota) shows the error icon and message', () => {
    const quota: TraySnapshot = {
      ...running,
      monitoring: {
        ...running.monitoring!,
        state: 'error',
        issue: { code: 'disk_quota', message: 'disk quota of 5 GB reached' },
      },
    };
    expect(trayIconState(quota)).toBe('error');
    expect(trayTooltip(quota)).toBe('Vigil · Error: disk quota of 5 GB reached · 1,234 records today');
  });

  it('Start at login is unavailable where the platform has no way to do it', () => {
    expect(item(trayMenu({ ...running, openAtLogin: null }), /Start at login/)).toMatchObject({
      enabled: false,
      checked: false,
    });
  });

  it('says "no actor attribution" when file records cannot name who acted, and nothing when they can', () => {
    const withAttribution = (attribution: 'process' | 'none') =>
      trayTooltip({ ...running, monitoring: { ...running.monitoring!, attribution } });
    expect(withAttribution('none')).toBe('Vigil · Running · 1,234 records today · no actor attribution');
    expect(withAttribution('process')).toBe('Vigil · Running · 1,234 records today');
  });

  it('says "1 record", and keeps tooltips within the Windows limit', () => {
    expect(trayTooltip({ ...running, monitoring: { ...running.monitoring!, todayCount: 1 } })).toBe(
      'Vigil · Running · 1 record today',
    );
    const long = trayTooltip({ phase: 'failed', failure: 'x'.repeat(500), monitoring: null, openAtLogin: null });
    expect(long.length).toBe(TOOLTIP_MAX);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe('tray menu template', () => {
  it('maps items to Electron templates whose clicks run the action', () => {
    const clicked: TrayAction[] = [];
    const template = menuTemplate(trayMenu(running), (a) => clicked.push(a));
    expect(template[0]).toEqual({ label: 'Vigil: Running', enabled: false });
    expect(template.some((t) => t.type === 'separator')).toBe(true);
    const checkbox = template.find((t) => t.label === 'Start at login');
    expect(checkbox).toMatchObject({ type: 'checkbox', checked: false, enabled: true });
    for (const t of template) if (t.click) (t.click as () => void)();
    expect(clicked).toEqual([
      'open-console',
      'pause',
      'copy-api-url',
      'copy-fingerprint',
      'open-log-folder',
      'toggle-open-at-login',
      'quit',
    ]);
  });
});
