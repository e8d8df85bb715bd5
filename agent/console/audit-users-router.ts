/**
 * Console API for audit API users (shared/console-api.ts `ConsoleAuditUserPaths`): list, add,
 * change password, change roles, remove. Handlers check the body's shape and call the
 * AuditUserService, which validates names, roles and passwords and records each change.
 * Passwords travel only in request bodies and are never echoed or logged.
 */
import Router from '@koa/router';
import type { RemovedAuditUserResponse } from '../../shared/console-api.js';
import { ApiError } from '../api/api-error.js';
import { readJsonObject } from '../http/read-json.js';
import type { AuditUserService } from '../users/audit-user-service.js';
import { consoleAuth } from './console-guard.js';

function stringField(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (value === undefined) throw new ApiError(400, 'invalid_request', `the ${field} is missing`, { field });
  if (typeof value !== 'string') throw new ApiError(400, 'invalid_request', `the ${field} must be a string`, { field });
  return value;
}

function rolesField(body: Record<string, unknown>): string[] {
  const value = body['roles'];
  if (value === undefined) throw new ApiError(400, 'invalid_request', 'the roles are missing', { field: 'roles' });
  if (!Array.isArray(value) || !value.every((r) => typeof r === 'string')) {
    throw new ApiError(400, 'invalid_request', 'roles must be a list of role names', { field: 'roles' });
  }
  return value as string[];
}

export function buildAuditUsersRouter(users: AuditUserService): Router {
  const router = new Router({ prefix: '/api/audit-users' });

  router.get('/', (ctx) => {
    ctx.body = users.list();
  });

  router.post('/', async (ctx) => {
    const body = await readJsonObject(ctx);
    const input = { name: stringField(body, 'name'), roles: rolesField(body), password: stringField(body, 'password') };
    ctx.status = 201;
    ctx.body = await users.add(input, consoleAuth(ctx).actor);
  });

  router.put('/:name/password', async (ctx) => {
    const body = await readJsonObject(ctx);
    ctx.body = await users.setPassword(ctx.params['name']!, stringField(body, 'password'), consoleAuth(ctx).actor);
  });

  router.put('/:name/roles', async (ctx) => {
    const body = await readJsonObject(ctx);
    ctx.body = await users.setRoles(ctx.params['name']!, rolesField(body), consoleAuth(ctx).actor);
  });

  router.delete('/:name', async (ctx) => {
    const name = ctx.params['name']!;
    const existing = users.get(name);
    await users.remove(name, consoleAuth(ctx).actor);
    const body: RemovedAuditUserResponse = { name: existing?.name ?? name, removed: true };
    ctx.body = body;
  });

  return router;
}
