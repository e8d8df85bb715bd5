/**
 * Console API for log files (shared/console-api.ts `ConsoleLogFilePaths`): list them (of one
 * output or all), read a range of lines, follow new lines over Server-Sent Events, download.
 * Ids are file names that the log files service resolves inside the logs folder only.
 */
import type Koa from 'koa';
import { ConsoleLogFilePaths, MAX_LOG_LINES_PER_REQUEST, type LogFileView } from '../../shared/console-api.js';
import { ApiError } from '../http/api-error.js';
import { pathParam } from '../http/api-router.js';
import { sendFile } from '../http/send-file.js';
import type { LogFileViewer } from '../outputs/log-file-viewer.js';
import { LogFileMissingError } from '../outputs/log-file-viewer.js';
import type { LogFileInfo, LogFilesService, OpenLogFile } from '../outputs/log-files-service.js';
import { utcDay } from '../outputs/log-file-names.js';
import type { LiveFeed } from '../pipeline/live-feed.js';
import type { ConsoleRoutes } from './console-app.js';
import { openEventStream } from './sse.js';

export interface LogFilesRouterDeps {
  files: LogFilesService;
  viewer: LogFileViewer;
  /** Committed batches: the log lines of a batch are on disk when it is published. */
  feed: LiveFeed;
  /** Aborted when the agent stops: open follow streams end. */
  shutdown: AbortSignal;
  /** How often a followed file is checked when no batch arrives (default 1 s). */
  followPollMs?: number;
}

function integerParam(ctx: Koa.Context, name: string, fallback: number): number {
  const raw = ctx.query[name];
  if (raw === undefined) return fallback;
  if (typeof raw !== 'string' || !/^\d{1,15}$/.test(raw)) {
    throw new ApiError(400, 'invalid_request', `${name} must be a whole number`, { field: name });
  }
  return Number(raw);
}

function filterParam(ctx: Koa.Context): string | null {
  const raw = ctx.query['filter'];
  if (raw === undefined || raw === '') return null;
  if (typeof raw !== 'string') throw new ApiError(400, 'invalid_request', 'give one filter', { field: 'filter' });
  return raw;
}

function view(info: LogFileInfo, sidecar: boolean): LogFileView {
  return {
    sidecarId: sidecar ? `${info.id}.sig` : null,
    id: info.id,
    size: info.size,
    type: info.type,
    isZip: info.isZip,
    updatedAt: info.updatedAt,
    activityFrom: info.activityFrom,
    activityTo: info.activityTo,
    outputId: info.outputId,
    current: !info.isZip && info.id.includes(`_Log_${utcDay(Date.now())}.`),
  };
}

function contentType(file: OpenLogFile): string {
  if (file.isZip) return 'application/zip';
  if (file.isSidecar) return 'application/x-ndjson';
  return file.type === 'Json' ? 'application/x-ndjson' : 'text/tab-separated-values';
}

export function buildLogFilesRouter(deps: LogFilesRouterDeps): ConsoleRoutes {
  const one = `${ConsoleLogFilePaths.files}/:fileId`;
  return (router) => {
    router.get(ConsoleLogFilePaths.files, async (ctx) => {
      const outputId = ctx.query['outputId'];
      if (outputId !== undefined && typeof outputId !== 'string') {
        throw new ApiError(400, 'invalid_request', 'give one outputId', { field: 'outputId' });
      }
      const files = await deps.files.list(outputId);
      ctx.body = await Promise.all(files.map(async (info) => view(info, await deps.files.hasSidecar(info.id))));
    });

    router.get(`${one}/lines`, async (ctx) => {
      const from = integerParam(ctx, 'from', 0);
      const count = integerParam(ctx, 'count', 200);
      ctx.body = await deps.viewer.lines(pathParam(ctx, 'fileId'), from, count, filterParam(ctx));
    });

    router.get(`${one}/follow`, async (ctx) => {
      const fileId = pathParam(ctx, 'fileId');
      const filter = filterParam(ctx);
      let after = integerParam(ctx, 'after', 0);
      // Fail before the stream opens, with a normal error body, when the file is not there.
      const first = await deps.viewer.lines(fileId, after, 0, filter);
      if (first.totalLines < after) after = first.totalLines;
      const stream = openEventStream(ctx, deps.shutdown);
      let wake: (() => void) | null = null;
      const unsubscribe = deps.feed.subscribe(() => wake?.());
      const interval = deps.followPollMs ?? 1000;
      void (async () => {
        try {
          while (!stream.signal.aborted) {
            const page = await deps.viewer.lines(fileId, after, MAX_LOG_LINES_PER_REQUEST, filter);
            if (page.totalLines < after) {
              after = 0;
              if (!(await stream.send('reset', { totalLines: page.totalLines }))) break;
              continue;
            }
            if (page.lines.length > 0) {
              if (!(await stream.send('lines', page))) break;
              after += page.lines.length;
              if (after < page.totalLines) continue; // more to send at once
            }
            await new Promise<void>((resolve) => {
              const timer = setTimeout(done, interval);
              function done(): void {
                clearTimeout(timer);
                wake = null;
                stream.signal.removeEventListener('abort', done);
                resolve();
              }
              wake = done;
              stream.signal.addEventListener('abort', done);
            });
          }
        } catch (error) {
          const message =
            error instanceof LogFileMissingError
              ? error.message
              : 'following the file stopped: ' + (error as Error).message;
          await stream.send('failure', { message });
        } finally {
          unsubscribe();
          stream.close();
        }
      })();
    });

    // Opened without following a symbolic link, and only if it is a regular file (F18 in
    // docs/security.md): a link in the logs folder named like a log file is "no such file".
    router.get(`${one}/content`, async (ctx) => {
      const fileId = pathParam(ctx, 'fileId');
      const file = await deps.files.open(fileId);
      if (!file) throw new LogFileMissingError(fileId);
      await sendFile(ctx, file, contentType(file));
    });
  };
}
