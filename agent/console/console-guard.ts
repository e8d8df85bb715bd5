/**
 * Who may use the console (shared/console-api.ts, docs/console.md):
 * - every request must name the console by a loopback Host (`127.0.0.1:<port>` or
 *   `localhost:<port>`): a page on another name that resolves to 127.0.0.1 (DNS rebinding) is
 *   refused before anything else runs;
 * - every path under `/api` needs the console token (`Authorization: Bearer vgc_…`,
 *   programs) or a session: its cookie and its key (the browser). "Under `/api`" is decided on
 *   the decoded, normalised, lower-cased path, so `/API/clients`, `/%61pi/clients` or
 *   `/x/../api/clients` are guarded too; once authenticated, only the canonical spelling
 *   (literal `/api/`, no percent-encoded letter or digit) reaches the case-sensitive router,
 *   anything else is 404;
 * - a state-changing request authenticated by cookie must come from the console's own origin
 *   (`Origin` equal to the console's, `Sec-Fetch-Site` absent or `same-origin`): CSRF.
 */
import path from 'node:path';
import type Koa from 'koa';
import {
  CONSOLE_ACTOR_HEADER,
  CONSOLE_SESSION_HEADER,
  CONSOLE_SESSION_PARAM,
  consoleSessionCookie,
} from '../../shared/console-api.js';
import { ApiError } from '../http/api-error.js';
import type { ApiRouter } from '../http/api-router.js';
import type { ConsoleSessions } from './console-sessions.js';
import type { ConsoleToken } from './console-token.js';

export const CONSOLE_REALM = 'vigil-console';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface ConsoleAuth {
  via: 'token' | 'cookie';
  /** For the self-audit record (docs/activity-pipeline.md). */
  actor: 'console' | 'cli';
}

/** Who the guard let in; a request it did not authenticate is refused (401), never served. */
export function consoleAuth(ctx: Koa.Context): ConsoleAuth {
  const auth = (ctx.state as Record<string, unknown>)['consoleAuth'] as ConsoleAuth | undefined;
  if (!auth) throw unauthorized('the request is not authenticated');
  return auth;
}

/** Percent-decodes byte by byte, again and again, so no encoding layer can hide `/api`. */
function decodedPath(raw: string): string {
  let decoded = raw;
  for (let round = 0; round < 4 && decoded.includes('%'); round++) {
    decoded = decoded.replace(/%([0-9a-f]{2})/gi, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
  return decoded;
}

/** Whether the path names the console API in any spelling (the guard runs for all of them). */
export function isApiPath(raw: string): boolean {
  const normal = path.posix.normalize(decodedPath(raw).replace(/\\/g, '/')).toLowerCase();
  return normal === '/api' || normal.startsWith('/api/');
}

/**
 * The one spelling clients use (shared/console-api.ts builds paths with encodeURIComponent,
 * which never encodes a letter, a digit or `-._~`): literal `/api/` and no such character
 * percent-encoded (RFC 3986 §6.2.2.2). find-my-way would decode `/api/%63lients` into a match.
 */
function isCanonicalApiPath(raw: string): boolean {
  return raw.startsWith('/api/') && !/%(?:[46][1-9a-f]|[57][0-9a]|3[0-9]|2d|2e|5f|7e)/i.test(raw);
}

/** The loopback names the console answers to, with its port. */
export function allowedHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

export function hostGuard(port: () => number): Koa.Middleware {
  return async (ctx, next) => {
    const host = (ctx.get('host') || '').toLowerCase();
    if (!allowedHosts(port()).includes(host)) {
      throw new ApiError(403, 'forbidden_host', 'the console answers only to 127.0.0.1 or localhost with its port');
    }
    await next();
  };
}

function unauthorized(description: string): ApiError {
  return new ApiError(401, 'unauthorized', description, {
    headers: { 'WWW-Authenticate': `Bearer realm="${CONSOLE_REALM}"` },
  });
}

export interface ApiGuardDeps {
  token: ConsoleToken;
  sessions: ConsoleSessions;
  /** The console's port: the session cookie carries it in its name. */
  port: () => number;
}

/** The session key: the header, or on a GET a page cannot add headers to, the query parameter. */
function sessionKeyOf(ctx: Koa.Context): string {
  const header = ctx.get(CONSOLE_SESSION_HEADER);
  if (header !== '' || !SAFE_METHODS.has(ctx.method)) return header;
  const param = ctx.query[CONSOLE_SESSION_PARAM];
  return typeof param === 'string' ? param : '';
}

/** Authenticates a console API request and applies the CSRF rule to session-authenticated changes. */
export function apiGuard(deps: ApiGuardDeps): Koa.Middleware {
  return async (ctx, next) => {
    const header = ctx.get('authorization');
    let auth: ConsoleAuth;
    if (header !== '') {
      const match = /^bearer +(\S+) *$/i.exec(header);
      if (!match || !deps.token.matches(match[1]!)) throw unauthorized('the console token is not valid');
      auth = { via: 'token', actor: ctx.get(CONSOLE_ACTOR_HEADER).toLowerCase() === 'cli' ? 'cli' : 'console' };
    } else {
      const cookie = ctx.cookies.get(consoleSessionCookie(deps.port()));
      if (!cookie || !deps.sessions.isSession(cookie, sessionKeyOf(ctx))) {
        throw unauthorized('sign in with a login link (vigil console) or send the console token');
      }
      if (!SAFE_METHODS.has(ctx.method)) {
        const fetchSite = ctx.get('sec-fetch-site');
        if (ctx.get('origin') !== `http://${ctx.host}` || (fetchSite !== '' && fetchSite !== 'same-origin')) {
          throw new ApiError(403, 'forbidden_origin', 'changes are accepted only from the console itself');
        }
      }
      auth = { via: 'cookie', actor: 'console' };
    }
    ctx.state['consoleAuth'] = auth;
    await next();
  };
}

/**
 * The console API: every request whose path is under `/api` in any spelling goes through the
 * guard first; an authenticated request then reaches the router only by the canonical spelling.
 * Nothing else on the console answers such a path (the web app's files step aside for them).
 */
export function guardedApi(router: ApiRouter, guard: Koa.Middleware): Koa.Middleware {
  const routes = router.middleware();
  return (ctx, next) => {
    if (!isApiPath(ctx.path)) return next();
    return guard(ctx, async () => {
      if (!isCanonicalApiPath(ctx.path)) throw new ApiError(404, 'not_found', 'no such console endpoint');
      await routes(ctx, next);
    });
  };
}

/** For endpoints only programs holding the token may call (login links, sessions). */
export function requireConsoleToken(): Koa.Middleware {
  return async (ctx, next) => {
    if (consoleAuth(ctx).via !== 'token') {
      throw new ApiError(403, 'token_required', 'only a program holding the console token may do this');
    }
    await next();
  };
}
