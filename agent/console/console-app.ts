/**
 * The console application, served over plain HTTP on 127.0.0.1 only (DESIGN.md §1).
 */
import Koa from 'koa';
import type { Logger } from '../log/logger.js';
import { rendererDistFolder, staticFiles } from './static-files.js';

export interface ConsoleAppDeps {
  log: Logger;
  status: () => Record<string, unknown>;
}

export function buildConsoleApp(deps: ConsoleAppDeps): Koa {
  const app = new Koa({ proxy: false });
  app.silent = true;
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      deps.log.error('console request failed', { path: ctx.path, error: (error as Error).message });
      ctx.status = 500;
      ctx.body = { error: 'server_error', error_description: 'the console request failed' };
    }
  });
  app.use(staticFiles(rendererDistFolder()));
  app.use(async (ctx, next) => {
    if (ctx.method === 'GET' && ctx.path === '/api/status') {
      ctx.body = deps.status();
      return;
    }
    await next();
  });
  return app;
}
