/**
 * The console API's access contract, shared by the agent (which enforces it), the CLI and the
 * tray app (which use the console token) and the console web app (which uses the cookie).
 * See docs/decisions.md "Console access".
 *
 * - The agent writes a fresh console token at every start to `<data dir>/secrets/console-token`
 *   (owner-only). Only processes of the same user can read it; it never appears in a URL,
 *   argv or a log line.
 * - Programs (the `vigil` CLI, the tray app's main process) send it as
 *   `Authorization: Bearer <console token>`.
 * - A browser gets a session through a one-time login link: a program holding the token asks
 *   for one (`POST /api/login-links` → `{ "url": "http://127.0.0.1:4495/login?code=..." }`,
 *   single use, valid 60 s); opening it sets the session cookie (HttpOnly, SameSite=Strict,
 *   named after the console's port: `vigil_console_4495`) and redirects to `/#session=<key>`.
 *   The web app moves that session key into its `sessionStorage` and sends it as the
 *   `X-Vigil-Session` header on every `/api/` request. A session needs both: cookies are not
 *   isolated by port (RFC 6265 §8.5), so any page on another 127.0.0.1 port receives the cookie,
 *   but only pages of the console's own origin can read its `sessionStorage`. GET requests a
 *   page cannot add a header to (event streams, download links) carry the key as the
 *   `session` query parameter instead. The tray app asks for a session directly
 *   (`POST /api/sessions` → `{ "cookieName", "cookieValue", "sessionKey", "expiresAt" }`),
 *   sets the cookie in its window's session and opens the window at `/#session=<key>`.
 * - Every request must carry a loopback Host (`127.0.0.1:<port>` or `localhost:<port>`):
 *   anything else is refused (DNS rebinding). State-changing requests authenticated by cookie
 *   must carry the console's own Origin (CSRF).
 */

import type { ActivityRecord } from './activity-record.js';

/** The session cookie of the console listening on `port` (one name per port: RFC 6265 §8.5). */
export function consoleSessionCookie(port: number): string {
  return `vigil_console_${port}`;
}
/** The header carrying the session key, which must go with the cookie. */
export const CONSOLE_SESSION_HEADER = 'x-vigil-session';
/** The same key as a query parameter, for GET requests a page cannot add a header to. */
export const CONSOLE_SESSION_PARAM = 'session';
/** Where the login page and the tray app hand the key to the web app: `/#session=<key>`. */
export const CONSOLE_SESSION_FRAGMENT = 'session';

export const ConsolePaths = {
  status: '/api/status',
  /** GET: fleet status; PUT `{database, password?}`: join; DELETE: leave (docs/fleet.md). */
  fleet: '/api/fleet',
  /** GET ?challenge=… (no credential): `{ proof }`, the console's proof that it holds the token. */
  identityProof: '/api/identity-proof',
  /** GET: DiagnosticsResponse. */
  diagnostics: '/api/diagnostics',
  /** POST (204): restarts the event-loop delay figures, e.g. before a load test. */
  diagnosticsReset: '/api/diagnostics/reset',
  loginLinks: '/api/login-links',
  sessions: '/api/sessions',
  login: '/login',
  monitoring: '/api/monitoring',
  hosts: '/api/hosts',
  outputs: '/api/outputs',
  settings: '/api/settings',
} as const;

/** Milliseconds. */
export interface DelayFigures {
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/**
 * Health figures of the running agent (docs/security.md, "The agent's health figures"): how
 * late its event loop ran (since start or the last reset; 10 ms sampling), the same without the
 * time it waited for a CPU (`blocked`, Linux; null elsewhere), and how many of its log lines
 * could not be written.
 */
export interface DiagnosticsResponse {
  eventLoopDelay: DelayFigures & { since: string; blocked: DelayFigures | null };
  logLinesLost: number;
}

export interface LoginLinkResponse {
  url: string;
  expiresAt: string;
}

export interface SessionResponse {
  cookieName: string;
  cookieValue: string;
  /** Sent as `X-Vigil-Session` with the cookie; the web app gets it in the URL fragment. */
  sessionKey: string;
  expiresAt: string;
}

/**
 * Client applications of the agent API. Bodies and answers are JSON; permissions use
 * the JSON names of shared/permissions.ts. Errors: `{"error","error_description","field"?}` with
 * 400 (bad input, names the field), 404 (no such client), 409 (name already used).
 *
 * - `GET    /api/clients`                      → ClientApplicationView[]
 * - `POST   /api/clients`  NewClientRequest     → 201 ClientCredentials & { name }
 * - `PUT    /api/clients/{id}/permissions`  SetPermissionsRequest → ClientApplicationView
 * - `POST   /api/clients/{id}/secret`          → ClientCredentials (a new secret, valid 72 h)
 * - `DELETE /api/clients/{id}`                 → RevokedClientResponse (its tokens stop at once)
 */
export const ConsoleClientPaths = {
  clients: '/api/clients',
  client: (id: string) => `/api/clients/${encodeURIComponent(id)}`,
  permissions: (id: string) => `/api/clients/${encodeURIComponent(id)}/permissions`,
  secret: (id: string) => `/api/clients/${encodeURIComponent(id)}/secret`,
} as const;

export interface NewClientRequest {
  name: string;
  permissions: string[];
}

export interface SetPermissionsRequest {
  permissions: string[];
}

export interface RevokedClientResponse {
  clientId: string;
  name: string;
  revoked: true;
}

/**
 * Programs using the console token may say who acts for the self-audit record (docs/activity-pipeline.md):
 * `cli` for the `vigil` command; anything else, or nothing, is recorded as `console`.
 */
export const CONSOLE_ACTOR_HEADER = 'x-vigil-actor';

/** Error body of the console API (same shape as the agent API's). */
export interface ConsoleErrorBody {
  error: string;
  error_description: string;
  field?: string;
}

/* ------------------------------------------------------------------------------------------ */
/* Status, monitoring, hosts and outputs                                                      */
/* ------------------------------------------------------------------------------------------ */

export type StatusType = 'OK' | 'Warning' | 'Error';

export interface RuntimeStatusView {
  type: StatusType;
  summary: string;
  details: string;
  updatedAt: string;
}

/** Something that stops or limits recording (docs/tray.md `issue()`). */
export interface MonitoringIssueView {
  /** `audit_store`, `disk_quota`, `disk_space`, `output` or `monitoring`. */
  code: string;
  message: string;
}

/** `GET /api/monitoring`, and the answer to `PUT /api/monitoring {"paused": bool}`. */
export interface MonitoringView {
  paused: boolean;
  /** Activity records whose time is today (local calendar day, as the `Today` timeframe). */
  todayCount: number;
  /** Most serious first; empty when recording works. */
  issues: MonitoringIssueView[];
}

/** `GET /api/hosts`: what the agent monitors, from the settings and the runtime status. */
export interface HostView {
  id: string;
  name: string;
  type: string;
  enabled: boolean;
  includePaths: string[];
  excludePaths: string[];
  status: RuntimeStatusView | null;
  /** Records committed for this host since the agent started. */
  receivedCount: number;
  lastEventTime: string | null;
  droppedCount: number;
  /** `process`: records name the acting account and program; `none`: they cannot (docs/attribution.md). */
  attribution: 'process' | 'none';
  attributionReason?: string;
}

/**
 * Changes to what is monitored, made in the console (self-audited with actor `console`, or
 * `cli` for a program saying so); the monitoring follows at once:
 * - `PUT    /api/hosts/{id}`  SetEnabledRequest           → HostView
 * - `POST   /api/hosts/{id}/folders`  AddFolderRequest    → 201 HostView (200 if already watched)
 * - `DELETE /api/hosts/{id}/folders?path=/abs/folder`     → HostView
 * - `PUT    /api/outputs/{id}`  SetEnabledRequest         → OutputView
 * Errors name the field: 400 `enabled` (not a boolean), `path` (missing, relative, not an
 * existing folder); 404 `id` (no such host or output) or `path` (a folder the host does not watch).
 */
export const ConsoleMonitoringPaths = {
  host: (id: string) => `/api/hosts/${encodeURIComponent(id)}`,
  folders: (id: string) => `/api/hosts/${encodeURIComponent(id)}/folders`,
  output: (id: string) => `/api/outputs/${encodeURIComponent(id)}`,
} as const;

export interface SetEnabledRequest {
  enabled: boolean;
}

export interface AddFolderRequest {
  /** An absolute path of an existing folder; it is watched with everything in it. */
  path: string;
}

/** `GET /api/outputs`: where each host's and each directory domain's activity goes. */
export interface OutputView {
  id: string;
  /** The host whose file activity it writes, or null for a domain's output. */
  hostId: string | null;
  /** The directory domain whose records it writes, or null for a host's output. */
  domainId: string | null;
  /** The host's or the domain's name. */
  ownerName: string;
  type: 'LogFile' | 'Syslog';
  enabled: boolean;
  /** One line: "TSV log files, kept 10 days" or "syslog to siem:514 over TCP". */
  description: string;
  status: RuntimeStatusView | null;
  reportedCount: number;
  lastEventTime: string | null;
  droppedCount: number;
  filesCount: number;
  filesSize: number;
}

/** `GET /api/status`. The first six fields are older than the console and keep their names. */
export interface ConsoleStatus {
  version: string | null;
  uptimeSeconds: number;
  certificateSha256: string;
  apiUrl: string;
  auditUrl: string;
  consoleUrl: string;
  startedAt: string;
  /** False when a monitoring issue exists (recording stopped or failing). */
  healthy: boolean;
  monitoring: MonitoringView;
  counts: {
    clients: number;
    auditUsers: number;
    hosts: number;
    enabledHosts: number;
    outputs: number;
    todayRecords: number;
  };
  hosts: HostView[];
  /** SHA-256 (hex) of the raw Ed25519 key that signs the record chain (docs/integrity.md). */
  signingKeySha256?: string;
}

/* ------------------------------------------------------------------------------------------ */
/* Audit users: users of the audit API, HTTP Basic (docs/audit-api.md)                         */
/* ------------------------------------------------------------------------------------------ */

/**
 * - `GET    /api/audit-users`                        → AuditUserSummary[]
 * - `POST   /api/audit-users`  NewAuditUserRequest    → 201 AuditUserSummary
 * - `PUT    /api/audit-users/{name}/password`  {password} → AuditUserSummary
 * - `PUT    /api/audit-users/{name}/roles`     {roles}    → AuditUserSummary
 * - `DELETE /api/audit-users/{name}`                 → RemovedAuditUserResponse
 * Errors name the field (`name`, `roles`, `password`): 400, 404 (no such user), 409 (name taken).
 */
export const ConsoleAuditUserPaths = {
  users: '/api/audit-users',
  user: (name: string) => `/api/audit-users/${encodeURIComponent(name)}`,
  password: (name: string) => `/api/audit-users/${encodeURIComponent(name)}/password`,
  roles: (name: string) => `/api/audit-users/${encodeURIComponent(name)}/roles`,
} as const;

export const AUDIT_USER_ROLES = ['reader', 'contributor'] as const;
export type AuditUserRole = (typeof AUDIT_USER_ROLES)[number];

export const AUDIT_ROLE_INFO: Readonly<Record<AuditUserRole, string>> = {
  reader: 'Search and enumerate activity records (enum, search).',
  contributor: 'Write activity records (POST activity_records/).',
};

export interface AuditUserSummary {
  name: string;
  roles: AuditUserRole[];
  createdAt: string;
  passwordChangedAt: string;
}

export interface NewAuditUserRequest {
  name: string;
  roles: string[];
  password: string;
}

export interface RemovedAuditUserResponse {
  name: string;
  removed: true;
}

/* ------------------------------------------------------------------------------------------ */
/* Settings: ports, allow-list, audit vendor                                                   */
/* ------------------------------------------------------------------------------------------ */

/**
 * `GET /api/settings` → ConsoleSettingsView; `PATCH /api/settings` with a JSON Merge Patch
 * (RFC 7396) of the editable part → ConsoleSettingsView. Validation errors name the field as
 * the settings file does (`agentApi.port`, `allowList[2]`). The allow-list and the vendor apply
 * at once; a port applies at the next start (`restartNeeded` lists the fields waiting for it).
 */
export interface EditableSettings {
  agentApi: { port: number };
  auditApi: { port: number; vendor: string };
  console: { port: number };
  allowList: string[];
}

export type SettingsPatch = {
  agentApi?: { port?: number };
  auditApi?: { port?: number; vendor?: string };
  console?: { port?: number };
  allowList?: string[];
};

export interface ConsoleSettingsView {
  settings: EditableSettings;
  /** The ports the listeners use now (a port of 0 in the settings picks one at each start). */
  running: { agentApiPort: number; auditApiPort: number; consolePort: number };
  /** Saved fields that take effect only at the next start, e.g. `["agentApi.port"]`. */
  restartNeeded: string[];
}

/* ------------------------------------------------------------------------------------------ */
/* Log files                                                                                  */
/* ------------------------------------------------------------------------------------------ */

/**
 * - `GET /api/log-files[?outputId=ID]`                → LogFileView[] (newest first)
 * - `GET /api/log-files/{id}/lines?from=N&count=M[&filter=TEXT]` → LogLinesResponse
 * - `GET /api/log-files/{id}/follow?after=N[&filter=TEXT]` → Server-Sent Events: `lines`
 *   (LogLinesResponse of the new lines), `reset` (the file was cut back or replaced: read again)
 * - `GET /api/log-files/{id}/content`                 → the file (attachment; HTTP Range)
 *   (`{id}` may also be a file's `sidecarId`: its sidecar, docs/integrity.md)
 * Line numbers count from 0; with a filter, `from`/`after` and `totalLines` count matching lines
 * and each line keeps its number in the file.
 */
export const ConsoleLogFilePaths = {
  files: '/api/log-files',
  lines: (id: string) => `/api/log-files/${encodeURIComponent(id)}/lines`,
  follow: (id: string) => `/api/log-files/${encodeURIComponent(id)}/follow`,
  content: (id: string) => `/api/log-files/${encodeURIComponent(id)}/content`,
} as const;

/** Most lines one `lines` request returns. */
export const MAX_LOG_LINES_PER_REQUEST = 1000;
/** Longer lines are cut to this many characters (`truncated` set). */
export const MAX_LOG_LINE_CHARS = 10_000;

export interface LogFileView {
  id: string;
  size: number;
  type: 'Tsv' | 'Json';
  isZip: boolean;
  updatedAt: string;
  activityFrom: string | null;
  activityTo: string | null;
  outputId: string | null;
  /** Today's file of its output: the one that grows (follow mode). */
  current: boolean;
  /**
   * The id its sidecar downloads by (`content` of this id; docs/integrity.md), or null: a zipped
   * file holds its sidecar.
   */
  sidecarId: string | null;
}

export interface LogLine {
  /** Line number in the file, from 0. */
  n: number;
  text: string;
  truncated?: boolean;
}

export interface LogLinesResponse {
  fileId: string;
  /** Lines in the file, or matching lines when `filter` is set. */
  totalLines: number;
  from: number;
  lines: LogLine[];
  filter: string | null;
}

/* ------------------------------------------------------------------------------------------ */
/* Activity: search the audit store, live feed                                                 */
/* ------------------------------------------------------------------------------------------ */

/**
 * - `POST /api/activity/search` ActivitySearchRequest → ActivitySearchResponse (newest first)
 * - `GET  /api/activity/feed` → Server-Sent Events: `records` (ActivityRecord[] as committed),
 *   `dropped` ({"count"}: records this reader missed because it fell behind)
 * `filterList` is the audit API's JSON FilterList (shared/audit-filter-json.ts), so the console
 * searches with exactly the audit API's filters and operators.
 */
export const ConsoleActivityPaths = {
  search: '/api/activity/search',
  feed: '/api/activity/feed',
} as const;

export const MAX_ACTIVITY_PAGE = 500;

export interface ActivitySearchRequest {
  filterList?: Record<string, unknown>;
  /** The `next` of the previous page; absent for the first. */
  page?: ActivityPageCursor;
  count?: number;
}

export interface ActivityPageCursor {
  /** Records older than this position. */
  before: number;
  /** When the search was first run (ms): timeframes keep meaning the same days. */
  reference: number;
}

export interface ActivitySearchResponse {
  records: ActivityRecord[];
  next: ActivityPageCursor | null;
}

/* ------------------------------------------------------------------------------------------ */
/* Alerts (docs/alerts.md)                                                                    */
/* ------------------------------------------------------------------------------------------ */

/**
 * Alert rules and the alerts they raised. Rule bodies follow shared/alert-rule.ts; errors name
 * the field (400), 404 names an unknown rule or alert, 409 a rule name already used. Every rule
 * change and every acknowledgement is self-audited.
 *
 * - `GET    /api/alerts`                          → AlertView[] (unacknowledged, newest first)
 * - `POST   /api/alerts/{id}/acknowledge`         → AcknowledgedResponse
 * - `POST   /api/alerts/acknowledge`              → AcknowledgedResponse (all of them)
 * - `GET    /api/alert-rules`                     → AlertRule[]
 * - `POST   /api/alert-rules`  AlertRuleInput     → 201 AlertRule
 * - `PUT    /api/alert-rules/{name}` AlertRuleInput → AlertRule (may rename it)
 * - `DELETE /api/alert-rules/{name}`              → RemovedAlertRuleResponse
 */
export const ConsoleAlertPaths = {
  alerts: '/api/alerts',
  acknowledge: (id: string) => `/api/alerts/${encodeURIComponent(id)}/acknowledge`,
  acknowledgeAll: '/api/alerts/acknowledge',
  rules: '/api/alert-rules',
  rule: (name: string) => `/api/alert-rules/${encodeURIComponent(name)}`,
} as const;

/** An alert that fired and is not acknowledged yet. */
export interface AlertView {
  id: string;
  /** The rule's name (also the record's `What`). */
  rule: string;
  per: 'actor' | 'host';
  /** The actor (per actor) or the host (per host) the rule counted. */
  key: string;
  /** The record's `Who`: the actor; for a host rule, the one actor or `several accounts`. */
  who: string;
  /** The host the records came from. */
  where: string;
  actions: string[];
  /** Records counted when it fired (more than `threshold` within `windowSeconds`). */
  count: number;
  threshold: number;
  windowSeconds: number;
  /** ISO 8601, the time of the record that crossed the threshold. */
  firedAt: string;
  /** The first paths (or `What`) of the burst, at most ten. */
  firstPaths: string[];
}

export interface AcknowledgedResponse {
  acknowledged: number;
}

export interface RemovedAlertRuleResponse {
  name: string;
  removed: true;
}
/* Directory domains (docs/directory.md)                                                       */
/* ------------------------------------------------------------------------------------------ */

/**
 * - `GET    /api/domains`               → DomainSummary[]
 * - `POST   /api/domains`  DomainRequest → 201 DomainSummary (the password is required)
 * - `PUT    /api/domains/{id}` DomainRequest → DomainSummary (no password: the stored one stays)
 * - `DELETE /api/domains/{id}`          → RemovedDomainResponse (its outputs and policies go too)
 * - `POST   /api/domains/{id}/test`     → DomainTestResult (connects and binds now)
 * The password travels only in request bodies and is never returned.
 */
export const ConsoleDomainPaths = {
  domains: '/api/domains',
  domain: (id: string) => `/api/domains/${encodeURIComponent(id)}`,
  test: (id: string) => `/api/domains/${encodeURIComponent(id)}/test`,
} as const;

export interface DomainStatusView {
  type: 'OK' | 'Warning' | 'Error';
  summary: string;
  details: string;
  updatedAt: string;
}

export interface DomainPolicySummary {
  id: string;
  name: string;
  isEnabled: boolean;
  /** Whether the policy holds a `<Changes>` part (only those select what is recorded). */
  isChanges: boolean;
}

export interface DomainSummary {
  id: string;
  name: string;
  ldapServer: string;
  userName: string;
  baseDn: string;
  pollingIntervalSeconds: number;
  tls: 'starttls' | 'none';
  caFile: string;
  isEnabled: boolean;
  comment: string;
  hasPassword: boolean;
  status: DomainStatusView | null;
  policies: DomainPolicySummary[];
}

export interface DomainRequest {
  name: string;
  ldapServer: string;
  userName: string;
  password?: string;
  baseDn?: string;
  pollingIntervalSeconds?: number;
  tls?: 'starttls' | 'none';
  caFile?: string;
  isEnabled?: boolean;
  comment?: string;
}

export interface RemovedDomainResponse {
  id: string;
  removed: true;
}

export interface DomainTestResult {
  ok: boolean;
  summary: string;
  details: string;
  /** When connected: `LDAP Directory` or `Active Directory`, the base DN read, whether an accesslog is readable. */
  dataSource?: string;
  baseDn?: string;
  accesslog?: boolean;
}

/**
 * Tamper evidence (docs/integrity.md, docs/console.md):
 * - `GET /api/verification`  → VerificationState: the last verification, and whether one runs
 * - `POST /api/verification` → 202 VerificationState: starts one (the same checks as
 *   `vigil verify --data-dir DIR --logs DIR/logs`), unless one runs; poll the GET for the result
 */
export const ConsoleVerificationPaths = {
  verification: '/api/verification',
} as const;

export interface VerificationProblem {
  file?: string;
  rid?: string;
  line?: number;
  kind: 'changed' | 'removed' | 'inserted' | 'reordered' | 'truncated' | 'signature';
  detail: string;
}

export interface LastVerificationView {
  /** When it finished (ISO 8601). */
  time: string;
  durationMs: number;
  ok: boolean;
  problemCount: number;
  /** The first problems (at most 100). */
  problems: VerificationProblem[];
  records: number;
  logFiles: number;
  logLines: number;
}

export interface VerificationState {
  last: LastVerificationView | null;
  running: boolean;
  /** The last run failed to complete (not a finding: the check itself could not run). */
  failure: string | null;
  /** The public key that checks the signatures (PEM), and its fingerprint: keep a copy elsewhere. */
  publicKey: string;
  fingerprint: string;
}

/* ------------------------------------------------------------------------------------------ */
/* Activity at a glance (docs/console.md)                                                      */
/* ------------------------------------------------------------------------------------------ */

/**
 * - `GET /api/activity/stats?range=24h|7d` → ActivityStatsResponse: records over time stacked
 *   by Action (24h: 96 buckets of 15 minutes; 7d: 168 of an hour) and the top 10 actors,
 *   folders and processes of the same range. The range ends with the current hour. A wrong
 *   `range` is 400 naming the field.
 */
export const ConsoleActivityStatsPaths = {
  stats: '/api/activity/stats',
} as const;

export const ACTIVITY_STATS_RANGES = ['24h', '7d'] as const;
export type ActivityStatsRange = (typeof ACTIVITY_STATS_RANGES)[number];

export interface ActivityStatsBucket {
  /** Start of the bucket (ISO 8601, UTC); it lasts `bucketMinutes`. */
  start: string;
  /** Records per Action; actions without records are absent. */
  counts: Record<string, number>;
}

export interface ActivityTopEntry {
  value: string;
  count: number;
}

export interface ActivityStatsResponse {
  range: ActivityStatsRange;
  /** [from, to): whole hours, ISO 8601 UTC. */
  from: string;
  to: string;
  bucketMinutes: number;
  buckets: ActivityStatsBucket[];
  /** Who. */
  topActors: ActivityTopEntry[];
  /** The parent folder of What, for File and Folder records. */
  topFolders: ActivityTopEntry[];
  /** The `Process` detail's Message (docs/attribution.md). */
  topProcesses: ActivityTopEntry[];
}

/* ------------------------------------------------------------------------------------------ */
/* Fleet (docs/fleet.md)                                                                       */
/* ------------------------------------------------------------------------------------------ */

/** `GET /api/fleet`, and the answer of `PUT` (join); `vigil fleet status` prints the same. */
export interface FleetStatusView {
  /** The fleet database's URL without its password; null when this agent is no member. */
  database: string | null;
  /**
   * `unreachable`: no answer (network, server down); `refused`: the database answered and refuses
   * this agent until someone acts (not UTF-8, a newer Vigil's schema, password, privileges).
   */
  state: 'connected' | 'unreachable' | 'refused' | 'alone';
  /** Why the database is not in use, as the driver or the schema check put it; null otherwise. */
  problem: string | null;
  /** Records committed here and not yet in the fleet database. */
  backlog: number;
  members: Array<{ id: string; host: string | null; lastSeen: string | null; status: 'OK' | 'Warning' }>;
}

/** `PUT /api/fleet`: join (the password is kept owner-only and never answered back). */
export interface FleetJoinRequest {
  database: string;
  password: string | null;
}
