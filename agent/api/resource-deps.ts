/** What the agent API's resource routes need: the services (agent/resources/) and runtime state. */
import type { DomainStatusBoard } from '../directory/domain-status.js';
import type Koa from 'koa';
import type { LogFilesService } from '../outputs/log-files-service.js';
import type { AgentReachability } from '../resources/agent-reachability.js';
import type { AgentService } from '../resources/agent-service.js';
import type { DomainService } from '../resources/domain-service.js';
import type { HostService } from '../resources/host-service.js';
import type { OutputService } from '../resources/output-service.js';
import type { PolicyService } from '../resources/policy-service.js';
import type { StatusRegistry } from '../status/status-registry.js';
import type { FleetMember } from '../fleet/fleet-registry.js';
import type { LocalAgent } from './local-agent.js';
import { ApiLinks } from './views/api-links.js';
import type { OutputViewDeps } from './views/output-view.js';
import { apiAuth } from './bearer-auth.js';

export interface ResourceRouteDeps {
  localAgent: LocalAgent;
  agents: AgentService;
  reachability: AgentReachability;
  hosts: HostService;
  outputs: OutputService;
  domains: DomainService;
  policies: PolicyService;
  logFiles: LogFilesService;
  status: StatusRegistry;
  /** Each domain's monitoring status (docs/directory.md). */
  domainStatus?: DomainStatusBoard;
  /** ISO time the agent started: the time of a status nothing has reported yet. */
  startedAt: string;
  /** The other members of this agent's fleet, as of the last heartbeat (docs/fleet.md). */
  fleetMembers?: () => readonly FleetMember[];
}

export function linksOf(ctx: Koa.Context, deps: ResourceRouteDeps): ApiLinks {
  return ApiLinks.of(ctx, deps.localAgent.apiPort);
}

export function viewDeps(ctx: Koa.Context, deps: ResourceRouteDeps): OutputViewDeps {
  return { links: linksOf(ctx, deps), localAgentId: deps.localAgent.id, status: deps.status, since: deps.startedAt };
}

/** The self-audit actor of this request: the client application (docs/activity-pipeline.md). */
export function actorOf(ctx: Koa.Context): string {
  return apiAuth(ctx).actor;
}
