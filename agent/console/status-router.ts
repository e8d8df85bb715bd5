/**
 * The overview endpoints of the console (shared/console-api.ts): `GET /api/status` (is the agent
 * healthy, where clients connect, the certificate to pin, what is monitored, today's count),
 * `GET|PUT /api/monitoring` (pause and resume), and `GET /api/hosts`, `/api/outputs` (changed
 * through monitoring-router.ts).
 */
import { z } from 'zod';
import { ConsolePaths, type ConsoleStatus } from '../../shared/console-api.js';
import type { SettingsStore } from '../config/settings-store.js';
import { readJsonObject } from '../http/json-body.js';
import { parseInput } from '../http/parse-input.js';
import type { MonitoringControl } from '../monitor/monitoring-control.js';
import type { StatusRegistry } from '../status/status-registry.js';
import type { ConsoleRoutes } from './console-app.js';
import { consoleAuth } from './console-guard.js';
import { hostViews, monitoringView, outputViews } from './monitoring-views.js';

export interface StatusRouterDeps {
  version: string | null;
  startedAt: number;
  certificateSha256: () => string;
  urls: () => { apiUrl: string; auditUrl: string; consoleUrl: string };
  settings: SettingsStore;
  status: StatusRegistry;
  monitoring: MonitoringControl;
  /** Fingerprint of the chain's signing key (docs/integrity.md). */
  signingKeySha256?: string;
}

const MonitoringBody = z.object({ paused: z.boolean({ error: 'paused must be true or false' }) });

export function buildStatusRouter(deps: StatusRouterDeps): ConsoleRoutes {
  return (router) => {
    router.get(ConsolePaths.status, (ctx) => {
      const settings = deps.settings.current;
      const monitoring = monitoringView(deps.monitoring);
      const hosts = hostViews(settings, deps.status);
      const body: ConsoleStatus = {
        version: deps.version,
        uptimeSeconds: Math.round((Date.now() - deps.startedAt) / 1000),
        certificateSha256: deps.certificateSha256(),
        ...deps.urls(),
        startedAt: new Date(deps.startedAt).toISOString(),
        healthy: monitoring.issues.length === 0,
        monitoring,
        counts: {
          clients: settings.clients.length,
          auditUsers: settings.auditUsers.length,
          hosts: settings.hosts.length,
          enabledHosts: settings.hosts.filter((h) => h.isEnabled).length,
          outputs: settings.outputs.length,
          todayRecords: monitoring.todayCount,
        },
        hosts,
      };
      if (deps.signingKeySha256 !== undefined) body.signingKeySha256 = deps.signingKeySha256;
      ctx.body = body;
    });

    router.get(ConsolePaths.monitoring, (ctx) => {
      ctx.body = monitoringView(deps.monitoring);
    });

    router.put(ConsolePaths.monitoring, async (ctx) => {
      const actor = consoleAuth(ctx).actor;
      const { paused } = parseInput(MonitoringBody, await readJsonObject(ctx));
      await deps.monitoring.setPaused(paused, actor);
      ctx.body = monitoringView(deps.monitoring);
    });

    router.get(ConsolePaths.hosts, (ctx) => {
      ctx.body = hostViews(deps.settings.current, deps.status);
    });

    router.get(ConsolePaths.outputs, (ctx) => {
      ctx.body = outputViews(deps.settings.current, deps.status);
    });
  };
}
