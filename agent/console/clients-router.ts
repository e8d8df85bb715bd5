/**
 * Console API for client applications (shared/console-api.ts `ConsoleClientPaths`): list, add,
 * set permissions, regenerate the secret, revoke. Handlers check the body's shape, call the
 * ClientService and shape the answer; the service validates names and permissions.
 */
import { z } from 'zod';
import { ConsoleClientPaths } from '../../shared/console-api.js';
import { pathParam } from '../http/api-router.js';
import type { ClientService } from '../auth/client-service.js';
import { readJsonObject } from '../http/json-body.js';
import { parseInput } from '../http/parse-input.js';
import type { ConsoleRoutes } from './console-app.js';
import { consoleAuth } from './console-guard.js';
import { requiredField } from './console-input.js';

const permissions = z.array(z.string(), requiredField('permissions', 'a list of permission names'));
const NewClientBody = z.object({ name: z.string(requiredField('name', 'a string')), permissions });
const PermissionsBody = z.object({ permissions });

export function buildClientsRouter(clients: ClientService): ConsoleRoutes {
  const one = `${ConsoleClientPaths.clients}/:clientId`;
  return (router) => {
    router.get(ConsoleClientPaths.clients, (ctx) => {
      ctx.body = clients.list();
    });

    router.post(ConsoleClientPaths.clients, async (ctx) => {
      const actor = consoleAuth(ctx).actor;
      const body = parseInput(NewClientBody, await readJsonObject(ctx));
      const created = await clients.add(body, actor);
      ctx.status = 201;
      ctx.set('Cache-Control', 'no-store'); // the secret is shown once
      ctx.body = created;
    });

    router.put(`${one}/permissions`, async (ctx) => {
      const actor = consoleAuth(ctx).actor;
      const body = parseInput(PermissionsBody, await readJsonObject(ctx));
      ctx.body = await clients.setPermissions(pathParam(ctx, 'clientId'), body.permissions, actor);
    });

    router.post(`${one}/secret`, async (ctx) => {
      const actor = consoleAuth(ctx).actor;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = await clients.regenerateSecret(pathParam(ctx, 'clientId'), actor);
    });

    router.delete(one, async (ctx) => {
      ctx.body = await clients.revoke(pathParam(ctx, 'clientId'), consoleAuth(ctx).actor);
    });
  };
}
