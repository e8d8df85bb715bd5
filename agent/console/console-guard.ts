/**
 * Who may use the console (shared/console-api.ts, security.md §6):
 * - every request must name the console by a loopback Host (`127.0.0.1:<port>` or
 *   `localhost:<port>`): a page on another name that resolves to 127.0.0.1 (DNS rebinding) is
 *   refused before anything else runs;
 * - `/api/*` needs the console token (`Authorization: Bearer vgc_…`, programs) or a session
 *   cookie (the browser);
 * - a state-changing request authenticated by cookie must come from the console's own origin
 *   (`Origin` equal to the console's, `Sec-Fetch-Site` absent or `same-origin`): CSRF.
 */
import type Koa from 'koa';
import { CONSOLE_ACTOR_HEADER, CONSOLE_SESSION_COOKIE } from '../../shared/console-api.js';
import { ApiError } from '../api/api-error.js';
import type { ConsoleSessions } from './console-sessions.js';
import type { ConsoleToken } from './console-token.js';

export const CONSOLE_REALM = 'vigil-console';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface ConsoleAuth {
  via: 'token' | 'cookie';
  /** For the self-audit record (DESIGN.md §6). */
  actor: 'console' | 'cli';
}

export function consoleAuth(ctx: Koa.Context): ConsoleAuth {
  const auth = (ctx.state as Record<string, unknown>)['consoleAuth'] as ConsoleAuth | undefined;
  if (!auth) throw new Error('consoleAuth() used on a route that is not behind the console guard');
  return auth;
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
}

/** Authenticates `/api/*` requests and applies the CSRF rule to cookie-authenticated changes. */
export function apiGuard(deps: ApiGuardDeps): Koa.Middleware {
  return async (ctx, next) => {
    if (!ctx.path.startsWith('/api/')) return next();
    const header = ctx.get('authorization');
    let auth: ConsoleAuth;
    if (header !== '') {
      const match = /^bearer +(\S+) *$/i.exec(header);
      if (!match || !deps.token.matches(match[1]!)) throw unauthorized('the console token is not valid');
      auth = { via: 'token', actor: ctx.get(CONSOLE_ACTOR_HEADER).toLowerCase() === 'cli' ? 'cli' : 'console' };
    } else {
      const cookie = ctx.cookies.get(CONSOLE_SESSION_COOKIE);
      if (!cookie || !deps.sessions.isSession(cookie)) {
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

/** For endpoints only programs holding the token may call (login links, sessions). */
export function requireConsoleToken(): Koa.Middleware {
  return async (ctx, next) => {
    if (consoleAuth(ctx).via !== 'token') {
      throw new ApiError(403, 'token_required', 'only a program holding the console token may do this');
    }
    await next();
  };
}
