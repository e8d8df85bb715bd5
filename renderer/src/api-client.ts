/**
 * The console's only door to the agent: typed calls to the console API on the same origin
 * (shared/console-api.ts is the contract). Errors come back as ConsoleApiError with the API's
 * own words and the field they concern, so views can show them as text next to the input.
 *
 * A session is the cookie (sent by the browser) and the session key, which this module keeps
 * in `sessionStorage` (readable by the console's own origin only) and sends with every call:
 * the `X-Vigil-Session` header, or the `session` query parameter on event streams and download
 * links, which cannot carry a header. The login page and the tray app give the key in the
 * address's fragment (`/#session=<key>`); it is taken from there and removed at once.
 */
import type { ActivityRecord } from '../../shared/activity-record.js';
import type { AlertRule, AlertRuleInput } from '../../shared/alert-rule.js';
import type { ClientApplicationView, ClientCredentials } from '../../shared/client-application.js';
import {
  ConsoleVerificationPaths,
  type VerificationState,
  type FleetJoinRequest,
  type FleetStatusView,
  CONSOLE_SESSION_FRAGMENT,
  CONSOLE_SESSION_HEADER,
  CONSOLE_SESSION_PARAM,
  ConsoleActivityPaths,
  ConsoleActivityStatsPaths,
  ConsoleAlertPaths,
  ConsoleAuditUserPaths,
  ConsoleDomainPaths,
  type DomainRequest,
  type DomainSummary,
  type DomainTestResult,
  type RemovedDomainResponse,
  ConsoleClientPaths,
  ConsoleLogFilePaths,
  ConsoleMonitoringPaths,
  ConsolePaths,
  type ActivitySearchRequest,
  type ActivitySearchResponse,
  type ActivityStatsRange,
  type ActivityStatsResponse,
  type AcknowledgedResponse,
  type AlertView,
  type AuditUserSummary,
  type ConsoleSettingsView,
  type ConsoleStatus,
  type HostView,
  type LogFileView,
  type LogLinesResponse,
  type MonitoringView,
  type OutputView,
  type RemovedAlertRuleResponse,
  type RemovedAuditUserResponse,
  type RevokedClientResponse,
  type SettingsPatch,
} from '../../shared/console-api.js';

const SESSION_STORAGE_KEY = 'vigil.consoleSessionKey';
/** How long a new tab waits for an open tab of the console to share the session key. */
const SHARE_WAIT_MS = 300;

function sessionKey(): string | null {
  return typeof sessionStorage === 'undefined' ? null : sessionStorage.getItem(SESSION_STORAGE_KEY);
}

/**
 * Resolves once this tab has the session key, or knows no open tab will give it. The key comes
 * from the address (`/#session=<key>`, removed at once), from this tab's sessionStorage (a
 * reload), or from another open tab of the console over a BroadcastChannel, which only pages
 * of the same origin (scheme, host and port) can join: a new tab opened from the console
 * stays signed in, a page on another port learns nothing.
 */
const sessionReady: Promise<void> = (() => {
  if (typeof location === 'undefined') return Promise.resolve(); // imported outside a browser (unit tests)
  const match = new RegExp(`^#${CONSOLE_SESSION_FRAGMENT}=([A-Za-z0-9_-]+)$`).exec(location.hash);
  if (match) {
    sessionStorage.setItem(SESSION_STORAGE_KEY, match[1]!);
    history.replaceState(history.state, '', location.pathname + location.search);
  }
  if (typeof BroadcastChannel === 'undefined') return Promise.resolve();
  const channel = new BroadcastChannel('vigil-console-session');
  let received: (() => void) | null = null;
  channel.onmessage = (event: MessageEvent<unknown>) => {
    const data = event.data as { ask?: true; key?: unknown } | null;
    const key = sessionKey();
    if (data?.ask && key !== null) channel.postMessage({ key });
    else if (typeof data?.key === 'string' && key === null) {
      sessionStorage.setItem(SESSION_STORAGE_KEY, data.key);
      received?.();
    }
  };
  if (sessionKey() !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    received = resolve;
    window.setTimeout(resolve, SHARE_WAIT_MS);
    channel.postMessage({ ask: true });
  });
})();

/** A URL the browser fetches by itself (EventSource, a download link), with the session key. */
function withSessionKey(path: string): string {
  const key = sessionKey();
  if (key === null) return path;
  return `${path}${path.includes('?') ? '&' : '?'}${CONSOLE_SESSION_PARAM}=${encodeURIComponent(key)}`;
}

export class ConsoleApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'ConsoleApiError';
  }
}

interface ErrorBody {
  error?: string;
  error_description?: string;
  field?: string;
}

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  await sessionReady;
  let response: Response;
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const key = sessionKey();
  if (key !== null) headers[CONSOLE_SESSION_HEADER] = key;
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers,
      body: body === undefined ? null : JSON.stringify(body),
    });
  } catch {
    throw new ConsoleApiError(0, 'unreachable', 'The agent does not answer. Is it still running?');
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    json = undefined;
  }
  if (!response.ok) {
    const error = (json ?? {}) as ErrorBody;
    throw new ConsoleApiError(
      response.status,
      error.error ?? `http_${response.status}`,
      error.error_description ?? `The agent answered ${response.status} ${response.statusText}.`,
      error.field,
    );
  }
  return json as T;
}

/** Words for any error a view catches. */
export function errorText(error: unknown): string {
  if (error instanceof ConsoleApiError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

/** The request field the agent named in its refusal, if it named one (to show the error under it). */
export function errorField(error: unknown): string | undefined {
  return error instanceof ConsoleApiError ? error.field : undefined;
}

export function isSignedOut(error: unknown): boolean {
  return error instanceof ConsoleApiError && error.status === 401;
}

const query = (params: Record<string, string | number | null | undefined>): string => {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== null && value !== undefined) search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
};

export const api = {
  status: () => request<ConsoleStatus>('GET', ConsolePaths.status),
  setPaused: (paused: boolean) => request<MonitoringView>('PUT', ConsolePaths.monitoring, { paused }),
  outputs: () => request<OutputView[]>('GET', ConsolePaths.outputs),
  setHostEnabled: (id: string, enabled: boolean) =>
    request<HostView>('PUT', ConsoleMonitoringPaths.host(id), { enabled }),
  addFolder: (id: string, folder: string) =>
    request<HostView>('POST', ConsoleMonitoringPaths.folders(id), { path: folder }),
  removeFolder: (id: string, folder: string) =>
    request<HostView>('DELETE', ConsoleMonitoringPaths.folders(id) + query({ path: folder })),
  setOutputEnabled: (id: string, enabled: boolean) =>
    request<OutputView>('PUT', ConsoleMonitoringPaths.output(id), { enabled }),

  clients: () => request<ClientApplicationView[]>('GET', ConsoleClientPaths.clients),
  addClient: (name: string, permissions: string[]) =>
    request<ClientCredentials & { name: string }>('POST', ConsoleClientPaths.clients, { name, permissions }),
  setPermissions: (id: string, permissions: string[]) =>
    request<ClientApplicationView>('PUT', ConsoleClientPaths.permissions(id), { permissions }),
  regenerateSecret: (id: string) => request<ClientCredentials>('POST', ConsoleClientPaths.secret(id)),
  revokeClient: (id: string) => request<RevokedClientResponse>('DELETE', ConsoleClientPaths.client(id)),

  auditUsers: () => request<AuditUserSummary[]>('GET', ConsoleAuditUserPaths.users),
  domains: () => request<DomainSummary[]>('GET', ConsoleDomainPaths.domains),
  addDomain: (body: DomainRequest) => request<DomainSummary>('POST', ConsoleDomainPaths.domains, body),
  saveDomain: (id: string, body: DomainRequest) => request<DomainSummary>('PUT', ConsoleDomainPaths.domain(id), body),
  removeDomain: (id: string) => request<RemovedDomainResponse>('DELETE', ConsoleDomainPaths.domain(id)),
  testDomain: (id: string) => request<DomainTestResult>('POST', ConsoleDomainPaths.test(id)),
  addAuditUser: (name: string, roles: string[], password: string) =>
    request<AuditUserSummary>('POST', ConsoleAuditUserPaths.users, { name, roles, password }),
  setAuditUserPassword: (name: string, password: string) =>
    request<AuditUserSummary>('PUT', ConsoleAuditUserPaths.password(name), { password }),
  setAuditUserRoles: (name: string, roles: string[]) =>
    request<AuditUserSummary>('PUT', ConsoleAuditUserPaths.roles(name), { roles }),
  removeAuditUser: (name: string) => request<RemovedAuditUserResponse>('DELETE', ConsoleAuditUserPaths.user(name)),

  settings: () => request<ConsoleSettingsView>('GET', ConsolePaths.settings),
  saveSettings: (patch: SettingsPatch) => request<ConsoleSettingsView>('PATCH', ConsolePaths.settings, patch),

  logFiles: (outputId?: string) => request<LogFileView[]>('GET', ConsoleLogFilePaths.files + query({ outputId })),
  logLines: (id: string, from: number, count: number, filter: string | null) =>
    request<LogLinesResponse>('GET', ConsoleLogFilePaths.lines(id) + query({ from, count, filter: filter || null })),
  logDownloadUrl: (id: string) => withSessionKey(ConsoleLogFilePaths.content(id)),
  fleet: () => request<FleetStatusView>('GET', ConsolePaths.fleet),
  joinFleet: (join: FleetJoinRequest) => request<FleetStatusView>('PUT', ConsolePaths.fleet, join),
  leaveFleet: () => request<void>('DELETE', ConsolePaths.fleet),
  verification: () => request<VerificationState>('GET', ConsoleVerificationPaths.verification),
  verifyNow: () => request<VerificationState>('POST', ConsoleVerificationPaths.verification),

  searchActivity: (body: ActivitySearchRequest) =>
    request<ActivitySearchResponse>('POST', ConsoleActivityPaths.search, body),

  activityStats: (range: ActivityStatsRange) =>
    request<ActivityStatsResponse>('GET', `${ConsoleActivityStatsPaths.stats}${query({ range })}`),

  alerts: () => request<AlertView[]>('GET', ConsoleAlertPaths.alerts),
  acknowledgeAlert: (id: string) => request<AcknowledgedResponse>('POST', ConsoleAlertPaths.acknowledge(id)),
  acknowledgeAllAlerts: () => request<AcknowledgedResponse>('POST', ConsoleAlertPaths.acknowledgeAll),
  alertRules: () => request<AlertRule[]>('GET', ConsoleAlertPaths.rules),
  addAlertRule: (rule: AlertRuleInput) => request<AlertRule>('POST', ConsoleAlertPaths.rules, rule),
  saveAlertRule: (name: string, rule: AlertRuleInput) => request<AlertRule>('PUT', ConsoleAlertPaths.rule(name), rule),
  removeAlertRule: (name: string) => request<RemovedAlertRuleResponse>('DELETE', ConsoleAlertPaths.rule(name)),
};

export interface EventHandlers {
  [event: string]: (data: unknown) => void;
}

export interface EventSubscription {
  close(): void;
}

/**
 * Opens a Server-Sent Events stream; `onState` hears whether it is connected. After a drop it
 * reconnects with the URL `url()` gives then (follow mode resumes after the last line it has).
 */
export function subscribe(
  url: () => string,
  handlers: EventHandlers,
  onState: (state: 'connecting' | 'open' | 'retrying') => void = () => undefined,
): EventSubscription {
  let source: EventSource | null = null;
  let timer: number | null = null;
  let closed = false;
  let keyAwaited = false;
  const connect = (): void => {
    onState('connecting');
    if (sessionKey() === null && !keyAwaited) {
      keyAwaited = true;
      void sessionReady.then(() => !closed && connect());
      return;
    }
    source = new EventSource(withSessionKey(url()), { withCredentials: true });
    source.onopen = () => onState('open');
    source.onerror = () => {
      source?.close();
      if (closed) return;
      onState('retrying');
      timer = window.setTimeout(connect, 2000);
    };
    for (const [event, handler] of Object.entries(handlers)) {
      source.addEventListener(event, (message) => {
        try {
          handler(JSON.parse((message as MessageEvent<string>).data) as unknown);
        } catch {
          // A malformed event is dropped rather than breaking the page.
        }
      });
    }
  };
  connect();
  return {
    close() {
      closed = true;
      if (timer !== null) window.clearTimeout(timer);
      source?.close();
    },
  };
}

export const feedUrl = (): string => ConsoleActivityPaths.feed;
export const followUrl = (id: string, after: number, filter: string | null): string =>
  ConsoleLogFilePaths.follow(id) + query({ after, filter: filter || null });

export type { ActivityRecord, ClientApplicationView, ClientCredentials };
