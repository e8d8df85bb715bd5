/**
 * Log files (docs/activity-pipeline.md, docs/agent-api.md): `GET /api/v1/logs/{outputId}` lists the
 * files of a LogFile output; `GET /api/v1/logs/get/{fileId}` downloads one. Read and Access
 * activity data list; only Access activity data downloads (docs/permissions.md, docs/agent-api.md). The
 * download
 * is http/send-file.ts (one byte range, If-Range), and answers an id that is not a log file name
 * of this agent with 404 before any file outside the logs folder could be touched. A plain file's
 * sidecar (docs/integrity.md) downloads as `{fileId}.sig`; it is not listed.
 */
import { requirePermission } from './require-permission.js';
import { sendFile } from '../http/send-file.js';
import type { LogFileInfo, OpenLogFile } from '../outputs/log-files-service.js';
import { invalidInput } from '../http/api-error.js';
import { pathParam } from '../http/api-router.js';
import { booleanQuery } from './request-input.js';
import { resolve, visible } from './resource-access.js';
import { linksOf, type ResourceRouteDeps } from './resource-deps.js';
import type { LogFileView } from './schemas/log-file-schemas.js';
import type { ApiLinks } from './views/api-links.js';
import { logFileViewSchema, logListQuerySchema } from './schemas/log-file-schemas.js';
import { z } from 'zod';
import { listOf, type AgentApiRouter } from './openapi/route-doc.js';

const LIST_PARAMETERS = ['includeLocal', 'includeArchived'];

function fileView(file: LogFileInfo, links: ApiLinks): LogFileView {
  const contentUrl = links.logFile(file.id);
  return { ...file, url: contentUrl, contentUrl };
}

function contentType(file: OpenLogFile): string {
  if (file.isZip) return 'application/zip';
  if (file.isSidecar) return 'application/x-ndjson; charset=utf-8';
  return file.type === 'Tsv' ? 'text/tab-separated-values; charset=utf-8' : 'application/x-ndjson; charset=utf-8';
}

export function registerLogFileRoutes(router: AgentApiRouter, deps: ResourceRouteDeps): void {
  router.get(
    '/api/v1/logs/:outputId',
    {
      tag: 'Log files',
      summary: 'List the files of a LogFile output',
      query: logListQuerySchema,
      ok: { status: 200, description: 'Files, newest first', schema: listOf(logFileViewSchema) },
      errors: [400, 404],
    },
    requirePermission('logFile', 'read'),
    async (ctx) => {
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
      const files = includeLocal ? await deps.logFiles.list(output.id) : [];
      const links = linksOf(ctx, deps);
      ctx.body = visible(ctx, 'logFile', files).map(({ item }) => fileView(item, links));
    },
  );

  router.get(
    '/api/v1/logs/get/:fileId',
    {
      tag: 'Log files',
      summary: 'Download a log file (streamed; one byte range supported)',
      ok: {
        status: 200,
        description:
          'The file as an attachment; 206 with Content-Range for a single range (several ranges: the whole file)',
        content: {
          'text/tab-separated-values': z.string(),
          'application/x-ndjson': z.string(),
          'application/zip': z.string().meta({ format: 'binary' }),
        },
      },
      errors: [404, 416],
    },
    requirePermission('logFile', 'download'),
    async (ctx) => {
      const file = await deps.logFiles.open(pathParam(ctx, 'fileId'));
      try {
        // A file of this agent that does not exist is "local": the client that may download gets 404.
        resolve(ctx, 'logFile', 'download', file ?? undefined, 'there is no such log file', 'local');
      } catch (error) {
        await file?.handle.close();
        throw error;
      }
      await sendFile(ctx, file!, contentType(file!));
    },
  );
}
