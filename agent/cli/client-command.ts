/**
 * `vigil client add|list|set-permissions|regenerate-secret|revoke` (docs/authentication.md): manages the
 * client applications of the agent API. JSON on stdout; a usage mistake (unknown permission
 * word, empty or duplicate name, unknown client) exits 2 with one clear line on stderr. Works
 * whether or not an agent runs on the data dir (admin-client.ts).
 */
import { parseArgs } from 'node:util';
import type { ClientApplicationView, ClientCredentials } from '../../shared/client-application.js';
import { ConsoleClientPaths, type RevokedClientResponse } from '../../shared/console-api.js';
import {
  describePermissionWords,
  isPermission,
  permissionFromCliWord,
  type Permission,
} from '../../shared/permissions.js';
import { openAuthServices } from '../auth/auth-services.js';
import { ClientApplicationError } from '../auth/client-errors.js';
import type { ClientService } from '../auth/client-service.js';
import { resolveDataDir } from '../config/data-dir.js';
import { ConsoleApiError, withAdminTarget, type ConsoleApi } from './admin-client.js';
import { UsageError } from './usage-error.js';
import { printJson } from './cli-io.js';

export const CLIENT_USAGE = `vigil client add --name NAME --permission WORD [--permission WORD ...] [--data-dir DIR]
  vigil client list [--data-dir DIR]
  vigil client set-permissions (--id ID | --name NAME) --permission WORD [...] [--data-dir DIR]
  vigil client regenerate-secret (--id ID | --name NAME) [--data-dir DIR]
  vigil client revoke (--id ID | --name NAME) [--data-dir DIR]
  permission words: ${describePermissionWords('cli')}`;

const ACTOR = 'cli';

/** What each subcommand does, once against the console API and once against the files. */
interface Operation<T> {
  online(api: ConsoleApi): Promise<T>;
  offline(clients: ClientService): Promise<T>;
}

interface ClientArgs {
  dataDir: string;
  name: string | undefined;
  id: string | undefined;
  permissions: Permission[] | undefined;
}

function usage(message: string): UsageError {
  return new UsageError(`${message}\nusage: ${CLIENT_USAGE}`);
}

/** `--permission read --permission modify-host` or `--permission read,modify-host`. */
export function parsePermissionWords(values: string[]): Permission[] {
  const out: Permission[] = [];
  for (const word of values.flatMap((v) => v.split(',')).map((w) => w.trim())) {
    const permission = permissionFromCliWord(word) ?? (isPermission(word) ? word : null);
    if (!permission) {
      throw new UsageError(`unknown permission "${word}"; use ${describePermissionWords('cli')}`);
    }
    out.push(permission);
  }
  return out;
}

function parseClientArgs(argv: string[]): ClientArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        'data-dir': { type: 'string' },
        name: { type: 'string' },
        id: { type: 'string' },
        permission: { type: 'string', multiple: true },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw usage((error as Error).message);
  }
  return {
    dataDir: resolveDataDir({ flag: values['data-dir'] }),
    name: values.name,
    id: values.id,
    permissions: values.permission === undefined ? undefined : parsePermissionWords(values.permission),
  };
}

function requirePermissions(args: ClientArgs): Permission[] {
  if (!args.permissions || args.permissions.length === 0) {
    throw usage('give at least one --permission (to take every right away, revoke the client)');
  }
  return args.permissions;
}

/** The client named by --id or --name, as its id; `list` is how each side looks names up. */
function targetOf(args: ClientArgs): (list: ClientApplicationView[]) => string {
  if ((args.id === undefined) === (args.name === undefined)) throw usage('name the client with --id or --name');
  return (list) => {
    const found =
      args.id !== undefined
        ? list.find((c) => c.clientId === args.id)
        : list.find((c) => c.name.toLowerCase() === args.name!.trim().toLowerCase());
    if (!found) throw new UsageError(`there is no client application ${args.id ?? `named "${args.name}"`}`);
    return found.clientId;
  };
}

function credentialsOut(c: ClientCredentials): ClientCredentials {
  // docs/authentication.md: exactly these four fields.
  return {
    clientId: c.clientId,
    clientSecret: c.clientSecret,
    secretExpiresAt: c.secretExpiresAt,
    permissions: c.permissions,
  };
}

function operationFor(sub: string, args: ClientArgs): Operation<unknown> {
  switch (sub) {
    case 'add': {
      if (args.id !== undefined) throw usage('add takes --name, not --id (the id is generated)');
      if (args.name === undefined) throw usage('give the client a --name');
      const body = { name: args.name, permissions: requirePermissions(args) };
      return {
        online: async (api) =>
          credentialsOut(await api.request<ClientCredentials>('POST', ConsoleClientPaths.clients, body)),
        offline: async (clients) => credentialsOut(await clients.add(body, ACTOR)),
      };
    }
    case 'list':
      if (args.id !== undefined || args.name !== undefined || args.permissions !== undefined) {
        throw usage('list takes no options but --data-dir');
      }
      return {
        online: (api) => api.request<ClientApplicationView[]>('GET', ConsoleClientPaths.clients),
        offline: async (clients) => clients.list(),
      };
    case 'set-permissions': {
      const target = targetOf(args);
      const permissions = requirePermissions(args);
      return {
        online: async (api) => {
          const id = target(await api.request<ClientApplicationView[]>('GET', ConsoleClientPaths.clients));
          return api.request<ClientApplicationView>('PUT', ConsoleClientPaths.permissions(id), { permissions });
        },
        offline: async (clients) => clients.setPermissions(target(clients.list()), permissions, ACTOR),
      };
    }
    case 'regenerate-secret': {
      const target = targetOf(args);
      if (args.permissions !== undefined) throw usage('regenerate-secret takes no --permission');
      return {
        online: async (api) => {
          const id = target(await api.request<ClientApplicationView[]>('GET', ConsoleClientPaths.clients));
          return credentialsOut(await api.request<ClientCredentials>('POST', ConsoleClientPaths.secret(id)));
        },
        offline: async (clients) => credentialsOut(await clients.regenerateSecret(target(clients.list()), ACTOR)),
      };
    }
    case 'revoke': {
      const target = targetOf(args);
      if (args.permissions !== undefined) throw usage('revoke takes no --permission');
      return {
        online: async (api) => {
          const id = target(await api.request<ClientApplicationView[]>('GET', ConsoleClientPaths.clients));
          return api.request<RevokedClientResponse>('DELETE', ConsoleClientPaths.client(id));
        },
        offline: async (clients) => clients.revoke(target(clients.list()), ACTOR),
      };
    }
    default:
      throw usage(sub === '' ? 'missing subcommand' : `unknown subcommand "${sub}"`);
  }
}

export async function runClientCommand(argv: string[]): Promise<number> {
  const [sub = '', ...rest] = argv;
  const args = parseClientArgs(rest);
  const operation = operationFor(sub, args);
  let result: unknown;
  try {
    result = await withAdminTarget(args.dataDir, {
      online: (api) => operation.online(api),
      offline: async (context) => {
        const auth = await openAuthServices({
          paths: context.paths,
          settings: context.settings,
          recorder: context.recorder,
          log: context.log,
        });
        try {
          return await operation.offline(auth.clients);
        } finally {
          auth.close();
        }
      },
    });
  } catch (error) {
    // Mistakes in what was asked (bad name, duplicate, unknown client) are usage errors: exit 2.
    if (error instanceof ClientApplicationError) throw new UsageError(error.message);
    if (error instanceof ConsoleApiError && error.status >= 400 && error.status < 500) {
      throw new UsageError(error.description);
    }
    throw error;
  }
  printJson(result);
  return 0;
}
