/**
 * The agent API application (port 4494). The middleware order is fixed here and only here:
 * 1. error shaping (JSON body of api-error.ts), 2. response hardening headers,
 * 3. routes (each declares its permission where it is registered), 4. 405 with `Allow`.
 */
import Koa from 'koa';
import Router from '@koa/router';
import { apiErrorMiddleware } from './error-middleware.js';
import type { Logger } from '../log/logger.js';

export interface ApiAppDeps {
  log: Logger;
  /** Routers mounted in order; each owns its paths under `/api/v1`. */
  routers?: Router[];
}

export function buildApiApp(deps: ApiAppDeps): Koa {
  const app = new Koa({ proxy: false });
  app.silent = true; // errors are logged once, by the error middleware
  app.use(apiErrorMiddleware(deps.log));
  app.use(async (ctx, next) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    await next();
  });
  for (const router of deps.routers ?? []) {
    app.use(router.routes());
    app.use(router.allowedMethods({ throw: true }));
  }
  return app;
}
