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
import { httpsServerOptions, slowClientLimits } from './tls/server-options.js';
import { AllowList } from './net/allow-list.js';
import { Listener } from './net/listener.js';
import { buildApiApp } from './api/api-app.js';
import { buildAuditApp } from './audit/audit-app.js';
import { buildConsoleApp, consoleRouteTable } from './console/console-app.js';
import { createLogger, type Logger } from './log/logger.js';
import { AuditStore } from './store/audit-store.js';
import { startIntegrity } from './integrity/integrity-setup.js';
import { startActivityPipeline, type ActivityServices, type ActivityOptions } from './activity-services.js';

// Code outside agent/ that hosts the agent (the tray app in main/) imports this file only
// (test/layers.test.ts); what it needs to name besides startAgent is re-exported here.
export { createLogger, parseLogLevel, type Logger, type LogFields } from './log/logger.js';
export { PortInUseError } from './net/listener.js';
export { AgentAlreadyRunningError } from './config/agent-lock.js';
export { dataPaths, type DataPaths } from './config/data-dir.js';
import type { ChangeRecorder } from './change-log.js';
import { openAuthServices, type AuthServices } from './auth/auth-services.js';
import { systemClock, type Clock } from './auth/lifetimes.js';
import { registerTokenRoute } from './auth/token-router.js';
import { bearerAuth } from './auth/bearer-auth.js';
import { ApiRouter, type RouteInfo } from './api/api-router.js';
import { registerResourceRoutes } from './api/resource-routes.js';
import { registerOpenApiRoute } from './api/openapi-router.js';
import { startResourceServices, type ResourceServices } from './resources/resource-services.js';
import type { ReachabilityOptions } from './resources/agent-reachability.js';
import type { ResourceStatus } from '../shared/agent-resource.js';
import { ensureLocalAgentId, LocalAgent } from './api/local-agent.js';
import { ConsoleToken } from './console/console-token.js';
import { ConsoleSessions } from './console/console-sessions.js';
import { buildClientsRouter } from './console/clients-router.js';
import { buildDiagnosticsRouter } from './console/diagnostics-router.js';
import { EventLoopMonitor } from './status/event-loop-monitor.js';
import { buildStatusRouter } from './console/status-router.js';
import { buildMonitoringRouter } from './console/monitoring-router.js';
import { buildAuditUsersRouter } from './console/audit-users-router.js';
import { buildSettingsRouter } from './console/settings-router.js';
import { buildLogFilesRouter } from './console/log-files-router.js';
import { buildActivityRouter } from './console/activity-router.js';
import { EditableSettingsService } from './config/editable-settings.js';
import { LogFileViewer } from './outputs/log-file-viewer.js';
import { AuditReader } from './store/audit-reader.js';
import { AuditWriter } from './store/audit-writer.js';
import { SearchIndex } from './store/search-index.js';
import { MarkCodec } from './audit/continuation-mark.js';
import { AuditService } from './audit/audit-service.js';
import { BodyParsePool } from './audit/body-parse-pool.js';
import { TurnQueue } from './util/turn-queue.js';
import { AuditUserService } from './users/audit-user-service.js';
import { platformGroups, type GroupResolver } from './platform/local-groups.js';
import type { MonitoringControl } from './monitor/monitoring-control.js';

/** The console is for the person at this machine: loopback only, never a setting (DESIGN.md §1). */
export const CONSOLE_HOST = '127.0.0.1';

export interface AgentOptions {
  dataDir: string;
  /** Port overrides from the command line; they win over the settings file and are not saved. */
  ports?: { api?: number | undefined; audit?: number | undefined; console?: number | undefined };
  log?: Logger;
  version?: string;
  /**
   * Home folder whose user folders the first-run host watches (default: the account's home).
   * Tests give a temporary folder so they never watch a real home.
   */
  firstRunHome?: string;
  /** Tuning for tests and benchmarks (watcher timings, maintenance interval). */
  activity?: ActivityOptions;
  /** The clock of every credential lifetime; tests move it to check 72 h / 7 d / never. */
  now?: Clock;
  /** Where configuration changes are reported (DESIGN.md §6); the activity pipeline plugs in here. */
  changeRecorder?: ChangeRecorder;
  /** auth.db durability; FULL unless a benchmark or test chooses otherwise. */
  tokenSync?: 'FULL' | 'NORMAL';
  /** Where InGroup/NotInGroup look up local groups (default: the platform's; tests pass files). */
  localGroups?: GroupResolver;
  /** How long an audit search works before it yields to the event loop (default 5 ms; tests use 0). */
  auditStepMs?: number;
  /** Timing of the registered agents' reachability checks (tests shorten them). */
  agentChecks?: ReachabilityOptions;
  /** How long a client may take to send its request headers (default 10 s; tests shorten it). */
  headersTimeoutMs?: number;
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
  /** The audit store (activity records), open for the agent's lifetime. */
  readonly store: AuditStore;
  /** Pipeline, self-audit recorder, monitoring, outputs, status and log files (issue 5). */
  readonly activity: ActivityServices;
  /** Client applications and tokens (agent/auth/). */
  readonly auth: AuthServices;
  /**
   * Pause/resume of file monitoring, today's record count, the current issue and change events:
   * the capability the tray app looks for (docs/tray.md, main/agent-status.ts).
   */
  readonly monitoring: MonitoringControl;
  /** The local agent's stable id (settings `agent.id`). */
  readonly agentId: string;
  /** Hosts, outputs, agents, domains and policies: the services the agent API changes them with. */
  readonly resources: ResourceServices;
  /** Every route of the agent API (the token endpoint included), as registered. */
  readonly apiRoutes: readonly RouteInfo[];
  /** Every route of the console API, as registered (all behind its guard). */
  readonly consoleRoutes: readonly RouteInfo[];
  urls(): AgentUrls;
  /** Closes listeners, then stores. Safe to call twice. */
  stop(): Promise<void>;
}

export async function startAgent(options: AgentOptions): Promise<RunningAgent> {
  const log = options.log ?? createLogger();
  const startedAt = Date.now();
  const paths = dataPaths(options.dataDir);
  await fs.mkdir(paths.root, { recursive: true, mode: 0o700 });
  const firstRun = !(await fs.stat(paths.settings).catch(() => null));
  const settings = await SettingsStore.open(paths.settings);
  const lock = await AgentLock.acquire(paths.lockFile, paths.root);
  const cleanups: Array<() => Promise<void>> = [() => lock.release(), () => settings.close()];
  const runCleanups = async (): Promise<void> => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      await cleanup().catch((error: Error) => log.error('shutdown step failed', { error: error.message }));
    }
  };

  try {
    const store = AuditStore.open({ file: paths.auditDb, backgroundCheckpoints: true });
    cleanups.push(async () => store.close());
    const integrity = await startIntegrity(store, paths, log.child('integrity'));
    cleanups.push(async () => integrity.stop());
    const activity = await startActivityPipeline({
      recordDeletion: integrity.checkpoints.recordRetention,
      settings,
      store,
      paths,
      log,
      firstRun,
      ...(options.firstRunHome !== undefined ? { firstRunHome: options.firstRunHome } : {}),
      ...(options.activity ? { options: options.activity } : {}),
      ...(options.changeRecorder ? { changeRecorder: options.changeRecorder } : {}),
    });
    cleanups.push(() => activity.stop());

    const identity = await loadOrCreateIdentity(paths, log.child('tls'));
    const allowList = new AllowList(settings.current.allowList);
    if (allowList.current.length === 0) log.warn('the allow-list is empty: no client can reach the agent or audit API');

    const now = options.now ?? systemClock;
    const agentId = await ensureLocalAgentId(settings);
    const auth = await openAuthServices({
      paths,
      settings,
      recorder: options.changeRecorder ?? activity.changeRecorder,
      now,
      log: log.child('auth'),
      ...(options.tokenSync ? { synchronous: options.tokenSync } : {}),
    });
    cleanups.push(async () => auth.close());
    const purge = (): void => {
      try {
        auth.tokens.purge();
      } catch (error) {
        log.warn('token housekeeping failed', { error: (error as Error).message });
      }
    };
    purge();
    const purgeTimer = setInterval(purge, 3600_000);
    purgeTimer.unref();
    cleanups.push(async () => clearInterval(purgeTimer));
    const consoleToken = await ConsoleToken.issue(paths.consoleToken);
    // A stopped agent leaves no usable token behind (a crash leaves one that the next start replaces).
    cleanups.push(() => fs.rm(paths.consoleToken, { force: true }));
    const sessions = new ConsoleSessions(now);
    let bound: { api: number; console: number } = { api: 0, console: 0 };

    const index = SearchIndex.start({
      audit: paths.auditDb,
      search: paths.auditSearchDb,
      log: log.child('search-index'),
    });
    cleanups.push(() => index.stop());
    // One scheduler for all stepwise work of the audit API and the console's searches.
    const turns = new TurnQueue();
    const reader = new AuditReader({
      turns,
      file: paths.auditDb,
      searchFile: paths.auditSearchDb,
      ...(options.auditStepMs !== undefined ? { stepMs: options.auditStepMs } : {}),
    });
    cleanups.push(async () => reader.close(true));
    const parsePool = new BodyParsePool();
    cleanups.push(() => parsePool.close());
    const recorder = options.changeRecorder ?? activity.changeRecorder;
    const users = new AuditUserService(settings, { recorder });
    cleanups.push(async () => users.close());
    const marks = await MarkCodec.load(paths.secrets);
    const writer = new AuditWriter(paths.auditDb);
    cleanups.push(() => writer.close());
    const auditService = new AuditService({
      reader,
      writer,
      marks,
      groups: options.localGroups ?? platformGroups(),
      index,
      committed: (records) => activity.pipeline.committedElsewhere(records),
    });

    const s = settings.current;
    const startedIso = new Date(startedAt).toISOString();
    let agentStatus: ResourceStatus = { updatedAt: startedIso, type: 'OK', summary: 'Running', details: '' };
    const localStatus = (): ResourceStatus => {
      // The same object while nothing changes: the agent's views are cached until it does.
      const problem = activity.writeProblem();
      const summary = problem === null ? 'Running' : 'Activity records cannot be stored';
      if (agentStatus.summary !== summary || agentStatus.details !== (problem ?? '')) {
        agentStatus = {
          updatedAt: new Date().toISOString(),
          type: problem === null ? 'OK' : 'Error',
          summary,
          details: problem ?? '',
        };
      }
      return agentStatus;
    };
    const localAgent = new LocalAgent({
      settings,
      version: options.version ?? '0.0.0',
      apiPort: () => bound.api,
      consoleUrl: () => `http://${CONSOLE_HOST}:${bound.console}/`,
      status: localStatus,
      signingKey: { publicKey: integrity.key.publicKeyPem, fingerprint: integrity.key.fingerprint },
    });
    const resources = startResourceServices({
      settings,
      recorder: options.changeRecorder ?? activity.changeRecorder,
      log,
      ...(options.agentChecks ? { reachability: options.agentChecks } : {}),
    });
    cleanups.push(() => resources.reachability.stop());
    const publicRoutes = new ApiRouter();
    registerTokenRoute(publicRoutes, { clients: auth.clients, tokens: auth.tokens, log: log.child('token') });
    const routes = new ApiRouter();
    registerOpenApiRoute(routes, { version: options.version ?? '0.0.0', apiPort: () => bound.api });
    registerResourceRoutes(routes, {
      localAgent,
      ...resources,
      logFiles: activity.logFiles,
      status: activity.status,
      startedAt: startedIso,
    });
    const apiApp = buildApiApp({
      log: log.child('api'),
      publicRoutes,
      authenticate: bearerAuth({ tokens: auth.tokens, clients: auth.clients }),
      routes,
    });
    const auditApp = buildAuditApp({
      log: log.child('audit'),
      vendor: () => settings.current.auditApi.vendor,
      users,
      service: auditService,
      reader,
      parsePool,
      turns,
    });
    const eventLoop = new EventLoopMonitor();
    cleanups.push(async () => eventLoop.stop());
    let currentUrls = (): AgentUrls => ({ apiUrl: '', auditUrl: '', consoleUrl: '' });
    let ports = { api: 0, audit: 0, console: 0 };
    // Ends the console's event streams (live feed, log follow) before the listener closes.
    const consoleShutdown = new AbortController();
    const viewer = new LogFileViewer(activity.logFiles, paths.logViewCache);
    await viewer.start();
    cleanups.push(() => viewer.close());
    const editableSettings = new EditableSettingsService(
      settings,
      () => ({ agentApiPort: ports.api, auditApiPort: ports.audit, consolePort: ports.console }),
      recorder,
    );
    const consoleApp = buildConsoleApp({
      log: log.child('console'),
      token: consoleToken,
      sessions,
      port: () => bound.console,
      routers: [
        buildStatusRouter({
          version: options.version ?? null,
          startedAt,
          certificateSha256: () => identity.fingerprint256,
          urls: () => currentUrls(),
          settings,
          status: activity.status,
          monitoring: activity.monitoring,
          signingKeySha256: integrity.key.fingerprint,
        }),
        buildMonitoringRouter({
          hosts: resources.hosts,
          outputs: resources.outputs,
          settings,
          status: activity.status,
        }),
        buildClientsRouter(auth.clients),
        buildDiagnosticsRouter(eventLoop),
        buildAuditUsersRouter(users),
        buildSettingsRouter(editableSettings),
        buildLogFilesRouter({
          files: activity.logFiles,
          viewer,
          feed: activity.feed,
          shutdown: consoleShutdown.signal,
        }),
        buildActivityRouter({
          service: auditService,
          reader,
          feed: activity.feed,
          shutdown: consoleShutdown.signal,
        }),
      ],
    });

    const limits = slowClientLimits(options.headersTimeoutMs);
    const tls = httpsServerOptions(identity, limits);
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
          server: http.createServer({ ...limits, keepAliveTimeout: 5_000 }, consoleApp.callback()),
        },
        log,
      ),
    };
    for (const listener of Object.values(listeners)) {
      await listener.start();
      cleanups.push(() => listener.stop());
    }
    const unsubscribe = settings.onChange((next, previous) => {
      if (JSON.stringify(next.allowList) === JSON.stringify(previous.allowList)) return;
      allowList.replace(next.allowList);
      listeners.api.revalidate();
      listeners.audit.revalidate();
    });
    cleanups.push(async () => unsubscribe());

    cleanups.push(async () => consoleShutdown.abort());
    ports = { api: listeners.api.port, audit: listeners.audit.port, console: listeners.console.port };
    bound = { api: ports.api, console: ports.console };
    currentUrls = (): AgentUrls => ({
      apiUrl: `https://127.0.0.1:${ports.api}`,
      auditUrl: `https://127.0.0.1:${ports.audit}/${settings.current.auditApi.vendor}/api/v1`,
      consoleUrl: `http://${CONSOLE_HOST}:${ports.console}/`,
    });
    await lock.write(currentUrls().consoleUrl);
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
      store,
      activity,
      auth,
      monitoring: activity.monitoring,
      agentId,
      resources,
      apiRoutes: [...publicRoutes.routes(), ...routes.routes()],
      consoleRoutes: consoleRouteTable(consoleApp),
      urls: currentUrls,
      stop: () => (stopping ??= runCleanups().then(() => log.info('agent stopped'))),
    };
  } catch (error) {
    await runCleanups();
    throw error;
  }
}
