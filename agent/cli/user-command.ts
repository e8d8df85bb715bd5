/**
 * `vigil user add|list|remove|set-password`: audit API users (DESIGN.md §3, §5).
 *
 * Passwords come only from standard input (`--password-stdin`), never from the command line,
 * where other users could read them in the process list.
 *
 * While no agent runs on the data directory, the command takes the agent lock and changes
 * settings.json itself (the lock keeps an agent from starting meanwhile: one writer per file).
 * While an agent runs, changes must go through its console API so they take effect at once;
 * until that path exists the command says so and changes nothing.
 */
import fs from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { AgentAlreadyRunningError, AgentLock } from '../config/agent-lock.js';
import { dataPaths, resolveDataDir } from '../config/data-dir.js';
import { SettingsStore } from '../config/settings-store.js';
import { AuditUserError, AuditUserService } from '../users/audit-user-service.js';
import { EXIT_FAILURE, EXIT_OK, UsageError } from './usage-error.js';
import { USER_USAGE } from './user-usage.js';

type Action = 'add' | 'list' | 'remove' | 'set-password';
const ACTIONS: readonly Action[] = ['add', 'list', 'remove', 'set-password'];

async function readPassword(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) chunks.push(chunk);
  // One trailing line break is what `echo` and here-strings add; it is not part of the password.
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

const print = (value: unknown): void => void process.stdout.write(JSON.stringify(value, null, 2) + '\n');

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
  if (needsName && !values.name) throw new UsageError(`--name is required\nusage: ${USER_USAGE}`);
  if (action === 'add' && !values.role?.length)
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
      print([]);
      return EXIT_OK;
    }
  }
  const password = needsPassword ? await readPassword() : '';

  await fs.mkdir(paths.root, { recursive: true, mode: 0o700 });
  let lock: AgentLock;
  try {
    lock = await AgentLock.acquire(paths.lockFile, paths.root);
  } catch (error) {
    if (error instanceof AgentAlreadyRunningError) {
      process.stderr.write(
        `vigil: a Vigil agent (pid ${error.pid}) is running on ${paths.root}. While it runs, audit users are ` +
          `changed through its console API, which this version of the command cannot use yet: stop the agent, ` +
          `run the command again, then start the agent.\n`,
      );
      return EXIT_FAILURE;
    }
    throw error;
  }
  const settings = await SettingsStore.open(paths.settings).catch(async (error: unknown) => {
    await lock.release();
    throw error;
  });
  const users = new AuditUserService(settings);
  try {
    const name = values.name ?? '';
    const roles = (values.role ?? [])
      .flatMap((r) => r.split(','))
      .map((r) => r.trim())
      .filter(Boolean);
    switch (action as Action) {
      case 'add':
        print(await users.add({ name, roles, password }, 'cli'));
        break;
      case 'list':
        print(users.list());
        break;
      case 'remove':
        await users.remove(name, 'cli');
        print({ removed: name });
        break;
      case 'set-password':
        print(await users.setPassword(name, password, 'cli'));
        break;
    }
    return EXIT_OK;
  } catch (error) {
    if (error instanceof AuditUserError) {
      process.stderr.write(`vigil: ${error.message} (${error.field})\n`);
      return EXIT_FAILURE;
    }
    throw error;
  } finally {
    users.close();
    await settings.close();
    await lock.release();
  }
}
