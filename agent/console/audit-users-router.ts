/**
 * Console API for audit API users (shared/console-api.ts `ConsoleAuditUserPaths`): list, add,
 * change password, change roles, remove. Handlers check the body's shape and call the
 * AuditUserService, which validates names, roles and passwords and records each change.
 * Passwords travel only in request bodies and are never echoed or logged.
 */
import { z } from 'zod';
import { ConsoleAuditUserPaths, type RemovedAuditUserResponse } from '../../shared/console-api.js';
import { pathParam } from '../http/api-router.js';
import { readJsonObject } from '../http/json-body.js';
import { parseInput } from '../http/parse-input.js';
import type { AuditUserService } from '../users/audit-user-service.js';
import type { ConsoleRoutes } from './console-app.js';
import { consoleAuth } from './console-guard.js';
import { requiredField } from './console-input.js';

const name = z.string(requiredField('name', 'a string'));
const password = z.string(requiredField('password', 'a string'));
const roles = z.array(z.string(), requiredField('roles', 'a list of role names'));
const NewUserBody = z.object({ name, roles, password });
const PasswordBody = z.object({ password });
const RolesBody = z.object({ roles });

export function buildAuditUsersRouter(users: AuditUserService): ConsoleRoutes {
  const one = `${ConsoleAuditUserPaths.users}/:name`;
  return (router) => {
    router.get(ConsoleAuditUserPaths.users, (ctx) => {
      ctx.body = users.list();
    });

    router.post(ConsoleAuditUserPaths.users, async (ctx) => {
      const actor = consoleAuth(ctx).actor;
      const input = parseInput(NewUserBody, await readJsonObject(ctx));
      ctx.status = 201;
      ctx.body = await users.add(input, actor);
    });

    router.put(`${one}/password`, async (ctx) => {
      const actor = consoleAuth(ctx).actor;
      const body = parseInput(PasswordBody, await readJsonObject(ctx));
      ctx.body = await users.setPassword(pathParam(ctx, 'name'), body.password, actor);
    });

    router.put(`${one}/roles`, async (ctx) => {
      const actor = consoleAuth(ctx).actor;
      const body = parseInput(RolesBody, await readJsonObject(ctx));
      ctx.body = await users.setRoles(pathParam(ctx, 'name'), body.roles, actor);
    });

    router.delete(one, async (ctx) => {
      const actor = consoleAuth(ctx).actor;
      const name = pathParam(ctx, 'name');
      const existing = users.get(name);
      await users.remove(name, actor);
      const body: RemovedAuditUserResponse = { name: existing?.name ?? name, removed: true };
      ctx.body = body;
    });
  };
}
