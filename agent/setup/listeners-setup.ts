/**
 * The three listeners (docs/architecture.md): the agent API and the audit API over HTTPS on their
 * configured addresses, screened by the allow-list before any TLS byte, and the console over
 * plain HTTP on loopback. A change of the allow-list applies at once, open connections included.
 */
import http from 'node:http';
import https from 'node:https';
import type Koa from 'koa';
import type { SettingsStore } from '../config/settings-store.js';
import type { Logger } from '../log/logger.js';
import { AllowList } from '../net/allow-list.js';
import { Listener } from '../net/listener.js';
import type { TlsIdentity } from '../tls/certificate.js';
import { httpsServerOptions, slowClientLimits } from '../tls/server-options.js';
import { withCleanups } from './cleanups.js';
import { CONSOLE_HOST, type BoundPorts } from './endpoints.js';

export interface ListenerOptions {
  /** Port overrides from the command line; they win over the settings file and are not saved. */
  ports?: { api?: number | undefined; audit?: number | undefined; console?: number | undefined } | undefined;
  headersTimeoutMs?: number | undefined;
  connectionLimits?: { maxConnections?: number; maxPerAddress?: number } | undefined;
}

export interface ListenersSetup {
  allowList: AllowList;
  ports: BoundPorts;
  stop(): Promise<void>;
}

export function startListeners(deps: {
  settings: SettingsStore;
  identity: TlsIdentity;
  apps: { api: Koa; audit: Koa; console: Koa };
  options: ListenerOptions;
  log: Logger;
}): Promise<ListenersSetup> {
  const { settings, options, log } = deps;
  const s = settings.current;
  const allowList = new AllowList(s.allowList);
  if (allowList.current.length === 0) log.warn('the allow-list is empty: no client can reach the agent or audit API');
  const limits = slowClientLimits(options.headersTimeoutMs);
  const tls = httpsServerOptions(deps.identity, limits);
  const admit = (address: string | undefined): boolean => allowList.allows(address);
  const caps = options.connectionLimits ?? {};
  const listeners = {
    api: new Listener(
      {
        name: 'agent API',
        host: s.agentApi.bindAddress,
        port: options.ports?.api ?? s.agentApi.port,
        setting: 'agentApi.port',
        flag: '--api-port',
        server: https.createServer(tls, deps.apps.api.callback()),
        admit,
        ...caps,
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
        server: https.createServer(tls, deps.apps.audit.callback()),
        admit,
        ...caps,
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
        server: http.createServer({ ...limits, keepAliveTimeout: 5_000 }, deps.apps.console.callback()),
        ...caps,
      },
      log,
    ),
  };
  return withCleanups(log, async (cleanups) => {
    for (const listener of Object.values(listeners)) {
      await listener.start();
      cleanups.add(() => listener.stop());
    }
    cleanups.add(
      settings.onChange((next, previous) => {
        if (JSON.stringify(next.allowList) === JSON.stringify(previous.allowList)) return;
        allowList.replace(next.allowList);
        listeners.api.revalidate();
        listeners.audit.revalidate();
      }),
    );
    const ports = { api: listeners.api.port, audit: listeners.audit.port, console: listeners.console.port };
    return { allowList, ports };
  });
}
