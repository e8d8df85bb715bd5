/**
 * Keeps the tray icon, tooltip and menu in step with the agent. `render()` is called on every
 * host or status change and on a timer (today's count grows, and resets at midnight); it also
 * raises a notification when the agent enters an error it was not in before.
 */
import type { MenuItemConstructorOptions } from 'electron';
import type { AgentHost, StoppableAgent } from './agent-host.js';
import type { AgentStatusSource } from './agent-status.js';
import type { StartAtLogin } from './login-item.js';
import {
  alertNotification,
  issueNotification,
  startFailureNotification,
  type NotificationText,
} from './notifications.js';
import { menuTemplate } from './tray-menu.js';
import {
  trayIconState,
  trayMenu,
  trayTooltip,
  type TrayAction,
  type TrayIconState,
  type TraySnapshot,
} from './tray-model.js';

export function snapshotOf(
  host: Pick<AgentHost<StoppableAgent>, 'phase' | 'failure'>,
  status: AgentStatusSource | null,
  loginItem: StartAtLogin,
): TraySnapshot {
  return {
    phase: host.phase,
    failure: host.failure?.message ?? null,
    monitoring: status
      ? {
          state: status.state,
          todayCount: status.todayCount,
          issue: status.issue,
          canPause: status.canPause,
          attribution: status.attribution,
          alerts: status.alerts,
        }
      : null,
    openAtLogin: loginItem.isEnabled(),
  };
}

/**
 * Notifications owed when the tray goes from `previous` to `next`: on entering an error, and for
 * each alert that appeared while the tray watched (alerts already open when the agent started
 * show in the tooltip and menu, without a notification).
 */
export function transitionNotifications(
  previous: TraySnapshot | null,
  next: TraySnapshot,
  failure: Error | null,
): NotificationText[] {
  const out: NotificationText[] = [];
  if (next.phase === 'failed' && previous?.phase !== 'failed' && failure) out.push(startFailureNotification(failure));
  const issue = next.monitoring?.issue ?? null;
  if (issue && previous?.monitoring?.issue?.code !== issue.code) out.push(issueNotification(issue));
  if (previous?.monitoring) {
    const known = new Set((previous.monitoring.alerts ?? []).map((alert) => alert.id));
    for (const alert of next.monitoring?.alerts ?? []) if (!known.has(alert.id)) out.push(alertNotification(alert));
  }
  return out;
}

export interface TrayLike<M> {
  setImage(image: string): void;
  setToolTip(text: string): void;
  setContextMenu(menu: M): void;
}

export interface TrayControllerDeps<M> {
  tray: TrayLike<M>;
  buildMenu(template: MenuItemConstructorOptions[]): M;
  snapshot(): TraySnapshot;
  failure(): Error | null;
  iconFile(state: TrayIconState): string;
  run(action: TrayAction): void;
  notify(text: NotificationText): void;
}

export class TrayController<M> {
  private previous: TraySnapshot | null = null;
  private shownIcon: string | null = null;

  constructor(private readonly deps: TrayControllerDeps<M>) {}

  render(): void {
    const snapshot = this.deps.snapshot();
    for (const text of transitionNotifications(this.previous, snapshot, this.deps.failure())) this.deps.notify(text);
    this.previous = snapshot;
    const icon = this.deps.iconFile(trayIconState(snapshot));
    if (icon !== this.shownIcon) {
      this.deps.tray.setImage(icon);
      this.shownIcon = icon;
    }
    this.deps.tray.setToolTip(trayTooltip(snapshot));
    // Linux panels (AppIndicator) only pick up menu changes when the menu is set again.
    this.deps.tray.setContextMenu(this.deps.buildMenu(menuTemplate(trayMenu(snapshot), this.deps.run)));
  }
}
