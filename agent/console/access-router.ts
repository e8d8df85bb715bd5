/**
 * How programs and browsers get into the console (shared/console-api.ts): login links and
 * sessions for holders of the console token, and the one-time `/login?code=…` page that turns a
 * link into a session: the cookie, and the session key handed to the web app in the fragment of
 * the address it is sent to (a fragment never reaches a server or a Referer).
 */
import type Koa from 'koa';
import {
  CONSOLE_SESSION_FRAGMENT,
  ConsolePaths,
  consoleSessionCookie,
  type LoginLinkResponse,
  type SessionResponse,
} from '../../shared/console-api.js';
import type { ApiRouter } from '../http/api-router.js';
import type { ConsoleSessions } from './console-sessions.js';
import { requireConsoleToken } from './console-guard.js';

export interface AccessDeps {
  sessions: ConsoleSessions;
  port: () => number;
}

const origin = (port: number): string => `http://127.0.0.1:${port}`;

/** `POST /api/login-links` and `POST /api/sessions`, for programs holding the console token. */
export function registerAccessRoutes(router: ApiRouter, deps: AccessDeps): void {
  router.post(ConsolePaths.loginLinks, requireConsoleToken(), (ctx) => {
    const { code, expiresAt } = deps.sessions.newLoginCode();
    const body: LoginLinkResponse = {
      url: `${origin(deps.port())}${ConsolePaths.login}?code=${encodeURIComponent(code)}`,
      expiresAt: new Date(expiresAt).toISOString(),
    };
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 201;
    ctx.body = body;
  });

  router.post(ConsolePaths.sessions, requireConsoleToken(), (ctx) => {
    const { value, sessionKey, expiresAt } = deps.sessions.newSession();
    const body: SessionResponse = {
      cookieName: consoleSessionCookie(deps.port()),
      cookieValue: value,
      sessionKey,
      expiresAt: new Date(expiresAt).toISOString(),
    };
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 201;
    ctx.body = body;
  });
}

/** `GET /login?code=…`: the code is its own credential, so this page is outside the guard. */
export function loginPage(deps: AccessDeps): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.path !== ConsolePaths.login || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    // The code must not leak through a Referer or stay in a cache (docs/console.md).
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('Cache-Control', 'no-store');
    const code = ctx.query['code'];
    if (typeof code !== 'string' || !deps.sessions.redeemLoginCode(code)) {
      ctx.status = 403;
      ctx.type = 'text/plain';
      ctx.body =
        'This login link is not valid: it was used already or it expired. Run "vigil console" for a new one.\n';
      return;
    }
    // A browser that is signed in already keeps its cookie; its open tabs keep their keys.
    const current = ctx.cookies.get(consoleSessionCookie(deps.port()));
    const { value, sessionKey, expiresAt } = deps.sessions.newSession(current);
    ctx.cookies.set(consoleSessionCookie(deps.port()), value, {
      httpOnly: true,
      sameSite: 'strict',
      path: '/',
      expires: new Date(expiresAt),
      overwrite: true,
    });
    ctx.status = 303;
    ctx.redirect(`/#${CONSOLE_SESSION_FRAGMENT}=${sessionKey}`);
  };
}
