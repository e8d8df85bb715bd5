/**
 * The agent API application (port 4494). The middleware order is fixed here and only here:
 * 1. error shaping (JSON body of api-error.ts) and response hardening headers,
 * 2. public routes (the token endpoint) or else bearer authentication of everything,
 * 3. resource routes (each declares its permission where it is registered), 4. 405 with `Allow`.
 * Unknown paths answer 401 before 404, so an anonymous caller learns nothing about routes.
 */
import Koa from 'koa';
import Router from '@koa/router';
import { apiErrorMiddleware } from './error-middleware.js';
import type { Logger } from '../log/logger.js';

export interface ApiAppDeps {
  log: Logger;
  /**
   * Routers reachable without an access token (the token endpoint). Their paths must be
   * literal (no parameters): they run only for requests to exactly those paths, so every other
   * request skips their matching (measurable at thousands of requests a second).
   */
  publicRouters?: Router[];
  /** Authenticates every request that no public router answered (bearer-auth.ts). */
  authenticate?: Koa.Middleware;
  /** Routers mounted in order behind `authenticate`; each owns its paths under `/api/v1`. */
  routers?: Router[];
}

export function buildApiApp(deps: ApiAppDeps): Koa {
  const app = new Koa({ proxy: false });
  app.silent = true; // errors are logged once, by the error middleware
  app.use(apiErrorMiddleware(deps.log));
  const mount = (router: Router): void => {
    app.use(router.routes());
    app.use(router.allowedMethods());
  };
  // Public routes run only for their own (literal) paths; everything else is authenticated.
  // One middleware for both: each layer of the chain costs on every request.
  const publicRoutes = new Map<string, Koa.Middleware>();
  for (const router of deps.publicRouters ?? []) {
    const routes = router.routes() as unknown as Koa.Middleware;
    const allowed = router.allowedMethods() as unknown as Koa.Middleware;
    const run: Koa.Middleware = (ctx, next) => routes(ctx, () => allowed(ctx, next));
    for (const layer of router.stack) publicRoutes.set(String(layer.path), run);
  }
  const authenticate = deps.authenticate;
  app.use((ctx, next) => {
    const run = publicRoutes.get(ctx.path);
    if (run) return run(ctx, next);
    return authenticate ? authenticate(ctx, next) : next();
  });
  for (const router of deps.routers ?? []) mount(router);
  return app;
}
