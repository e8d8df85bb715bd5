/**
 * The plumbing every admin command shares (`vigil client …`, later `vigil user …`), docs/authentication.md:
 * - an agent runs on the data dir (agent.lock names a live pid and the console URL): once the
 *   program there proves it holds the console token (verify-console.ts), the command goes
 *   through the console API with that token, so the change takes effect at once and the agent
 *   stays the only writer of settings.json;
 * - no agent runs: the command takes the agent lock itself (so no agent can start in the
 *   middle), opens the data dir's files directly, and releases the lock when done.
 */
import { CONSOLE_ACTOR_HEADER, type ConsoleErrorBody } from '../../shared/console-api.js';
import type { ChangeRecorder } from '../pipeline/change-recorder.js';
import { AgentAlreadyRunningError, AgentLock, readLock } from '../config/agent-lock.js';
import { dataPaths, type DataPaths } from '../config/data-dir.js';
import { restrictDatabaseFiles, restrictNewFiles, secureDataDir } from '../config/data-dir-permissions.js';
import { SettingsStore } from '../config/settings-store.js';
import { readConsoleToken } from '../console/console-token.js';
import { offlineChangeRecorder } from './offline-change-recorder.js';
import { verifyConsoleIdentity } from './verify-console.js';
import { createLogger, parseLogLevel, type Logger } from '../log/logger.js';

/** An answer of the console API other than 2xx, with its JSON error body. */
export class ConsoleApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly description: string,
    readonly field?: string,
  ) {
    super(description);
    this.name = 'ConsoleApiError';
  }
}

/** The running agent cannot be reached or refused the console token: exit code 1. */
export class AgentUnreachableError extends Error {
  override name = 'AgentUnreachableError';
}

export interface ConsoleApi {
  readonly consoleUrl: string;
  request<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T>;
}

export interface OfflineContext {
  dataDir: string;
  paths: DataPaths;
  settings: SettingsStore;
  /**
   * Where offline changes are reported (docs/activity-pipeline.md): see offline-change-recorder.ts.
   */
  recorder: ChangeRecorder;
  log: Logger;
}

export interface AdminHandlers<T> {
  online(api: ConsoleApi): Promise<T>;
  offline(context: OfflineContext): Promise<T>;
}

/** How long to wait for an agent that is starting, or another command holding the lock. */
const LOCK_WAIT_MS = 15_000;
const POLL_MS = 100;

/** Logs go to stderr and stay quiet unless VIGIL_LOG_LEVEL asks for more (stdout is JSON). */
export function cliLogger(): Logger {
  return createLogger({ level: parseLogLevel(process.env['VIGIL_LOG_LEVEL'] ?? 'warn') });
}

function consoleApi(consoleUrl: string, token: string): ConsoleApi {
  return {
    consoleUrl,
    async request<T>(method: string, path: string, body?: unknown): Promise<T> {
      let response: Response;
      try {
        response = await fetch(new URL(path, consoleUrl), {
          method,
          headers: {
            Authorization: `Bearer ${token}`,
            [CONSOLE_ACTOR_HEADER]: 'cli',
            ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(15_000),
        });
      } catch (error) {
        throw new AgentUnreachableError(
          `the agent's console at ${consoleUrl} cannot be reached (${(error as Error).message})`,
        );
      }
      const text = await response.text();
      const json = text === '' ? undefined : (JSON.parse(text) as unknown);
      if (response.ok) return json as T;
      const error = (json ?? {}) as Partial<ConsoleErrorBody>;
      if (response.status === 401) {
        throw new AgentUnreachableError('the agent refused the console token; was the agent restarted? Try again.');
      }
      throw new ConsoleApiError(
        response.status,
        error.error ?? 'error',
        error.error_description ?? `the console answered ${response.status}`,
        error.field,
      );
    },
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `handlers.online` against the running agent, or `handlers.offline` on the data dir while
 * holding the agent lock. Waits (bounded) for an agent that is still starting or another admin
 * command that holds the lock.
 */
export async function withAdminTarget<T>(dataDir: string, handlers: AdminHandlers<T>): Promise<T> {
  const paths = dataPaths(dataDir);
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    const lock = await readLock(paths.lockFile);
    if (lock && (lock.holder ?? 'agent') === 'agent' && lock.consoleUrl) {
      const token = await readConsoleToken(paths.consoleToken).catch(() => {
        throw new AgentUnreachableError(`the console token file ${paths.consoleToken} cannot be read`);
      });
      // Nothing leaves for the console URL before the program there proves who it is.
      await verifyConsoleIdentity(lock.consoleUrl, token, paths.lockFile);
      return handlers.online(consoleApi(lock.consoleUrl, token));
    }
    if (!lock) {
      try {
        return await runOffline(dataDir, paths, handlers);
      } catch (error) {
        if (!(error instanceof AgentAlreadyRunningError)) throw error;
        // Someone took the lock between our look and our grab: look again.
      }
    }
    if (Date.now() > deadline) {
      throw new AgentUnreachableError(
        lock?.holder === 'cli'
          ? `another vigil command (pid ${lock.pid}) holds the data directory ${dataDir}`
          : `the agent (pid ${lock?.pid ?? '?'}) on ${dataDir} did not finish starting`,
      );
    }
    await sleep(POLL_MS);
  }
}

async function runOffline<T>(dataDir: string, paths: DataPaths, handlers: AdminHandlers<T>): Promise<T> {
  restrictNewFiles();
  await secureDataDir(paths.root, cliLogger());
  await restrictDatabaseFiles(paths.root);
  const lock = await AgentLock.acquire(paths.lockFile, dataDir, 'cli');
  try {
    const settings = await SettingsStore.open(paths.settings);
    const log = cliLogger();
    const recorder = offlineChangeRecorder(paths, log);
    try {
      return await handlers.offline({ dataDir, paths, settings, recorder, log });
    } finally {
      recorder.close();
      await settings.close();
    }
  } finally {
    await lock.release();
  }
}
