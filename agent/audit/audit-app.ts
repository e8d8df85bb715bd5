/**
 * The audit integration API application (port 9699). Its error bodies follow spec §7
 * (ErrorList in XML or JSON, and the empty-body cases), unlike the agent API's JSON errors.
 */
import Koa from 'koa';
import type { Logger } from '../log/logger.js';

export interface AuditAppDeps {
  log: Logger;
  /** Path segment after the host (DESIGN.md §5), read on every request so a change applies at once. */
  vendor: () => string;
}

export function buildAuditApp(deps: AuditAppDeps): Koa {
  const app = new Koa({ proxy: false });
  app.silent = true;
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      deps.log.error('audit request failed', { path: ctx.path, error: (error as Error).message });
      ctx.status = 500;
      ctx.body = '';
    }
    // spec §7: unknown resources answer 404 with an empty body.
    if (ctx.status === 404) ctx.body = '';
  });
  return app;
}
