/**
 * The console application, served over plain HTTP on 127.0.0.1 only (DESIGN.md §1). Order:
 * 1. error shaping, 2. hardening headers, 3. Host check (DNS rebinding), 4. login links,
 * sessions and the login page, 5. authentication of `/api/*` (console token or session cookie,
 * CSRF rule), 6. API routers (status and monitoring, client applications, audit users,
 * settings, log files, activity, and those later issues add).
 */
import Koa from 'koa';
import type Router from '@koa/router';
import type { Logger } from '../log/logger.js';
import { CONSOLE_CSP, rendererDistFolder, staticFiles } from './static-files.js';
import { buildAccessRouter } from './access-router.js';
import { buildIdentityProofRouter } from './identity-proof-router.js';
import { consoleErrorMiddleware } from './console-errors.js';
import { apiGuard, hostGuard } from './console-guard.js';
import type { ConsoleSessions } from './console-sessions.js';
import type { ConsoleToken } from './console-token.js';

export interface ConsoleAppDeps {
  log: Logger;
  token: ConsoleToken;
  sessions: ConsoleSessions;
  /** The bound port, known once the listener is up; the Host check and login links use it. */
  port: () => number;
  /** Authenticated API routers (status, client applications, ...). */
  routers?: Router[];
}

export function buildConsoleApp(deps: ConsoleAppDeps): Koa {
  const app = new Koa({ proxy: false });
  app.silent = true;
  app.use(consoleErrorMiddleware(deps.log));
  // Hardening headers on every answer, refusals included (security.md §6, §8.6 C07).
  app.use(async (ctx, next) => {
    ctx.set('Content-Security-Policy', CONSOLE_CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Referrer-Policy', 'no-referrer');
    if (ctx.path.startsWith('/api/')) ctx.set('Cache-Control', 'no-store');
    await next();
  });
  app.use(hostGuard(deps.port));

  // The web app (renderer/dist) for every non-API path the routes below leave unanswered.
  app.use(staticFiles(rendererDistFolder()));

  const mount = (router: Router): void => {
    app.use(router.routes());
    app.use(router.allowedMethods());
  };
  // Asks for no credential: the `vigil` command checks the console with it before sending one.
  mount(buildIdentityProofRouter(deps.token, deps.port));
  // Only `/api/*` is guarded: the login page's one-time code is its own credential.
  app.use(apiGuard({ token: deps.token, sessions: deps.sessions }));
  mount(buildAccessRouter(deps.sessions, () => `http://127.0.0.1:${deps.port()}`));
  for (const router of deps.routers ?? []) mount(router);
  return app;
}
