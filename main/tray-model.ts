/**
 * The tray as data: from one snapshot of the host and the agent's status, the icon state,
 * the tooltip and the menu items. Pure, so every state the tray can be in is tested without
 * Electron; tray-menu.ts turns the items into Electron menu templates.
 */
import type { HostPhase } from './agent-host.js';
import type { AgentIssue, MonitoringState, TrayAlert } from './agent-status.js';

export interface TraySnapshot {
  phase: HostPhase;
  /** Why the last start failed (phase `failed`). */
  failure: string | null;
  /** Present while the agent runs. */
  monitoring: {
    state: MonitoringState;
    todayCount: number | null;
    issue: AgentIssue | null;
    canPause: boolean;
    /** `none`: file records cannot name who acted (docs/attribution.md); the tooltip says so. */
    attribution?: 'process' | 'none' | null;
    /** Unacknowledged alerts, newest first (docs/alerts.md). */
    alerts?: TrayAlert[];
  } | null;
  /** null where start at login is not available. */
  openAtLogin: boolean | null;
}

export type TrayIconState = 'running' | 'paused' | 'error';

export type TrayAction =
  | 'open-console'
  | 'pause'
  | 'resume'
  | 'copy-api-url'
  | 'copy-fingerprint'
  | 'open-log-folder'
  | 'toggle-open-at-login'
  | 'retry-start'
  | 'quit';

export type TrayMenuItem =
  | { kind: 'separator' }
  | { kind: 'label'; label: string }
  | { kind: 'action'; label: string; action: TrayAction; enabled: boolean }
  | { kind: 'checkbox'; label: string; action: TrayAction; enabled: boolean; checked: boolean };

export function trayIconState(s: TraySnapshot): TrayIconState {
  if (s.phase === 'failed') return 'error';
  if (s.monitoring?.state === 'error') return 'error';
  if (s.monitoring?.state === 'paused') return 'paused';
  return 'running';
}

const COUNT_FORMAT = new Intl.NumberFormat('en-US');

/** One line naming the state, e.g. "Running", "Paused", "Error: port 4494 is already in use". */
export function stateLine(s: TraySnapshot): string {
  switch (s.phase) {
    case 'idle':
    case 'starting':
      return 'Starting…';
    case 'failed':
      return `Error: ${s.failure ?? 'the agent could not start'}`;
    case 'stopping':
    case 'stopped':
      return 'Stopping…';
    case 'running':
      if (s.monitoring?.issue) return `Error: ${s.monitoring.issue.message}`;
      return s.monitoring?.state === 'paused' ? 'Paused' : 'Running';
  }
}

function countLine(count: number | null | undefined): string | null {
  if (count === null || count === undefined) return null;
  return `${COUNT_FORMAT.format(count)} ${count === 1 ? 'record' : 'records'} today`;
}

function alertsLine(alerts: readonly TrayAlert[] | undefined): string | null {
  const n = alerts?.length ?? 0;
  if (n === 0) return null;
  return `${COUNT_FORMAT.format(n)} unacknowledged ${n === 1 ? 'alert' : 'alerts'}`;
}

/** One menu line per alert, e.g. "Alert: Mass deletion by HOST\\bob (501 in 60 s)". */
export function alertLabel(alert: TrayAlert): string {
  return `Alert: ${alert.rule} by ${alert.who} (${COUNT_FORMAT.format(alert.count)} in ${alert.windowSeconds} s)`;
}

/** Alerts listed one by one in the menu; the rest are counted. */
export const MENU_ALERTS = 3;

/** Windows cuts tray tooltips at 127 characters (NOTIFYICONDATA szTip); keep inside that. */
export const TOOLTIP_MAX = 127;

export function trayTooltip(s: TraySnapshot): string {
  const running = s.phase === 'running';
  const unattributed = running && s.monitoring?.attribution === 'none' ? 'no actor attribution' : null;
  const alerts = running ? alertsLine(s.monitoring?.alerts) : null;
  const parts = ['Vigil', stateLine(s), alerts, countLine(running ? s.monitoring?.todayCount : null), unattributed];
  const text = parts.filter((p): p is string => p !== null).join(' · ');
  return text.length <= TOOLTIP_MAX ? text : `${text.slice(0, TOOLTIP_MAX - 1)}…`;
}

export function trayMenu(s: TraySnapshot): TrayMenuItem[] {
  const running = s.phase === 'running';
  const m = running ? s.monitoring : null;
  const paused = m?.state === 'paused';
  const count = countLine(m?.todayCount);
  const items: TrayMenuItem[] = [{ kind: 'label', label: `Vigil: ${stateLine(s)}` }];
  if (count) items.push({ kind: 'label', label: count });
  const alerts = m?.alerts ?? [];
  if (alerts.length > 0) {
    items.push({ kind: 'separator' });
    for (const alert of alerts.slice(0, MENU_ALERTS)) items.push({ kind: 'label', label: alertLabel(alert) });
    if (alerts.length > MENU_ALERTS) {
      items.push({ kind: 'label', label: `and ${alerts.length - MENU_ALERTS} more` });
    }
    items.push({ kind: 'action', label: 'Review alerts in the console', action: 'open-console', enabled: true });
  }
  items.push({ kind: 'separator' });
  items.push({ kind: 'action', label: 'Open console', action: 'open-console', enabled: running });
  items.push({
    kind: 'action',
    label: paused ? 'Resume monitoring' : 'Pause monitoring',
    action: paused ? 'resume' : 'pause',
    enabled: m?.canPause === true,
  });
  if (s.phase === 'failed') items.push({ kind: 'action', label: 'Start again', action: 'retry-start', enabled: true });
  items.push({ kind: 'separator' });
  items.push({ kind: 'action', label: 'Copy API URL', action: 'copy-api-url', enabled: running });
  items.push({ kind: 'action', label: 'Copy certificate fingerprint', action: 'copy-fingerprint', enabled: running });
  items.push({ kind: 'action', label: 'Open log folder', action: 'open-log-folder', enabled: true });
  items.push({ kind: 'separator' });
  items.push({
    kind: 'checkbox',
    label: 'Start at login',
    action: 'toggle-open-at-login',
    enabled: s.openAtLogin !== null,
    checked: s.openAtLogin === true,
  });
  items.push({ kind: 'action', label: 'Quit Vigil', action: 'quit', enabled: s.phase !== 'stopping' });
  return items;
}
