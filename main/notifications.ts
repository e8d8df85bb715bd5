/**
 * Native notifications for agent errors: a start that failed (port in use, another agent on
 * the data folder, invalid settings) and issues that stop recording while it runs (disk quota
 * reached); and for alerts on mass changes. The texts are built here, purely; a throttle keeps one notification per cause
 * per quarter hour so a flapping condition does not flood the desktop.
 */
import { AgentAlreadyRunningError, PortInUseError } from '../agent/agent.js';
import type { AgentIssue, TrayAlert } from './agent-status.js';

export interface NotificationText {
  /** Same key, same cause: used to throttle repeats. */
  key: string;
  title: string;
  body: string;
}

export function startFailureNotification(error: Error): NotificationText {
  if (error instanceof PortInUseError) {
    return {
      key: `port-in-use:${error.port}`,
      title: `Vigil could not start: port ${error.port} is in use`,
      body: `Another program is using port ${error.port}. Stop it, or choose another port with the setting "${error.setting}" in settings.json, then choose Start again.`,
    };
  }
  if (error instanceof AgentAlreadyRunningError) {
    return {
      key: 'already-running',
      title: 'Vigil is already running',
      body: `Another Vigil agent (process ${error.pid}) is using ${error.dataDir}. Stop it, then choose Start again.`,
    };
  }
  return { key: `start-failed:${error.message}`, title: 'Vigil could not start', body: error.message };
}

export function issueNotification(issue: AgentIssue): NotificationText {
  const title =
    issue.code === 'disk_quota' ? 'Vigil stopped writing log files: disk quota reached' : 'Vigil needs attention';
  return { key: `issue:${issue.code}`, title, body: issue.message };
}

/**
 * A fired alert (docs/alerts.md). The key is the rule and the actor, so the throttle shows at
 * most one per rule and actor every quarter hour, however many bursts there are.
 */
export function alertNotification(alert: TrayAlert): NotificationText {
  return {
    key: `alert:${alert.rule}\u0000${alert.who}`,
    title: `Vigil alert: ${alert.rule}`,
    body: `${alert.who}: ${alert.count} records within ${alert.windowSeconds} s. Open the console to review and acknowledge it.`,
  };
}

export class NotificationThrottle {
  private readonly lastShown = new Map<string, number>();

  constructor(
    private readonly intervalMs = 15 * 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** True when a notification with this key may be shown now (and records that it was). */
  allow(key: string): boolean {
    const t = this.now();
    const last = this.lastShown.get(key);
    if (last !== undefined && t - last < this.intervalMs) return false;
    this.lastShown.set(key, t);
    return true;
  }
}
