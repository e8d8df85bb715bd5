/**
 * `vigil domain add|list|remove`: directory domains (docs/directory.md). The bind password comes
 * only from standard input (`--password-stdin`), never from the command line, and is never
 * printed: `add` prints the domain as JSON with its `id`.
 *
 * Like `vigil user`: while an agent runs on the data directory the command goes through its
 * console API (shared/console-api.ts `ConsoleDomainPaths`), so the change takes effect at once;
 * while none runs it takes the agent lock and changes settings.json (and secrets/) itself. Either
 * way the change is recorded as made by the CLI.
 */
import fs from 'node:fs/promises';
import { parseArgs } from 'node:util';
import {
  ConsoleDomainPaths,
  type DomainRequest,
  type DomainSummary,
  type RemovedDomainResponse,
} from '../../shared/console-api.js';
import type { DomainSettings } from '../config/directory-schema.js';
import { dataPaths, resolveDataDir } from '../config/data-dir.js';
import { DomainPasswords } from '../config/domain-passwords.js';
import { DomainService } from '../resources/domain-service.js';
import { domainSummary } from '../resources/domain-summary.js';
import { ServiceError } from '../util/service-error.js';
import { SettingsValidationError } from '../config/settings-store.js';
import { ConsoleApiError, withAdminTarget, type ConsoleApi, type OfflineContext } from './admin-client.js';
import { DOMAIN_USAGE } from './domain-usage.js';
import { EXIT_FAILURE, EXIT_OK, UsageError } from './usage-error.js';
import { readPasswordStdin, printJson } from './cli-io.js';

type Action = 'add' | 'list' | 'remove';
const ACTIONS: readonly Action[] = ['add', 'list', 'remove'];
const ACTOR = 'cli';

/** The domain as the console API shows it, from the settings (no status while no agent runs). */
async function summaryOf(
  domain: DomainSettings,
  context: OfflineContext,
  service: DomainService,
): Promise<DomainSummary> {
  const hasPassword = await service.hasPassword(domain.id);
  return domainSummary(domain, { policies: context.settings.current.policies, hasPassword, status: null });
}

function parse(rest: string[]): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  try {
    return parseArgs({
      args: rest,
      options: {
        name: { type: 'string' },
        server: { type: 'string' },
        'bind-dn': { type: 'string' },
        'base-dn': { type: 'string' },
        'polling-interval': { type: 'string' },
        tls: { type: 'string' },
        'ca-file': { type: 'string' },
        'password-stdin': { type: 'boolean' },
        'data-dir': { type: 'string' },
      },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\nusage: ${DOMAIN_USAGE}`);
  }
}

function requestFrom(values: Record<string, string | boolean | undefined>): Omit<DomainRequest, 'password'> {
  for (const flag of ['name', 'server', 'bind-dn']) {
    if (typeof values[flag] !== 'string') throw new UsageError(`--${flag} is required\nusage: ${DOMAIN_USAGE}`);
  }
  if (!values['password-stdin']) {
    throw new UsageError('give the bind password on standard input with --password-stdin (never on the command line)');
  }
  const request: Omit<DomainRequest, 'password'> = {
    name: values['name'] as string,
    ldapServer: values['server'] as string,
    userName: values['bind-dn'] as string,
  };
  if (typeof values['base-dn'] === 'string') request.baseDn = values['base-dn'];
  if (typeof values['polling-interval'] === 'string') {
    const seconds = Number(values['polling-interval']);
    if (!Number.isInteger(seconds) || seconds < 1)
      throw new UsageError('--polling-interval must be a whole number of seconds, at least 1');
    request.pollingIntervalSeconds = seconds;
  }
  if (typeof values['tls'] === 'string') {
    if (values['tls'] !== 'starttls' && values['tls'] !== 'none')
      throw new UsageError('--tls must be starttls or none');
    request.tls = values['tls'];
  }
  if (typeof values['ca-file'] === 'string') request.caFile = values['ca-file'];
  return request;
}

export async function runDomainCommand(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  if (!ACTIONS.includes(action as Action)) {
    throw new UsageError(
      `${action ? `unknown domain command "${action}"` : 'missing domain command'}\nusage: ${DOMAIN_USAGE}`,
    );
  }
  const { values, positionals } = parse(rest);
  const paths = dataPaths(resolveDataDir({ flag: values['data-dir'] as string | undefined }));
  if (action === 'remove' && positionals.length !== 1)
    throw new UsageError(`give the domain's id\nusage: ${DOMAIN_USAGE}`);
  if (action !== 'remove' && positionals.length > 0)
    throw new UsageError(`unexpected "${positionals[0]}"\nusage: ${DOMAIN_USAGE}`);

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
  const request = action === 'add' ? { ...requestFrom(values), password: await readPasswordStdin() } : null;
  const id = positionals[0] ?? '';
  const online = (api: ConsoleApi): Promise<unknown> => {
    if (action === 'add') return api.request<DomainSummary>('POST', ConsoleDomainPaths.domains, request);
    if (action === 'list') return api.request<DomainSummary[]>('GET', ConsoleDomainPaths.domains);
    return api.request<RemovedDomainResponse>('DELETE', ConsoleDomainPaths.domain(id));
  };
  const offline = async (context: OfflineContext): Promise<unknown> => {
    const service = new DomainService({
      settings: context.settings,
      recorder: context.recorder,
      passwords: new DomainPasswords(context.paths.domainPasswords),
    });
    if (action === 'add') {
      const { isEnabled, ...fields } = request!;
      const domain = await service.add(
        { ...fields, ...(isEnabled !== undefined ? { enabled: isEnabled } : {}) },
        ACTOR,
      );
      return summaryOf(domain, context, service);
    }
    if (action === 'list') return Promise.all(service.list().map((d) => summaryOf(d, context, service)));
    await service.remove(id, ACTOR);
    return { id, removed: true } satisfies RemovedDomainResponse;
  };

  try {
    printJson(await withAdminTarget(paths.root, { online, offline }));
    return EXIT_OK;
  } catch (error) {
    if (error instanceof ServiceError) {
      process.stderr.write(`vigil: ${error.message}${error.field ? ` (${error.field})` : ''}\n`);
      return EXIT_FAILURE;
    }
    if (error instanceof SettingsValidationError) {
      process.stderr.write(`vigil: ${error.message}\n`);
      return EXIT_FAILURE;
    }
    if (error instanceof ConsoleApiError && error.status >= 400 && error.status < 500) {
      process.stderr.write(`vigil: ${error.description}${error.field ? ` (${error.field})` : ''}\n`);
      return EXIT_FAILURE;
    }
    throw error;
  }
}
