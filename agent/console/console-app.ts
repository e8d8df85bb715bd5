/**
 * The console application, served over plain HTTP on 127.0.0.1 only (docs/architecture.md). Order:
 * 1. error shaping, 2. hardening headers, 3. Host check (DNS rebinding), 4. the web app's files
 * (for what nothing below answers), 5. the login page, 6. the console API: one router whose
 * first middleware is the guard (console token, or session cookie and key, CSRF rule), with
 * the routes of login links and sessions, status and monitoring, client applications, audit
 * users, settings, log files and activity.
 */
import Koa from 'koa';
import { ApiRouter, type RouteInfo } from '../http/api-router.js';
import type { Logger } from '../log/logger.js';
import { CONSOLE_CSP, rendererDistFolder, staticFiles } from './static-files.js';
import { loginPage, registerAccessRoutes } from './access-router.js';
import { identityProof } from './identity-proof-router.js';
import { consoleErrorMiddleware } from './console-errors.js';
import { apiGuard, guardedApi, hostGuard, isApiPath } from './console-guard.js';
import type { ConsoleSessions } from './console-sessions.js';
import type { ConsoleToken } from './console-token.js';

/** Adds a group of console API routes (status, client applications, ...) to the console's router. */
export type ConsoleRoutes = (router: ApiRouter) => void;

export interface ConsoleAppDeps {
  log: Logger;
  token: ConsoleToken;
  sessions: ConsoleSessions;
  /** The bound port, known once the listener is up; the Host check, cookie and login links use it. */
  port: () => number;
  /** The console API's routes besides login links and sessions. */
  routers?: ConsoleRoutes[];
}

const routeTables = new WeakMap<Koa, readonly RouteInfo[]>();

/** Every route of a console app's API, as registered (the guard test requests each one). */
export function consoleRouteTable(app: Koa): readonly RouteInfo[] {
  return routeTables.get(app) ?? [];
}

export function buildConsoleApp(deps: ConsoleAppDeps): Koa {
  const app = new Koa({ proxy: false });
  app.silent = true;
  app.use(consoleErrorMiddleware(deps.log));
  // Hardening headers on every answer, refusals included (docs/console.md, docs/security.md, C07).
  app.use(async (ctx, next) => {
    ctx.set('Content-Security-Policy', CONSOLE_CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Referrer-Policy', 'no-referrer');
    if (isApiPath(ctx.path)) ctx.set('Cache-Control', 'no-store');
    await next();
  });
  app.use(hostGuard(deps.port));

  // The web app (renderer/dist) for every non-API path the routes below leave unanswered.
  app.use(staticFiles(rendererDistFolder()));

  const access = { sessions: deps.sessions, port: deps.port };
  app.use(loginPage(access));
  // Asks for no credential: the `vigil` command checks the console with it before sending one.
  app.use(identityProof(deps.token, deps.port));
  const api = new ApiRouter();
  registerAccessRoutes(api, access);
  for (const routes of deps.routers ?? []) routes(api);
  app.use(guardedApi(api, apiGuard({ token: deps.token, sessions: deps.sessions, port: deps.port })));
  routeTables.set(app, api.routes());
  return app;
}
