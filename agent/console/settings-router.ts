/**
 * `GET /api/settings` and `PATCH /api/settings` (shared/console-api.ts): the ports, the
 * allow-list and the audit vendor. The service validates and says what needs a restart.
 */
import Router from '@koa/router';
import { ConsolePaths } from '../../shared/console-api.js';
import type { EditableSettingsService } from '../config/editable-settings.js';
import { readJsonObject } from '../http/read-json.js';
import { consoleAuth } from './console-guard.js';

export function buildSettingsRouter(service: EditableSettingsService): Router {
  const router = new Router();
  router.get(ConsolePaths.settings, (ctx) => {
    ctx.body = service.view();
  });
  router.patch(ConsolePaths.settings, async (ctx) => {
    const patch = await readJsonObject(ctx);
    ctx.body = await service.apply(patch, consoleAuth(ctx).actor);
  });
  return router;
}
