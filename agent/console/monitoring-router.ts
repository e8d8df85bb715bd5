/**
 * The console's changes to what is monitored (shared/console-api.ts `ConsoleMonitoringPaths`):
 * enable or disable a host, add or remove a folder it watches, enable or disable an output.
 * Handlers check the body and the folder, call the resource services (which validate, persist
 * the settings and record the change with the console as actor) and answer with the same views
 * `GET /api/hosts` and `/api/outputs` give. The monitoring follows the settings by itself.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type Koa from 'koa';
import { z } from 'zod';
import { ConsolePaths, type HostView, type OutputView } from '../../shared/console-api.js';
import { ApiError } from '../http/api-error.js';
import { pathParam } from '../http/api-router.js';
import type { SettingsStore } from '../config/settings-store.js';
import { readJsonObject } from '../http/json-body.js';
import { parseInput } from '../http/parse-input.js';
import type { HostService } from '../resources/host-service.js';
import type { OutputService } from '../resources/output-service.js';
import { ServiceError } from '../util/service-error.js';
import type { StatusRegistry } from '../status/status-registry.js';
import type { ConsoleRoutes } from './console-app.js';
import { consoleAuth } from './console-guard.js';
import { requiredField } from './console-input.js';
import { hostViews, outputViews } from './monitoring-views.js';

export interface MonitoringRouterDeps {
  hosts: HostService;
  outputs: OutputService;
  settings: SettingsStore;
  status: StatusRegistry;
}

const invalid = (field: string, message: string): ApiError => new ApiError(400, 'invalid_request', message, { field });

/** `{"enabled": true|false}` and nothing else: other fields of a host are not changed here. */
const EnabledBody = z.strictObject({
  enabled: z.boolean({
    error: (issue) =>
      issue.input === undefined ? 'enabled is missing: send true or false' : 'enabled must be true or false',
  }),
});
const FolderBody = z.object({ path: z.string(requiredField('path', 'a string')) });

async function enabledBody(ctx: Koa.Context): Promise<boolean> {
  return parseInput(EnabledBody, await readJsonObject(ctx)).enabled;
}

/** An absolute path without a trailing separator, so `/data/` and `/data` are one folder. */
function folderPath(value: string | undefined): string {
  if (value === undefined || value === '') throw invalid('path', 'path is missing: give the folder to watch');
  if (value.includes('\0')) throw invalid('path', 'path cannot contain a NUL character');
  if (!path.isAbsolute(value)) throw invalid('path', `path must be an absolute path, not "${value}"`);
  const normal = path.normalize(value);
  return normal === path.parse(normal).root ? normal : normal.replace(/[\\/]+$/, '');
}

/**
 * A folder to add must exist now: a mistyped path would otherwise be watched silently, with
 * nothing ever recorded (docs/decisions.md "Console: hosts and outputs").
 */
async function existingFolder(folder: string): Promise<void> {
  let stat;
  try {
    stat = await fs.stat(folder);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw invalid('path', `path: there is no folder ${folder}`);
    throw invalid('path', `path: the folder ${folder} cannot be read (${code ?? 'error'})`);
  }
  if (!stat.isDirectory()) throw invalid('path', `path: ${folder} is a file, not a folder`);
}

/** The service's errors in the console's words; a problem with the folder list is the `path`. */
async function viaService<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    if (error.kind === 'not_found') throw new ApiError(404, 'not_found', error.message, { field: 'id' });
    const field = error.field?.startsWith('includePaths') ? 'path' : (error.field ?? 'id');
    if (error.kind === 'conflict') {
      throw new ApiError(409, 'conflict', error.message, {
        field,
        ...(error.holderId !== undefined ? { holderId: error.holderId } : {}),
      });
    }
    throw invalid(field, `${field}: ${error.message}`);
  }
}

export function buildMonitoringRouter(deps: MonitoringRouterDeps): ConsoleRoutes {
  const host = `${ConsolePaths.hosts}/:hostId`;
  const output = `${ConsolePaths.outputs}/:outputId`;
  return (router) => {
    const hostView = (id: string): HostView => hostViews(deps.settings.current, deps.status).find((h) => h.id === id)!;
    const outputView = (id: string): OutputView =>
      outputViews(deps.settings.current, deps.status).find((o) => o.id === id)!;
    const existingHost = (id: string): void => {
      if (!deps.hosts.find(id))
        throw new ApiError(404, 'not_found', `there is no host with id "${id}"`, { field: 'id' });
    };

    router.put(host, async (ctx) => {
      const actor = consoleAuth(ctx).actor;
      const id = pathParam(ctx, 'hostId');
      const enabled = await enabledBody(ctx);
      await viaService(() => deps.hosts.setEnabled(id, enabled, actor));
      ctx.body = hostView(id);
    });

    router.post(`${host}/folders`, async (ctx) => {
      // Before the folder is looked at: its answer must not tell a stranger what exists.
      const actor = consoleAuth(ctx).actor;
      const id = pathParam(ctx, 'hostId');
      const folder = folderPath(parseInput(FolderBody, await readJsonObject(ctx)).path);
      existingHost(id);
      await existingFolder(folder);
      const before = deps.hosts.find(id)?.includePaths ?? [];
      await viaService(() => deps.hosts.addIncludePath(id, folder, actor));
      ctx.status = before.includes(folder) ? 200 : 201;
      ctx.body = hostView(id);
    });

    // The folder goes in the query (`?path=`): a DELETE body is not read by every client.
    router.delete(`${host}/folders`, async (ctx) => {
      const actor = consoleAuth(ctx).actor;
      const id = pathParam(ctx, 'hostId');
      const raw = ctx.query['path'];
      if (Array.isArray(raw)) throw invalid('path', 'path: give one folder at a time');
      const folder = folderPath(raw);
      existingHost(id);
      // The entry as written in the settings, which may be spelt with a trailing separator.
      const current = deps.hosts.find(id)!.includePaths;
      const entry = current.find((p) => p === folder) ?? current.find((p) => folderPath(p) === folder);
      if (entry === undefined) {
        throw new ApiError(404, 'not_found', `the host does not watch the folder ${folder}`, { field: 'path' });
      }
      await viaService(() => deps.hosts.removeIncludePath(id, entry, actor));
      ctx.body = hostView(id);
    });

    router.put(output, async (ctx) => {
      const actor = consoleAuth(ctx).actor;
      const id = pathParam(ctx, 'outputId');
      const enabled = await enabledBody(ctx);
      if (!outputViews(deps.settings.current, deps.status).some((o) => o.id === id)) {
        throw new ApiError(404, 'not_found', `there is no output with id "${id}"`, { field: 'id' });
      }
      await viaService(() => deps.outputs.setEnabled(id, enabled, actor));
      ctx.body = outputView(id);
    });
  };
}
