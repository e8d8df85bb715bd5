/**
 * `vigil user add|list|remove|set-password|set-roles`: audit API users (README.md, docs/audit-api.md).
 *
 * Passwords come only from standard input (`--password-stdin`), never from the command line,
 * where other users could read them in the process list.
 *
 * Like `vigil client` (admin-client.ts): while an agent runs on the data directory the command
 * goes through its console API (shared/console-api.ts `ConsoleAuditUserPaths`), so the change
 * takes effect at once and the agent stays the only writer of settings.json; while none runs it
 * takes the agent lock and changes settings.json itself. Either way the change is recorded as
 * made by the CLI.
 */
import fs from 'node:fs/promises';
import { parseArgs } from 'node:util';
import {
  ConsoleAuditUserPaths,
  type AuditUserSummary,
  type RemovedAuditUserResponse,
} from '../../shared/console-api.js';
import { dataPaths, resolveDataDir } from '../config/data-dir.js';
import { AuditUserError, AuditUserService } from '../users/audit-user-service.js';
import { ConsoleApiError, withAdminTarget, type ConsoleApi } from './admin-client.js';
import { EXIT_FAILURE, EXIT_OK, UsageError } from './usage-error.js';
import { USER_USAGE } from './user-usage.js';
import { readPasswordStdin, printJson } from './cli-io.js';

type Action = 'add' | 'list' | 'remove' | 'set-password' | 'set-roles';
const ACTIONS: readonly Action[] = ['add', 'list', 'remove', 'set-password', 'set-roles'];
const ACTOR = 'cli';

interface Operation {
  online(api: ConsoleApi): Promise<unknown>;
  offline(users: AuditUserService): Promise<unknown>;
}

function operationFor(action: Action, name: string, roles: string[], password: string): Operation {
  switch (action) {
    case 'add':
      return {
        online: (api) => api.request<AuditUserSummary>('POST', ConsoleAuditUserPaths.users, { name, roles, password }),
        offline: (users) => users.add({ name, roles, password }, ACTOR),
      };
    case 'list':
      return {
        online: (api) => api.request<AuditUserSummary[]>('GET', ConsoleAuditUserPaths.users),
        offline: async (users) => users.list(),
      };
    case 'remove':
      return {
        online: async (api) => {
          const removed = await api.request<RemovedAuditUserResponse>('DELETE', ConsoleAuditUserPaths.user(name));
          return { removed: removed.name };
        },
        offline: async (users) => {
          await users.remove(name, ACTOR);
          return { removed: name };
        },
      };
    case 'set-password':
      return {
        online: (api) => api.request<AuditUserSummary>('PUT', ConsoleAuditUserPaths.password(name), { password }),
        offline: (users) => users.setPassword(name, password, ACTOR),
      };
    case 'set-roles':
      return {
        online: (api) => api.request<AuditUserSummary>('PUT', ConsoleAuditUserPaths.roles(name), { roles }),
        offline: (users) => users.setRoles(name, roles, ACTOR),
      };
  }
}

export async function runUserCommand(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  if (!ACTIONS.includes(action as Action)) {
    throw new UsageError(
      `${action ? `unknown user command "${action}"` : 'missing user command'}\nusage: ${USER_USAGE}`,
    );
  }
  let values;
  try {
    ({ values } = parseArgs({
      args: rest,
      options: {
        name: { type: 'string' },
        role: { type: 'string', multiple: true },
        'password-stdin': { type: 'boolean' },
        'data-dir': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\nusage: ${USER_USAGE}`);
  }
  const needsName = action !== 'list';
  const needsPassword = action === 'add' || action === 'set-password';
  const needsRoles = action === 'add' || action === 'set-roles';
  if (needsName && !values.name) throw new UsageError(`--name is required\nusage: ${USER_USAGE}`);
  if (needsRoles && !values.role?.length)
    throw new UsageError(`--role is required (reader, contributor)\nusage: ${USER_USAGE}`);
  if (needsPassword && !values['password-stdin']) {
    throw new UsageError('give the password on standard input with --password-stdin (never on the command line)');
  }
  const paths = dataPaths(resolveDataDir({ flag: values['data-dir'] }));

  if (action === 'list') {
    const exists = await fs.stat(paths.settings).then(
      () => true,
      () => false,
    );
    if (!exists) {
      printJson([]);
      return EXIT_OK;
    }
  }
  const password = needsPassword ? await readPasswordStdin() : '';
  const roles = (values.role ?? [])
    .flatMap((r) => r.split(','))
    .map((r) => r.trim())
    .filter(Boolean);
  const operation = operationFor(action as Action, values.name ?? '', roles, password);

  try {
    printJson(
      await withAdminTarget(paths.root, {
        online: (api) => operation.online(api),
        offline: async (context) => {
          const users = new AuditUserService(context.settings, { recorder: context.recorder });
          try {
            return await operation.offline(users);
          } finally {
            users.close();
          }
        },
      }),
    );
    return EXIT_OK;
  } catch (error) {
    if (error instanceof AuditUserError) {
      process.stderr.write(`vigil: ${error.message} (${error.field})\n`);
      return EXIT_FAILURE;
    }
    if (error instanceof ConsoleApiError && error.status >= 400 && error.status < 500) {
      process.stderr.write(`vigil: ${error.description}${error.field ? ` (${error.field})` : ''}\n`);
      return EXIT_FAILURE;
    }
    throw error;
  }
}
