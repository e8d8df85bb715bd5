/**
 * Log files (DESIGN.md §7, agent-api.md §1.5 #37–38): `GET /api/v1/logs/{outputId}` lists the
 * files of a LogFile output; `GET /api/v1/logs/get/{fileId}` downloads one. Read and Access
 * activity data list; only Access activity data downloads (spec §5, DESIGN.md §4). The download
 * streams the file from an open descriptor (never buffered whole), supports one byte range
 * (206, 416; several ranges get the whole file), and answers an id that is not a log file name
 * of this agent with 404 before any file outside the logs folder could be touched.
 */
import type Koa from 'koa';
import { requirePermission } from '../auth/require-permission.js';
import { decideRange, ifRangeMatches } from '../http/byte-range.js';
import type { LogFileInfo, OpenLogFile } from '../outputs/log-files-service.js';
import { ApiError, invalidInput } from './api-error.js';
import { pathParam, type ApiRouter } from './api-router.js';
import { booleanQuery } from './request-input.js';
import { resolve, visible } from './resource-access.js';
import { linksOf, type ResourceRouteDeps } from './resource-deps.js';
import type { LogFileView } from './schemas/log-file-schemas.js';
import type { ApiLinks } from './views/api-links.js';

const LIST_PARAMETERS = ['includeLocal', 'includeArchived'];

function fileView(file: LogFileInfo, links: ApiLinks): LogFileView {
  const contentUrl = links.logFile(file.id);
  return { ...file, url: contentUrl, contentUrl };
}

function contentType(file: OpenLogFile): string {
  if (file.isZip) return 'application/zip';
  return file.type === 'Tsv' ? 'text/tab-separated-values; charset=utf-8' : 'application/x-ndjson; charset=utf-8';
}

/** A strong validator from the file's size and modification time (RFC 9110 §8.8.3). */
function etagOf(file: OpenLogFile): string {
  return `"${file.size.toString(16)}-${Math.floor(file.mtime.getTime()).toString(16)}"`;
}

async function sendFile(ctx: Koa.Context, file: OpenLogFile): Promise<void> {
  const etag = etagOf(file);
  const lastModified = file.mtime.toUTCString();
  ctx.set('Content-Disposition', `attachment; filename="${file.name}"`);
  ctx.set('Accept-Ranges', 'bytes');
  ctx.set('ETag', etag);
  ctx.set('Last-Modified', lastModified);
  ctx.set('Cache-Control', 'no-store');
  ctx.type = contentType(file);
  const range = ifRangeMatches(ctx.get('if-range') || undefined, etag, lastModified)
    ? decideRange(ctx.get('range') || undefined, file.size)
    : ({ kind: 'whole' } as const);
  if (range.kind === 'unsatisfiable') {
    await file.handle.close();
    throw new ApiError(416, 'range_not_satisfiable', `the file has ${file.size} bytes; no requested range is in it`, {
      headers: { 'Content-Range': `bytes */${file.size}` },
    });
  }
  const start = range.kind === 'partial' ? range.start : 0;
  const end = range.kind === 'partial' ? range.end : file.size - 1;
  if (range.kind === 'partial') {
    ctx.status = 206;
    ctx.set('Content-Range', `bytes ${start}-${end}/${file.size}`);
  }
  if (end < start) {
    await file.handle.close(); // an empty file
    ctx.body = '';
    return;
  }
  // Koa destroys the stream when the response ends (HEAD included) or the client goes away;
  // the stream then closes the descriptor.
  ctx.body = file.handle.createReadStream({ start, end, autoClose: true });
  ctx.length = end - start + 1;
}

export function registerLogFileRoutes(router: ApiRouter, deps: ResourceRouteDeps): void {
  router.get('/api/v1/logs/:outputId', requirePermission('logFile', 'read'), async (ctx) => {
    for (const name of Object.keys(ctx.query)) {
      if (!LIST_PARAMETERS.includes(name))
        throw invalidInput(name, `${name}: unknown parameter (use ${LIST_PARAMETERS.join(', ')})`);
    }
    const includeLocal = booleanQuery(ctx, 'includeLocal', true);
    booleanQuery(ctx, 'includeArchived', false); // checked; this agent archives nothing, so it adds no file
    const { resource: output } = resolve(
      ctx,
      'logFile',
      'read',
      deps.outputs.find(pathParam(ctx, 'outputId')),
      'there is no such output',
    );
    const files = includeLocal && output.hostId !== undefined ? await deps.logFiles.list(output.id) : [];
    const links = linksOf(ctx, deps);
    ctx.body = visible(ctx, 'logFile', files).map(({ item }) => fileView(item, links));
  });

  router.get('/api/v1/logs/get/:fileId', requirePermission('logFile', 'download'), async (ctx) => {
    const file = await deps.logFiles.open(pathParam(ctx, 'fileId'));
    try {
      // A file of this agent that does not exist is "local": the client that may download gets 404.
      resolve(ctx, 'logFile', 'download', file ?? undefined, 'there is no such log file', 'local');
    } catch (error) {
      await file?.handle.close();
      throw error;
    }
    await sendFile(ctx, file!);
  });
}
