/**
 * `GET /api/diagnostics` and `POST /api/diagnostics/reset` on the console (shared/console-api.ts):
 * the event-loop delay figures and lost log lines, for the operator and for load tests.
 */
import Router from '@koa/router';
import { ConsolePaths, type DiagnosticsResponse } from '../../shared/console-api.js';
import { droppedLogLines } from '../log/stderr-sink.js';
import type { EventLoopMonitor } from '../status/event-loop-monitor.js';

export function buildDiagnosticsRouter(eventLoop: EventLoopMonitor): Router {
  const router = new Router();
  router.get(ConsolePaths.diagnostics, (ctx) => {
    const body: DiagnosticsResponse = { eventLoopDelay: eventLoop.snapshot(), logLinesLost: droppedLogLines() };
    ctx.body = body;
  });
  router.post(ConsolePaths.diagnosticsReset, (ctx) => {
    eventLoop.reset();
    ctx.status = 204;
  });
  return router;
}
