/**
 * The tray and alerts (docs/alerts.md, docs/tray.md): a new alert raises a notification, at most
 * one per rule and actor every 15 minutes; the tooltip and menu show today's count and the
 * unacknowledged alerts; a real agent's alerts come through the status adapter.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { MenuItemConstructorOptions } from 'electron';
import { formatWhen } from '../../shared/activity-record.js';
import { statusSourceFor, type TrayAlert } from '../../main/agent-status.js';
import { NotificationThrottle, type NotificationText } from '../../main/notifications.js';
import { TrayController, type TrayLike } from '../../main/tray-controller.js';
import { trayMenu, trayTooltip, type TraySnapshot } from '../../main/tray-model.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';

class RecordingTray implements TrayLike<MenuItemConstructorOptions[]> {
  tooltip = '';
  menu: MenuItemConstructorOptions[] = [];
  setImage() {}
  setToolTip(text: string) {
    this.tooltip = text;
  }
  setContextMenu(menu: MenuItemConstructorOptions[]) {
    this.menu = menu;
  }
}

function snapshot(alerts: TrayAlert[], todayCount = 1234): TraySnapshot {
  return {
    phase: 'running',
    failure: null,
    monitoring: { state: 'running', todayCount, issue: null, canPause: true, attribution: 'process', alerts },
    openAtLogin: false,
  };
}

const alert = (id: string, who: string, rule = 'Mass deletion'): TrayAlert => ({
  id,
  rule,
  who,
  count: 501,
  windowSeconds: 60,
});

let agent: TestAgent | null = null;
afterEach(async () => {
  await agent?.stop();
  agent = null;
});

describe('tray alerts', () => {
  it('notifies a new alert at most once per rule and actor every 15 minutes', () => {
    let now = 0;
    const throttle = new NotificationThrottle(15 * 60_000, () => now);
    const shown: NotificationText[] = [];
    let current = snapshot([]);
    const controller = new TrayController({
      tray: new RecordingTray(),
      buildMenu: (t) => t,
      snapshot: () => current,
      failure: () => null,
      iconFile: (s) => `tray-${s}.png`,
      run: () => undefined,
      // As tray-app.ts does: every notification goes through the one throttle.
      notify: (text) => {
        if (throttle.allow(text.key)) shown.push(text);
      },
    });
    controller.render();
    const open: TrayAlert[] = [];
    const fire = (a: TrayAlert): void => {
      open.unshift(a);
      current = snapshot([...open]);
      controller.render();
    };
    fire(alert('1', 'HOST\\alice'));
    expect(shown.map((n) => n.title)).toEqual(['Vigil alert: Mass deletion']);
    expect(shown[0]!.body).toContain('HOST\\alice: 501 records within 60 s');
    controller.render(); // a timer tick: the same alert is not notified again
    now += 5 * 60_000;
    fire(alert('2', 'HOST\\alice')); // a new burst 5 minutes later: throttled
    fire(alert('3', 'HOST\\bob')); // another actor: shown
    fire(alert('4', 'HOST\\alice', 'Mass modification')); // another rule: shown
    expect(shown).toHaveLength(3);
    now += 10 * 60_000 + 1;
    fire(alert('5', 'HOST\\alice')); // 15 minutes after the first: shown again
    expect(shown.map((n) => n.body.split(':')[0])).toEqual(['HOST\\alice', 'HOST\\bob', 'HOST\\alice', 'HOST\\alice']);
  });

  it('does not notify alerts that were open before the tray saw the agent run', () => {
    const starting: TraySnapshot = { phase: 'starting', failure: null, monitoring: null, openAtLogin: false };
    let current = starting;
    const shown: NotificationText[] = [];
    const controller = new TrayController({
      tray: new RecordingTray(),
      buildMenu: (t) => t,
      snapshot: () => current,
      failure: () => null,
      iconFile: (s) => s,
      run: () => undefined,
      notify: (text) => shown.push(text),
    });
    controller.render();
    current = snapshot([alert('old', 'HOST\\alice')]);
    controller.render();
    expect(shown).toEqual([]);
  });

  it('shows the unacknowledged alerts and today’s count in the tooltip and the menu', () => {
    const five = ['a', 'b', 'c', 'd', 'e'].map((id) => alert(id, `HOST\\${id}`));
    expect(trayTooltip(snapshot([five[0]!]))).toBe('Vigil · Running · 1 unacknowledged alert · 1,234 records today');
    expect(trayTooltip(snapshot(five))).toBe('Vigil · Running · 5 unacknowledged alerts · 1,234 records today');
    expect(trayTooltip(snapshot([]))).toBe('Vigil · Running · 1,234 records today');
    const labels = trayMenu(snapshot(five)).map((item) => ('label' in item ? item.label : '—'));
    expect(labels.slice(0, 8)).toEqual([
      'Vigil: Running',
      '1,234 records today',
      '—',
      'Alert: Mass deletion by HOST\\a (501 in 60 s)',
      'Alert: Mass deletion by HOST\\b (501 in 60 s)',
      'Alert: Mass deletion by HOST\\c (501 in 60 s)',
      'and 2 more',
      'Review alerts in the console',
    ]);
    expect(trayMenu(snapshot([])).some((item) => 'label' in item && item.label.startsWith('Alert'))).toBe(false);
  });

  it('reads a real agent’s alerts and hears when one fires or is acknowledged', async () => {
    agent = await startTestAgent();
    const status = statusSourceFor(agent);
    expect(status.alerts).toEqual([]);
    let changes = 0;
    const off = status.onChange(() => changes++);
    const now = Date.now();
    await agent.activity.pipeline.write(
      Array.from({ length: 501 }, (_, i) => ({
        record: {
          Who: 'HOST\\mallory',
          Action: 'Removed',
          What: `/data/${i}`,
          When: formatWhen(new Date(now)),
          Where: 'ws1',
          ObjectType: 'File',
          DataSource: 'File System',
        },
        timeMs: now,
      })),
    );
    expect(status.alerts).toEqual([
      { id: expect.any(String) as string, rule: 'Mass deletion', who: 'HOST\\mallory', count: 501, windowSeconds: 60 },
    ]);
    expect(changes).toBeGreaterThan(0);
    const before = changes;
    agent.activity.alerts.acknowledgeAll('tray-test');
    expect(status.alerts).toEqual([]);
    expect(changes).toBeGreaterThan(before);
    off();
  });
});
