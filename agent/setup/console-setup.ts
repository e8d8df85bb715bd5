/**
 * The console (docs/console.md): its token, written for the `vigil` command and the tray app,
 * browser sessions, the log viewer's cache, and the routers of every page, in one Koa
 * application served on loopback.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type Koa from 'koa';
import type { ActivityServices } from './activity-setup.js';
import type { AuthServices } from '../auth/auth-services.js';
import type { Clock } from '../auth/lifetimes.js';
import type { AuditService } from '../audit/audit-service.js';
import type { ChangeRecorder } from '../pipeline/change-recorder.js';
import type { DataPaths } from '../config/data-dir.js';
import { EditableSettingsService } from '../config/editable-settings.js';
import type { SettingsStore } from '../config/settings-store.js';
import { buildActivityRouter } from '../console/activity-router.js';
import { buildActivityStatsRouter } from '../console/activity-stats-router.js';
import { buildAlertsRouter } from '../console/alerts-router.js';
import { buildAuditUsersRouter } from '../console/audit-users-router.js';
import { buildDomainsRouter } from '../console/domains-router.js';
import { buildClientsRouter } from '../console/clients-router.js';
import { buildConsoleApp, consoleRouteTable } from '../console/console-app.js';
import type { RouteInfo } from '../http/api-router.js';
import { ConsoleSessions } from '../console/console-sessions.js';
import { ConsoleToken } from '../console/console-token.js';
import { buildDiagnosticsRouter } from '../console/diagnostics-router.js';
import { buildLogFilesRouter } from '../console/log-files-router.js';
import { buildMonitoringRouter } from '../console/monitoring-router.js';
import { buildSettingsRouter } from '../console/settings-router.js';
import { buildFleetRouter } from '../console/fleet-router.js';
import type { FleetService } from '../fleet/fleet-service.js';
import { buildStatusRouter } from '../console/status-router.js';
import { buildVerificationRouter } from '../console/verification-router.js';
import { LogVerificationService } from '../integrity/log-verification-service.js';
import type { Logger } from '../log/logger.js';
import { LogFileViewer } from '../outputs/log-file-viewer.js';
import type { ResourceServices } from '../resources/resource-services.js';
import { EventLoopMonitor } from '../status/event-loop-monitor.js';
import type { TlsIdentity } from '../tls/certificate.js';
import type { AuditUserService } from '../users/audit-user-service.js';
import { withCleanups } from './cleanups.js';
import type { Endpoints } from './endpoints.js';
import type { AuditStores } from './stores.js';

export interface ConsoleSetup {
  app: Koa;
  /** Every route of the console API, as registered. */
  routes: readonly RouteInfo[];
  /** Ends the event streams (live feed, log follow), so the listener can close without waiting. */
  endStreams(): void;
  stop(): Promise<void>;
}

export function buildConsole(deps: {
  paths: DataPaths;
  settings: SettingsStore;
  identity: TlsIdentity;
  endpoints: Endpoints;
  activity: ActivityServices;
  auth: AuthServices;
  resources: ResourceServices;
  audit: { users: AuditUserService; service: AuditService };
  stores: AuditStores;
  recorder: ChangeRecorder;
  now: Clock;
  version: string | null;
  startedAt: number;
  /** SHA-256 fingerprint of the key that signs the chain of records (docs/integrity.md). */
  signingKeySha256: string;
  /** Its public key (PEM), shown beside the last verification. */
  signingPublicKey: string;
  fleet: FleetService;
  log: Logger;
}): Promise<ConsoleSetup> {
  const { paths, settings, activity, endpoints } = deps;
  return withCleanups(deps.log, async (cleanups) => {
    const token = await ConsoleToken.issue(paths.consoleToken);
    // A stopped agent leaves no usable token behind (a crash leaves one that the next start replaces).
    cleanups.add(() => fs.rm(paths.consoleToken, { force: true }));
    const eventLoop = new EventLoopMonitor();
    cleanups.add(() => eventLoop.stop());
    const viewer = new LogFileViewer(activity.logFiles, paths.logViewCache);
    await viewer.start();
    cleanups.add(() => viewer.close());
    const streams = new AbortController();
    const verification = new LogVerificationService({
      auditDb: paths.auditDb,
      logs: paths.logs,
      stateFile: path.join(paths.root, 'last-verification.json'),
      publicKeyPem: deps.signingPublicKey,
      log: deps.log.child('verify'),
    });
    cleanups.add(() => verification.close());
    const editableSettings = new EditableSettingsService(
      settings,
      () => ({
        agentApiPort: endpoints.ports.api,
        auditApiPort: endpoints.ports.audit,
        consolePort: endpoints.ports.console,
      }),
      deps.recorder,
    );
    const app = buildConsoleApp({
      log: deps.log.child('console'),
      token,
      sessions: new ConsoleSessions(deps.now),
      port: () => endpoints.ports.console,
      routers: [
        buildStatusRouter({
          version: deps.version,
          startedAt: deps.startedAt,
          certificateSha256: () => deps.identity.fingerprint256,
          urls: () => endpoints.urls(),
          settings,
          status: activity.status,
          monitoring: activity.monitoring,
          signingKeySha256: deps.signingKeySha256,
        }),
        buildMonitoringRouter({
          hosts: deps.resources.hosts,
          outputs: deps.resources.outputs,
          settings,
          status: activity.status,
        }),
        buildClientsRouter(deps.auth.clients),
        buildDiagnosticsRouter(eventLoop),
        buildAuditUsersRouter(deps.audit.users),
        buildDomainsRouter({
          domains: deps.resources.domains,
          settings,
          status: activity.domainStatus,
        }),
        buildSettingsRouter(editableSettings),
        buildVerificationRouter({
          service: verification,
          publicKey: deps.signingPublicKey,
          fingerprint: deps.signingKeySha256,
          log: deps.log,
        }),
        buildFleetRouter(deps.fleet),
        buildLogFilesRouter({ files: activity.logFiles, viewer, feed: activity.feed, shutdown: streams.signal }),
        buildAlertsRouter(activity.alerts, activity.alertRules),
        buildActivityRouter({
          service: deps.audit.service,
          reader: deps.stores.reader,
          feed: activity.feed,
          shutdown: streams.signal,
        }),
        buildActivityStatsRouter(activity.rollup),
      ],
    });
    return { app, routes: consoleRouteTable(app), endStreams: () => streams.abort() };
  });
}
