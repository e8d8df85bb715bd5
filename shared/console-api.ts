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
 *   single use, valid 60 s); opening it sets the session cookie (HttpOnly, SameSite=Strict)
 *   and redirects to `/`. The tray app instead asks for a session directly
 *   (`POST /api/sessions` → `{ "cookieName", "cookieValue", "expiresAt" }`) and sets the cookie
 *   in its window's session, so nothing secret shows in the address bar.
 * - Every request must carry a loopback Host (`127.0.0.1:<port>` or `localhost:<port>`):
 *   anything else is refused (DNS rebinding). State-changing requests authenticated by cookie
 *   must carry the console's own Origin (CSRF).
 */

export const CONSOLE_TOKEN_FILE = 'secrets/console-token';
export const CONSOLE_SESSION_COOKIE = 'vigil_console';
export const CONSOLE_TOKEN_PREFIX = 'vgc_';

export const ConsolePaths = {
  status: '/api/status',
  /** GET: DiagnosticsResponse. */
  diagnostics: '/api/diagnostics',
  /** POST (204): restarts the event-loop delay figures, e.g. before a load test. */
  diagnosticsReset: '/api/diagnostics/reset',
  loginLinks: '/api/login-links',
  sessions: '/api/sessions',
  login: '/login',
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
  expiresAt: string;
}

/**
 * Client applications of the agent API (issue 3). Bodies and answers are JSON; permissions use
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
 * Programs using the console token may say who acts for the self-audit record (DESIGN.md §6):
 * `cli` for the `vigil` command; anything else, or nothing, is recorded as `console`.
 */
export const CONSOLE_ACTOR_HEADER = 'x-vigil-actor';

/** Error body of the console API (same shape as the agent API's). */
export interface ConsoleErrorBody {
  error: string;
  error_description: string;
  field?: string;
}
