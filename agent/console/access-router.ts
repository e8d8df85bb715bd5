/**
 * How programs and browsers get into the console (shared/console-api.ts): login links and
 * sessions for holders of the console token, and the one-time `/login?code=…` page that turns a
 * link into a session cookie.
 */
import Router from '@koa/router';
import {
  CONSOLE_SESSION_COOKIE,
  ConsolePaths,
  type LoginLinkResponse,
  type SessionResponse,
} from '../../shared/console-api.js';
import type { ConsoleSessions } from './console-sessions.js';
import { requireConsoleToken } from './console-guard.js';

export function buildAccessRouter(sessions: ConsoleSessions, origin: () => string): Router {
  const router = new Router();

  router.post(ConsolePaths.loginLinks, requireConsoleToken(), (ctx) => {
    const { code, expiresAt } = sessions.newLoginCode();
    const body: LoginLinkResponse = {
      url: `${origin()}${ConsolePaths.login}?code=${encodeURIComponent(code)}`,
      expiresAt: new Date(expiresAt).toISOString(),
    };
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 201;
    ctx.body = body;
  });

  router.post(ConsolePaths.sessions, requireConsoleToken(), (ctx) => {
    const { value, expiresAt } = sessions.newSession();
    const body: SessionResponse = {
      cookieName: CONSOLE_SESSION_COOKIE,
      cookieValue: value,
      expiresAt: new Date(expiresAt).toISOString(),
    };
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 201;
    ctx.body = body;
  });

  router.get(ConsolePaths.login, (ctx) => {
    // The code must not leak through a Referer or stay in a cache (security.md §6).
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('Cache-Control', 'no-store');
    const code = ctx.query['code'];
    if (typeof code !== 'string' || !sessions.redeemLoginCode(code)) {
      ctx.status = 403;
      ctx.type = 'text/plain';
      ctx.body =
        'This login link is not valid: it was used already or it expired. Run "vigil console" for a new one.\n';
      return;
    }
    const { value, expiresAt } = sessions.newSession();
    ctx.cookies.set(CONSOLE_SESSION_COOKIE, value, {
      httpOnly: true,
      sameSite: 'strict',
      path: '/',
      expires: new Date(expiresAt),
      overwrite: true,
    });
    ctx.status = 303;
    ctx.redirect('/');
  });

  return router;
}
