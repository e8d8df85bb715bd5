/**
 * Console API for fleet membership (docs/fleet.md), used by `vigil fleet` while the agent runs:
 * `GET /api/fleet` (status), `PUT /api/fleet` `{database, password?}` (join, at once),
 * `DELETE /api/fleet` (leave). The password is written owner-only and never answered back.
 */
import { z } from 'zod';
import { ConsolePaths } from '../../shared/console-api.js';
import { fleetDatabaseUrlSchema } from '../config/fleet-membership-schema.js';
import { readJsonObject } from '../http/json-body.js';
import { parseInput } from '../http/parse-input.js';
import type { FleetService } from '../fleet/fleet-service.js';
import type { ConsoleRoutes } from './console-app.js';

const JoinBody = z.strictObject({
  database: fleetDatabaseUrlSchema,
  password: z.string().max(1000).nullable().default(null),
});

export function buildFleetRouter(fleet: FleetService): ConsoleRoutes {
  return (router) => {
    router.get(ConsolePaths.fleet, async (ctx) => {
      ctx.body = await fleet.status();
    });
    router.put(ConsolePaths.fleet, async (ctx) => {
      const body = parseInput(JoinBody, await readJsonObject(ctx));
      ctx.set('Cache-Control', 'no-store');
      ctx.body = await fleet.join(body.database, body.password);
    });
    router.delete(ConsolePaths.fleet, async (ctx) => {
      await fleet.leave();
      ctx.status = 204;
    });
  };
}
