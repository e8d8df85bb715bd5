/**
 * Entry point of the `vigil` command. Dispatches to one module per command; usage mistakes
 * exit 2 with a one-line message, failures exit 1 with the reason, never a stack trace for an
 * expected failure (port in use, unusable settings file).
 */
import { AGENT_USAGE } from './agent-usage.js';
import { USER_USAGE } from './user-usage.js';
import { DOMAIN_USAGE } from './domain-usage.js';
import { runClientCommand, CLIENT_USAGE } from './client-command.js';
import { runConsoleCommand, CONSOLE_USAGE } from './console-command.js';
import { AgentUnreachableError } from './admin-client.js';
import { ConsoleIdentityError } from './verify-console.js';
import { DataDirOwnerError } from '../config/data-dir-permissions.js';
import { packageVersion } from './package-info.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError } from './usage-error.js';
import { SettingsFileError } from '../config/settings-store.js';
import { PortInUseError } from '../net/listener.js';
import { AgentAlreadyRunningError } from '../config/agent-lock.js';
import { DatabaseOpenError } from '../store/database-open-error.js';
import { TokenStoreVersionError } from '../auth/token-store.js';

type Command = (argv: string[]) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  // Loaded on demand: `vigil user list` need not load the whole agent (HTTPS, SQLite, XML).
  agent: async (argv) => (await import('./agent-command.js')).runAgentCommand(argv),
  user: async (argv) => (await import('./user-command.js')).runUserCommand(argv),
  domain: async (argv) => (await import('./domain-command.js')).runDomainCommand(argv),
  client: runClientCommand,
  console: runConsoleCommand,
  verify: async (argv) => (await import('./verify-command.js')).runVerifyCommand(argv),
  fleet: async (argv) => (await import('./fleet-command.js')).runFleetCommand(argv),
};

const USAGE = `usage:
  ${AGENT_USAGE}
  ${CLIENT_USAGE}
  ${CONSOLE_USAGE}
  ${USER_USAGE}
  ${DOMAIN_USAGE}
  vigil verify [--data-dir DIR] [--logs FOLDER] [--public-key FILE.pem] | --fleet [--data-dir DIR]
  vigil fleet join URL [--password-stdin] | leave | status [--data-dir DIR]
  vigil --version`;

/** Failures the operator can fix: printed as one line, no stack trace. */
function isExpected(error: unknown): error is Error {
  return (
    error instanceof SettingsFileError ||
    error instanceof PortInUseError ||
    error instanceof AgentAlreadyRunningError ||
    error instanceof AgentUnreachableError ||
    error instanceof ConsoleIdentityError ||
    error instanceof DataDirOwnerError ||
    error instanceof DatabaseOpenError ||
    error instanceof TokenStoreVersionError
  );
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === 'version') {
    process.stdout.write(packageVersion() + '\n');
    return EXIT_OK;
  }
  if (name === undefined || name === '--help' || name === 'help') {
    process.stdout.write(USAGE + '\n');
    return name === undefined ? EXIT_USAGE : EXIT_OK;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined; // not `constructor` & co.
  try {
    if (!command) throw new UsageError(`unknown command "${name}"\n${USAGE}`);
    return await command(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`vigil: ${error.message}\n`);
      return EXIT_USAGE;
    }
    if (isExpected(error)) {
      process.stderr.write(`vigil: ${error.message}\n`);
      return EXIT_FAILURE;
    }
    process.stderr.write(`vigil: unexpected failure: ${(error as Error)?.stack ?? String(error)}\n`);
    return EXIT_FAILURE;
  }
}
