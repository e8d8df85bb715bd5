/**
 * Console API for client applications (shared/console-api.ts `ConsoleClientPaths`): list, add,
 * set permissions, regenerate the secret, revoke. Handlers check the body's shape, call the
 * ClientService and shape the answer; the service validates names and permissions.
 */
import Router from '@koa/router';
import { ApiError } from '../api/api-error.js';
import type { ClientService } from '../auth/client-service.js';
import { readJsonObject } from '../http/read-json.js';
import { consoleAuth } from './console-guard.js';

export function buildClientsRouter(clients: ClientService): Router {
  const router = new Router({ prefix: '/api/clients' });

  router.get('/', (ctx) => {
    ctx.body = clients.list();
  });

  router.post('/', async (ctx) => {
    const body = await readJsonObject(ctx);
    if (!('name' in body)) throw new ApiError(400, 'invalid_request', 'the name is missing', { field: 'name' });
    if (!('permissions' in body)) {
      throw new ApiError(400, 'invalid_request', 'the permissions are missing', { field: 'permissions' });
    }
    const created = await clients.add({ name: body['name'], permissions: body['permissions'] }, consoleAuth(ctx).actor);
    ctx.status = 201;
    ctx.set('Cache-Control', 'no-store'); // the secret is shown once
    ctx.body = created;
  });

  router.put('/:clientId/permissions', async (ctx) => {
    const body = await readJsonObject(ctx);
    if (!('permissions' in body)) {
      throw new ApiError(400, 'invalid_request', 'the permissions are missing', { field: 'permissions' });
    }
    ctx.body = await clients.setPermissions(ctx.params['clientId']!, body['permissions'], consoleAuth(ctx).actor);
  });

  router.post('/:clientId/secret', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await clients.regenerateSecret(ctx.params['clientId']!, consoleAuth(ctx).actor);
  });

  router.delete('/:clientId', async (ctx) => {
    ctx.body = await clients.revoke(ctx.params['clientId']!, consoleAuth(ctx).actor);
  });

  return router;
}
