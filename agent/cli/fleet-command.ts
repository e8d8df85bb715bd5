/**
 * `vigil fleet join URL [--password-stdin] | leave | status` (docs/fleet.md): makes this agent a
 * member of a fleet database, or no longer one, and shows the state. While an agent runs on the
 * data dir the change goes through its console and takes effect at once; otherwise settings.json
 * and secrets/fleet-password are edited under the agent lock (admin-client.ts). The password
 * comes from stdin (`--password-stdin`) or PGPASSWORD; it is never printed.
 */
import { parseArgs } from 'node:util';
import { ConsolePaths } from '../../shared/console-api.js';
import { fleetDatabaseUrlSchema } from '../config/fleet-membership-schema.js';
import { resolveDataDir } from '../config/data-dir.js';
import { removeFleetPassword, writeFleetPassword } from '../fleet/fleet-connection.js';
import type { FleetStatusView } from '../fleet/fleet-service.js';
import { offlineFleetStatus } from '../fleet/offline-status.js';
import { ConsoleApiError, withAdminTarget } from './admin-client.js';
import { UsageError } from './usage-error.js';
import { readPasswordStdin, printJson } from './cli-io.js';

export const FLEET_USAGE = `vigil fleet join postgres://USER@HOST:PORT/DATABASE [--password-stdin] [--data-dir DIR]
  vigil fleet leave [--data-dir DIR]
  vigil fleet status [--data-dir DIR]`;

function usage(message: string): UsageError {
  return new UsageError(`${message}\nusage: ${FLEET_USAGE}`);
}

export async function runFleetCommand(argv: string[]): Promise<number> {
  const [sub = '', ...rest] = argv;
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      options: { 'data-dir': { type: 'string' }, 'password-stdin': { type: 'boolean' } },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw usage((error as Error).message);
  }
  const { values, positionals } = parsed;
  const dataDir = resolveDataDir({ flag: values['data-dir'] });
  if (sub !== 'join' && (positionals.length > 0 || values['password-stdin'])) {
    throw usage(`${sub || 'fleet'} takes no URL and no --password-stdin`);
  }
  let result: unknown;
  try {
    switch (sub) {
      case 'join': {
        if (positionals.length !== 1) throw usage('join takes the database URL');
        const database = positionals[0]!;
        const checked = fleetDatabaseUrlSchema.safeParse(database);
        if (!checked.success) throw usage(`the database URL ${checked.error.issues[0]?.message ?? 'is not valid'}`);
        const password = values['password-stdin'] ? await readPasswordStdin() : (process.env['PGPASSWORD'] ?? null);
        result = await withAdminTarget<FleetStatusView>(dataDir, {
          online: (api) => api.request<FleetStatusView>('PUT', ConsolePaths.fleet, { database, password }),
          offline: async ({ settings, paths }) => {
            if (password !== null) writeFleetPassword(paths.root, password);
            await settings.update((draft) => {
              draft.fleet = { database, joinedAt: new Date().toISOString() };
            });
            return offlineFleetStatus(settings.current.fleet, paths.root, paths.auditDb);
          },
        });
        break;
      }
      case 'leave':
        await withAdminTarget<void>(dataDir, {
          online: async (api) => {
            await api.request('DELETE', ConsolePaths.fleet);
          },
          offline: async ({ settings, paths }) => {
            await settings.update((draft) => {
              delete draft.fleet;
            });
            removeFleetPassword(paths.root);
          },
        });
        result = { database: null, state: 'alone', problem: null, backlog: 0, members: [] } satisfies FleetStatusView;
        break;
      case 'status':
        result = await withAdminTarget<FleetStatusView>(dataDir, {
          online: (api) => api.request<FleetStatusView>('GET', ConsolePaths.fleet),
          offline: ({ settings, paths }) => offlineFleetStatus(settings.current.fleet, paths.root, paths.auditDb),
        });
        break;
      default:
        throw usage(sub === '' ? 'missing subcommand' : `unknown subcommand "${sub}"`);
    }
  } catch (error) {
    if (error instanceof ConsoleApiError && error.status >= 400 && error.status < 500) {
      throw new UsageError(error.description);
    }
    throw error;
  }
  printJson(result);
  return 0;
}
