/**
 * The agent: settings, TLS identity, the three listeners and the services behind them. It runs
 * the same way headless (`vigil agent`) and inside the Electron main process, and never imports
 * electron (docs/architecture.md). Each part is set up in agent/setup/ (activity-setup.ts for file activity) and
 * owns its stop steps; this file puts them together in start-up order.
 */
import type { ActivityOptions, ActivityServices } from './setup/activity-setup.js';
import { startActivityPipeline } from './setup/activity-setup.js';
import type { RouteInfo } from './http/api-router.js';
import type { AuthServices } from './auth/auth-services.js';
import { systemClock, type Clock } from './auth/lifetimes.js';
import type { ChangeRecorder } from './pipeline/change-recorder.js';
import { dataPaths, type DataPaths } from './config/data-dir.js';
import type { SettingsStore } from './config/settings-store.js';
import type { AuditLimits } from './audit/audit-limits.js';
import { createLogger, type Logger } from './log/logger.js';
import type { MonitoringControl } from './monitor/monitoring-control.js';
import type { AlertService } from './alerts/alert-service.js';
import type { AllowList } from './net/allow-list.js';
import type { GroupResolver } from './platform/local-groups.js';
import type { ReachabilityOptions } from './resources/agent-reachability.js';
import { startResourceServices, type ResourceServices } from './resources/resource-services.js';
import { buildAgentApi } from './setup/agent-api-setup.js';
import { buildAuditApi } from './setup/audit-api-setup.js';
import { startAuth } from './setup/auth-setup.js';
import { Cleanups } from './setup/cleanups.js';
import { openDataDir } from './setup/data-dir-setup.js';
import { buildConsole } from './setup/console-setup.js';
import { Endpoints, type AgentUrls, type BoundPorts } from './setup/endpoints.js';
import { startListeners } from './setup/listeners-setup.js';
import { openStores, type AuditStores } from './setup/stores.js';
import type { AuditUserService } from './users/audit-user-service.js';
import { loadOrCreateIdentity, type TlsIdentity } from './tls/certificate.js';
import { startIntegrity } from './integrity/integrity-setup.js';
import { createFleetService, type FleetSetupDeps } from './setup/fleet-setup.js';
import type { FleetService } from './fleet/fleet-service.js';
import { ensureLocalAgentId } from './api/local-agent.js';

// Code outside agent/ that hosts the agent (the tray app in main/) imports this file only
// (test/layers.test.ts); what it needs to name besides startAgent is re-exported here.
export { createLogger, parseLogLevel, type Logger, type LogFields } from './log/logger.js';
export { PortInUseError } from './net/listener.js';
export { AgentAlreadyRunningError } from './config/agent-lock.js';
export { dataPaths, type DataPaths } from './config/data-dir.js';
export { DataDirOwnerError } from './config/data-dir-permissions.js';
export { CONSOLE_HOST, type AgentUrls } from './setup/endpoints.js';

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
  /** Where configuration changes are reported (docs/activity-pipeline.md); the activity pipeline plugs in here. */
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
  /** Caps of open connections on each listener (agent/net/listener.ts has the defaults; tests lower them). */
  connectionLimits?: { maxConnections?: number; maxPerAddress?: number };
  /** Overrides of the audit API's limits (agent/audit/audit-limits.ts; tests make them small). */
  auditLimits?: Partial<AuditLimits>;
  /** Fleet timings (docs/fleet.md; tests shorten the poll, heartbeat and reconnect pacing). */
  fleet?: FleetSetupDeps['tuning'];
}

/** What the tray app (main/) and `vigil agent` use of a running agent. */
export interface RunningAgent {
  readonly dataDir: string;
  readonly paths: DataPaths;
  readonly identity: TlsIdentity;
  /**
   * Pause/resume of file monitoring, today's record count, the current issue and change events:
   * the capability the tray app looks for (docs/tray.md, main/agent-status.ts).
   */
  readonly monitoring: MonitoringControl;
  /** The unacknowledged alerts and their changes, for the tray (docs/alerts.md). */
  readonly alerts: AlertService;
  urls(): AgentUrls;
  /** Closes listeners, then stores. Safe to call twice. */
  stop(): Promise<void>;
}

/** The parts inside a running agent, for tests (test/helpers/test-agent.ts); no product code uses them. */
export interface AgentInternals {
  readonly settings: SettingsStore;
  readonly allowList: AllowList;
  readonly ports: Readonly<BoundPorts>;
  /** The audit database (activity records), its substring index and the audit API's users. */
  readonly store: AuditStores['store'];
  readonly audit: { store: AuditStores['store']; index: AuditStores['index']; users: AuditUserService };
  readonly activity: ActivityServices;
  readonly auth: AuthServices;
  readonly agentId: string;
  readonly resources: ResourceServices;
  /** Every route of the agent API (the token endpoint included), as registered. */
  readonly apiRoutes: readonly RouteInfo[];
  /** Every route of the console API, as registered (all behind its guard). */
  readonly consoleRoutes: readonly RouteInfo[];
  /** Membership of a fleet database (docs/fleet.md). */
  readonly fleet: FleetService;
}

export async function startAgent(options: AgentOptions): Promise<RunningAgent> {
  return (await launchAgent(options)).running;
}

export async function launchAgent(
  options: AgentOptions,
): Promise<{ running: RunningAgent; internals: AgentInternals }> {
  const log = options.log ?? createLogger();
  const startedAt = Date.now();
  const paths = dataPaths(options.dataDir);
  const dataDir = await openDataDir(paths, log);
  const { lock, settings, firstRun, domainPasswords } = dataDir;
  const cleanups = new Cleanups(log);
  cleanups.add(dataDir.stop);
  try {
    const stores = await openStores(paths, log, options.auditStepMs);
    cleanups.add(stores.stop);
    // Chains every stored record and signs checkpoints; its last one after the writers stopped.
    const integrity = await startIntegrity(stores.store, paths, log.child('integrity'));
    cleanups.add(async () => integrity.stop());
    const activity = await startActivityPipeline({
      ...{ settings, store: stores.store, paths, log, firstRun, firstRunHome: options.firstRunHome },
      recordDeletion: integrity.checkpoints.recordRetention,
      domainPasswords,
      signer: integrity.key,
      turns: stores.turns,
      ...{ options: options.activity, changeRecorder: options.changeRecorder },
    });
    cleanups.add(() => activity.stop());
    integrity.checkpoints.onCheckpoint((timeMs) => activity.outputs.signLogFiles(timeMs));
    // Every configuration change is reported here (docs/activity-pipeline.md).
    const recorder = options.changeRecorder ?? activity.changeRecorder;
    const context = { paths, settings, recorder, log };
    const identity = await loadOrCreateIdentity(paths, log.child('tls'));
    const now = options.now ?? systemClock;
    const { auth, stop: stopAuth } = await startAuth({ ...context, now, tokenSync: options.tokenSync });
    cleanups.add(stopAuth);
    const endpoints = new Endpoints(() => settings.current.auditApi.vendor);
    const fleet = createFleetService({
      ...{ paths, settings, agentId: await ensureLocalAgentId(settings), log, tuning: options.fleet },
      ...{ version: options.version ?? null, apiPort: () => endpoints.ports.api },
    });
    cleanups.add(() => fleet.stop());
    const reachability = options.agentChecks ? { reachability: options.agentChecks } : {};
    const resources = startResourceServices({ ...context, domainPasswords, ...reachability });
    cleanups.add(() => resources.reachability.stop());
    const audit = await buildAuditApi({
      ...{ ...context, stores, localGroups: options.localGroups, limits: options.auditLimits },
      committed: (records) => activity.pipeline.committedElsewhere(records),
      fleet: () => fleet.current(), // a member's audit API serves the fleet database
    });
    cleanups.add(audit.stop);
    const api = await buildAgentApi({
      ...{ settings, auth, activity, resources, endpoints, log },
      ...{ version: options.version ?? '0.0.0', startedAt: new Date(startedAt).toISOString() },
      signingKey: { publicKey: integrity.key.publicKeyPem, fingerprint: integrity.key.fingerprint },
      ...{ fleetProblem: () => fleet.problem(), fleetMembers: () => fleet.knownMembers() },
    });
    const consoleSide = await buildConsole({
      ...{ ...context, identity, endpoints, activity, auth, resources, audit, stores, now },
      ...{ version: options.version ?? null, startedAt, signingKeySha256: integrity.key.fingerprint, fleet },
      signingPublicKey: integrity.key.publicKeyPem,
    });
    cleanups.add(consoleSide.stop);
    const apps = { api: api.app, audit: audit.app, console: consoleSide.app };
    const listeners = await startListeners({ settings, identity, apps, options, log });
    cleanups.add(listeners.stop);
    cleanups.add(() => consoleSide.endStreams()); // before the listeners close
    endpoints.bind(listeners.ports);
    await fleet.start(); // registers the bound API port
    await lock.write(endpoints.consoleUrl());
    log.info('agent started', { dataDir: paths.root, certificateSha256: identity.fingerprint256 });

    const stop = (): Promise<void> => cleanups.run().then(() => log.info('agent stopped'));
    const parts = { paths, identity, activity, endpoints, settings, listeners, stores, auth, resources, audit };
    return handlesOf(
      { ...parts, agentId: api.agentId, apiRoutes: api.routes, consoleRoutes: consoleSide.routes, fleet },
      stop,
    );
  } catch (error) {
    await cleanups.run();
    throw error;
  }
}

/** What the tray app and `vigil agent` use, and the parts tests reach (test/helpers/test-agent.ts). */
function handlesOf(
  p: Omit<AgentInternals, 'allowList' | 'ports' | 'store' | 'audit'> & {
    paths: DataPaths;
    identity: TlsIdentity;
    endpoints: Endpoints;
    listeners: { allowList: AllowList };
    stores: AuditStores;
    audit: { users: AuditUserService };
  },
  stop: () => Promise<void>,
): { running: RunningAgent; internals: AgentInternals } {
  let stopping: Promise<void> | null = null;
  const running: RunningAgent = {
    dataDir: p.paths.root,
    paths: p.paths,
    identity: p.identity,
    monitoring: p.activity.monitoring,
    alerts: p.activity.alerts,
    urls: () => p.endpoints.urls(),
    stop: () => (stopping ??= stop()),
  };
  const { store, index } = p.stores;
  const internals: AgentInternals = {
    ...{ settings: p.settings, allowList: p.listeners.allowList, ports: p.endpoints.ports, store },
    ...{ activity: p.activity, auth: p.auth, resources: p.resources },
    ...{ audit: { store, index, users: p.audit.users }, agentId: p.agentId, apiRoutes: p.apiRoutes },
    ...{ consoleRoutes: p.consoleRoutes, fleet: p.fleet },
  };
  return { running, internals };
}
