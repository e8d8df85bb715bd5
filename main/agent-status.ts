/**
 * What the tray needs to know about monitoring, behind one small interface, so the tray does
 * not depend on how the activity pipeline is built. `statusSourceFor(agent)` adapts a
 * RunningAgent: each capability the agent exposes under `monitoring` (see
 * MonitoringCapability) is used; each one it lacks degrades the tray (no Pause item, no count
 * in the tooltip) instead of breaking it; so does `RunningAgent.alerts` (AlertsCapability), the
 * unacknowledged alerts. docs/tray.md says how the agent side is connected.
 */

/** A condition that stops or limits recording, e.g. `{ code: 'disk_quota', message: ... }`. */
export interface AgentIssue {
  code: string;
  message: string;
}

export type MonitoringState = 'running' | 'paused' | 'error';

/** An alert the agent raised and nobody acknowledged yet (docs/alerts.md). */
export interface TrayAlert {
  id: string;
  /** The rule's name, e.g. `Mass deletion`. */
  rule: string;
  /** The actor the rule counted (for a host rule: the one actor, or `several accounts`). */
  who: string;
  count: number;
  windowSeconds: number;
}

export interface AgentStatusSource {
  readonly state: MonitoringState;
  /** Activity records stored since local midnight; null when the agent cannot say. */
  readonly todayCount: number | null;
  readonly issue: AgentIssue | null;
  readonly canPause: boolean;
  /** Whether file records name the actor (docs/attribution.md); null when the agent cannot say. */
  readonly attribution: 'process' | 'none' | null;
  /** Unacknowledged alerts, newest first; empty when the agent has none or cannot say. */
  readonly alerts: TrayAlert[];
  /** Pauses or resumes monitoring; rejects when the agent cannot (canPause false). */
  setPaused(paused: boolean): Promise<void>;
  /** Called when any of the above may have changed. Returns the unsubscribe function. */
  onChange(listener: () => void): () => void;
}

/**
 * The members the tray looks for on `RunningAgent.monitoring`. Every member is optional: the
 * adapter checks each one at run time.
 */
export interface MonitoringCapability {
  readonly paused?: boolean;
  pause?(): Promise<void>;
  resume?(): Promise<void>;
  todayCount?(): number;
  attribution?(): 'process' | 'none' | null;
  /** The current issue (disk quota reached, watcher failure...), or null. */
  issue?(): AgentIssue | null;
  onChange?(listener: () => void): () => void;
}

/** What the tray looks for on `RunningAgent.alerts`; every member is optional, as above. */
export interface AlertsCapability {
  unacknowledged?(): unknown[];
  onChange?(listener: () => void): () => void;
}

function isFunction(value: unknown): value is (...args: never[]) => unknown {
  return typeof value === 'function';
}

function capabilityOf(agent: object): MonitoringCapability | null {
  const candidate: unknown = (agent as { monitoring?: unknown }).monitoring;
  return typeof candidate === 'object' && candidate !== null ? (candidate as MonitoringCapability) : null;
}

function alertsOf(agent: object): AlertsCapability | null {
  const candidate: unknown = (agent as { alerts?: unknown }).alerts;
  return typeof candidate === 'object' && candidate !== null ? (candidate as AlertsCapability) : null;
}

function safeAlert(value: unknown): TrayAlert | null {
  if (typeof value !== 'object' || value === null) return null;
  const { id, rule, who, count, windowSeconds } = value as Partial<TrayAlert>;
  if (typeof id !== 'string' || typeof rule !== 'string' || typeof who !== 'string') return null;
  return { id, rule, who, count: Number(count) || 0, windowSeconds: Number(windowSeconds) || 0 };
}

function safeIssue(value: unknown): AgentIssue | null {
  if (typeof value !== 'object' || value === null) return null;
  const { code, message } = value as Partial<AgentIssue>;
  return typeof message === 'string' ? { code: typeof code === 'string' ? code : 'error', message } : null;
}

export function statusSourceFor(agent: object): AgentStatusSource {
  const m = capabilityOf(agent);
  const canPause = m !== null && isFunction(m.pause) && isFunction(m.resume);
  const a = alertsOf(agent);
  return {
    get issue() {
      return m && isFunction(m.issue) ? safeIssue(m.issue()) : null;
    },
    get state(): MonitoringState {
      if (this.issue) return 'error';
      return m?.paused === true ? 'paused' : 'running';
    },
    get todayCount() {
      if (!m || !isFunction(m.todayCount)) return null;
      const n = m.todayCount();
      return Number.isFinite(n) && n >= 0 ? n : null;
    },
    get attribution() {
      const value = m && isFunction(m.attribution) ? m.attribution() : null;
      return value === 'process' || value === 'none' ? value : null;
    },
    get alerts() {
      const list = a && isFunction(a.unacknowledged) ? a.unacknowledged() : [];
      return Array.isArray(list) ? list.map(safeAlert).filter((x): x is TrayAlert => x !== null) : [];
    },
    canPause,
    async setPaused(paused: boolean) {
      if (!canPause || !m?.pause || !m.resume) throw new Error('this agent cannot pause monitoring');
      await (paused ? m.pause() : m.resume());
    },
    onChange(listener) {
      const offMonitoring = m && isFunction(m.onChange) ? m.onChange(listener) : () => undefined;
      const offAlerts = a && isFunction(a.onChange) ? a.onChange(() => listener()) : () => undefined;
      return () => {
        offMonitoring();
        offAlerts();
      };
    },
  };
}
