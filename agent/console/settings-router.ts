/**
 * `GET /api/settings` and `PATCH /api/settings` (shared/console-api.ts): the ports, the
 * allow-list and the audit vendor. The service validates and says what needs a restart.
 */
import { ConsolePaths } from '../../shared/console-api.js';
import type { EditableSettingsService } from '../config/editable-settings.js';
import { readJsonObject } from '../http/json-body.js';
import type { ConsoleRoutes } from './console-app.js';
import { consoleAuth } from './console-guard.js';

/** The service validates the patch itself: it knows which settings are editable here. */
export function buildSettingsRouter(service: EditableSettingsService): ConsoleRoutes {
  return (router) => {
    router.get(ConsolePaths.settings, (ctx) => {
      ctx.body = service.view();
    });
    router.patch(ConsolePaths.settings, async (ctx) => {
      const actor = consoleAuth(ctx).actor;
      ctx.body = await service.apply(await readJsonObject(ctx), actor);
    });
  };
}
