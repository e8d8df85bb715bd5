/**
 * The agent: settings, TLS identity, the three listeners and (added by later capabilities)
 * the services behind them. It runs the same way headless (`vigil agent`) and inside the
 * Electron main process, and never imports electron (DESIGN.md §1–2).
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { dataPaths, type DataPaths } from './config/data-dir.js';
import { SettingsStore } from './config/settings-store.js';
import { AgentLock } from './config/agent-lock.js';
import { loadOrCreateIdentity, type TlsIdentity } from './tls/certificate.js';
import { httpsServerOptions } from './tls/server-options.js';
import { AllowList } from './net/allow-list.js';
import { Listener } from './net/listener.js';
import { buildApiApp } from './api/api-app.js';
import { buildAuditApp } from './audit/audit-app.js';
import { buildConsoleApp } from './console/console-app.js';
import { createLogger, type Logger } from './log/logger.js';
import { AuditStore } from './store/audit-store.js';
import { AuditReader } from './store/audit-reader.js';
import { SearchIndex } from './store/search-index.js';
import { RecordJsonPool } from './store/record-json-pool.js';
import { MarkCodec } from './audit/continuation-mark.js';
import { AuditService } from './audit/audit-service.js';
import { BodyParsePool } from './audit/body-parse-pool.js';
import { AuditUserService } from './users/audit-user-service.js';
import { platformGroups, type GroupResolver } from './platform/local-groups.js';

/** The console is for the person at this machine: loopback only, never a setting (DESIGN.md §1). */
export const CONSOLE_HOST = '127.0.0.1';

export interface AgentOptions {
  dataDir: string;
  /** Port overrides from the command line; they win over the settings file and are not saved. */
  ports?: { api?: number | undefined; audit?: number | undefined; console?: number | undefined };
  log?: Logger;
  version?: string;
  /** Where InGroup/NotInGroup look up local groups (default: the platform's; tests pass files). */
  localGroups?: GroupResolver;
  /** How long an audit search works before it yields to the event loop (default 8 ms; tests use 0). */
  auditStepMs?: number;
}

export interface AgentUrls {
  apiUrl: string;
  auditUrl: string;
  consoleUrl: string;
}

export interface RunningAgent {
  readonly dataDir: string;
  readonly paths: DataPaths;
  readonly settings: SettingsStore;
  readonly identity: TlsIdentity;
  readonly allowList: AllowList;
  /** The audit database, its substring index and the audit API's users. */
  readonly audit: { store: AuditStore; index: SearchIndex; users: AuditUserService };
  readonly ports: { api: number; audit: number; console: number };
  urls(): AgentUrls;
  /** Closes listeners, then stores. Safe to call twice. */
  stop(): Promise<void>;
}

export async function startAgent(options: AgentOptions): Promise<RunningAgent> {
  const log = options.log ?? createLogger();
  const startedAt = Date.now();
  const paths = dataPaths(options.dataDir);
  await fs.mkdir(paths.root, { recursive: true, mode: 0o700 });
  const settings = await SettingsStore.open(paths.settings);
  const lock = await AgentLock.acquire(paths.lockFile, paths.root);
  const cleanups: Array<() => Promise<void>> = [() => lock.release(), () => settings.close()];
  const runCleanups = async (): Promise<void> => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      await cleanup().catch((error: Error) => log.error('shutdown step failed', { error: error.message }));
    }
  };

  try {
    const identity = await loadOrCreateIdentity(paths, log.child('tls'));
    const allowList = new AllowList(settings.current.allowList);
    const unsubscribe = settings.onChange((next) => allowList.replace(next.allowList));
    cleanups.push(async () => unsubscribe());

    const store = AuditStore.open({ file: paths.auditDb });
    cleanups.push(async () => store.close());
    const index = SearchIndex.start({
      audit: paths.auditDb,
      search: paths.auditSearchDb,
      log: log.child('search-index'),
    });
    cleanups.push(() => index.stop());
    const reader = new AuditReader({
      file: paths.auditDb,
      searchFile: paths.auditSearchDb,
      ...(options.auditStepMs !== undefined ? { stepMs: options.auditStepMs } : {}),
    });
    cleanups.push(async () => reader.close(true));
    const recordPool = new RecordJsonPool(paths.auditDb);
    cleanups.push(() => recordPool.close());
    const parsePool = new BodyParsePool();
    cleanups.push(() => parsePool.close());
    const users = new AuditUserService(settings);
    cleanups.push(async () => users.close());
    const marks = await MarkCodec.load(paths.secrets);
    const auditService = new AuditService({
      reader,
      store,
      marks,
      groups: options.localGroups ?? platformGroups(),
      index,
    });

    const s = settings.current;
    const apiApp = buildApiApp({ log: log.child('api') });
    const auditApp = buildAuditApp({
      log: log.child('audit'),
      vendor: () => settings.current.auditApi.vendor,
      users,
      service: auditService,
      reader,
      recordPool,
      parsePool,
    });
    let urls: AgentUrls | null = null;
    const consoleApp = buildConsoleApp({
      log: log.child('console'),
      status: () => ({
        version: options.version ?? null,
        uptimeSeconds: Math.round((Date.now() - startedAt) / 1000),
        certificateSha256: identity.fingerprint256,
        ...urls,
      }),
    });

    const tls = httpsServerOptions(identity);
    const admit = (address: string | undefined): boolean => allowList.allows(address);
    const listeners = {
      api: new Listener(
        {
          name: 'agent API',
          host: s.agentApi.bindAddress,
          port: options.ports?.api ?? s.agentApi.port,
          setting: 'agentApi.port',
          flag: '--api-port',
          server: https.createServer(tls, apiApp.callback()),
          admit,
        },
        log,
      ),
      audit: new Listener(
        {
          name: 'audit API',
          host: s.auditApi.bindAddress,
          port: options.ports?.audit ?? s.auditApi.port,
          setting: 'auditApi.port',
          flag: '--audit-port',
          server: https.createServer(tls, auditApp.callback()),
          admit,
        },
        log,
      ),
      console: new Listener(
        {
          name: 'console',
          host: CONSOLE_HOST,
          port: options.ports?.console ?? s.console.port,
          setting: 'console.port',
          flag: '--console-port',
          server: http.createServer({ headersTimeout: 10_000, requestTimeout: 60_000 }, consoleApp.callback()),
        },
        log,
      ),
    };
    for (const listener of Object.values(listeners)) {
      await listener.start();
      cleanups.push(() => listener.stop());
    }

    const ports = { api: listeners.api.port, audit: listeners.audit.port, console: listeners.console.port };
    const currentUrls = (): AgentUrls => ({
      apiUrl: `https://127.0.0.1:${ports.api}`,
      auditUrl: `https://127.0.0.1:${ports.audit}/${settings.current.auditApi.vendor}/api/v1`,
      consoleUrl: `http://${CONSOLE_HOST}:${ports.console}/`,
    });
    urls = currentUrls();
    await lock.write(urls.consoleUrl);
    log.info('agent started', { dataDir: paths.root, certificateSha256: identity.fingerprint256 });

    let stopping: Promise<void> | null = null;
    return {
      dataDir: paths.root,
      paths,
      settings,
      identity,
      allowList,
      audit: { store, index, users },
      ports,
      urls: currentUrls,
      stop: () => (stopping ??= runCleanups().then(() => log.info('agent stopped'))),
    };
  } catch (error) {
    await runCleanups();
    throw error;
  }
}
