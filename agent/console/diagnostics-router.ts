/**
 * `GET /api/diagnostics` and `POST /api/diagnostics/reset` on the console (shared/console-api.ts):
 * the event-loop delay figures and lost log lines, for the operator and for load tests.
 */
import { ConsolePaths, type DiagnosticsResponse } from '../../shared/console-api.js';
import { droppedLogLines } from '../log/stderr-sink.js';
import type { EventLoopMonitor } from '../status/event-loop-monitor.js';
import type { ConsoleRoutes } from './console-app.js';
import { consoleAuth } from './console-guard.js';

export function buildDiagnosticsRouter(eventLoop: EventLoopMonitor): ConsoleRoutes {
  return (router) => {
    router.get(ConsolePaths.diagnostics, (ctx) => {
      const body: DiagnosticsResponse = { eventLoopDelay: eventLoop.snapshot(), logLinesLost: droppedLogLines() };
      ctx.body = body;
    });
    router.post(ConsolePaths.diagnosticsReset, (ctx) => {
      consoleAuth(ctx); // a change: only for a request the guard let in
      eventLoop.reset();
      ctx.status = 204;
    });
  };
}
