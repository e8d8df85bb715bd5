/**
 * The agent API application (port 4494). The middleware order is fixed here and only here:
 * 1. error shaping (JSON body of api-error.ts) and response hardening headers,
 * 2. public routes (the token endpoint), or else bearer authentication of everything,
 * 3. resource routes (each declares its permission where it is registered; 405 with `Allow`).
 * Unknown paths answer 401 before 404, so an anonymous caller learns nothing about routes.
 */
import Koa from 'koa';
import { apiErrorMiddleware } from './error-middleware.js';
import type { AgentApiRouter } from './openapi/route-doc.js';
import type { Logger } from '../log/logger.js';

export interface ApiAppDeps {
  log: Logger;
  /** Routes reachable without an access token (the token endpoint). */
  publicRoutes?: AgentApiRouter;
  /** Authenticates every request that is not for a public route (bearer-auth.ts). */
  authenticate?: Koa.Middleware;
  /** Every authenticated route of the API, on one router (the resource routes register here). */
  routes?: AgentApiRouter;
}

export function buildApiApp(deps: ApiAppDeps): Koa {
  const app = new Koa({ proxy: false });
  app.silent = true; // errors are logged once, by the error middleware
  app.use(apiErrorMiddleware(deps.log));
  const publicRoutes = deps.publicRoutes;
  const runPublic = publicRoutes?.middleware();
  const authenticate = deps.authenticate;
  // One middleware for both: every layer of the chain costs on every request.
  app.use((ctx, next) => {
    if (runPublic && publicRoutes?.knows(ctx.path)) return runPublic(ctx, next);
    return authenticate ? authenticate(ctx, next) : next();
  });
  if (deps.routes) app.use(deps.routes.middleware());
  return app;
}
