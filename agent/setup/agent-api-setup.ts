/**
 * The agent API (docs/agent-api.md): the token endpoint, open to any client on the allow-list,
 * and behind bearer tokens the OpenAPI document and the resource routes (hosts, outputs, agents,
 * domains, policies, log files), served by one Koa application.
 */
import type Koa from 'koa';
import { buildApiApp } from '../api/api-app.js';
import type { RouteInfo } from '../http/api-router.js';
import { agentApiRoutes } from '../api/agent-api-routes.js';
import { ensureLocalAgentId, LocalAgent } from '../api/local-agent.js';
import type { AgentSigningKey } from '../../shared/agent-resource.js';
import type { ActivityServices } from './activity-setup.js';
import type { AuthServices } from '../auth/auth-services.js';
import { bearerAuth } from '../api/bearer-auth.js';
import type { SettingsStore } from '../config/settings-store.js';
import type { Logger } from '../log/logger.js';
import type { ResourceServices } from '../resources/resource-services.js';
import type { Endpoints } from './endpoints.js';
import { localAgentStatus } from './local-status.js';
import type { FleetMember } from '../fleet/fleet-registry.js';

export interface AgentApiSetup {
  app: Koa;
  /** The local agent's stable id (settings `agent.id`). */
  agentId: string;
  /** Every route, the token endpoint included, as registered. */
  routes: readonly RouteInfo[];
}

export async function buildAgentApi(deps: {
  settings: SettingsStore;
  auth: AuthServices;
  activity: ActivityServices;
  resources: ResourceServices;
  endpoints: Endpoints;
  version: string;
  startedAt: string;
  /** The key that signs the chain of records (docs/integrity.md), shown in the agent resource. */
  signingKey: AgentSigningKey;
  /** The fleet database's reachability (docs/fleet.md): the agent's status is Warning while it fails. */
  fleetProblem?: () => string | null;
  /** The other members of the fleet (docs/fleet.md), listed by GET /api/v1/agents. */
  fleetMembers?: () => readonly FleetMember[];
  log: Logger;
}): Promise<AgentApiSetup> {
  const { settings, auth, activity, endpoints } = deps;
  const agentId = await ensureLocalAgentId(settings);
  const localAgent = new LocalAgent({
    settings,
    version: deps.version,
    apiPort: () => endpoints.ports.api,
    consoleUrl: () => endpoints.consoleUrl(),
    status: localAgentStatus(() => activity.writeProblem(), deps.startedAt, deps.fleetProblem),
    signingKey: deps.signingKey,
  });
  const { publicRoutes, routes } = agentApiRoutes({
    token: { clients: auth.clients, tokens: auth.tokens, log: deps.log.child('token') },
    openApi: { version: deps.version, apiPort: () => endpoints.ports.api },
    resources: {
      localAgent,
      ...deps.resources,
      logFiles: activity.logFiles,
      status: activity.status,
      domainStatus: activity.domainStatus,
      startedAt: deps.startedAt,
      ...(deps.fleetMembers ? { fleetMembers: deps.fleetMembers } : {}),
    },
  });
  const app = buildApiApp({
    log: deps.log.child('api'),
    publicRoutes,
    authenticate: bearerAuth({ tokens: auth.tokens, clients: auth.clients }),
    routes,
  });
  return { app, agentId, routes: [...publicRoutes.routes(), ...routes.routes()] };
}
