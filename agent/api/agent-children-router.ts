/**
 * What is under an agent in the agent API: its hosts and the domain it reads
 * (docs/agent-api.md). The local agent's are this agent's own; a fleet member's hosts are what it
 * registered in the fleet database; a registered agent's are configured through its own API.
 */
import type Koa from 'koa';
import { ApiError } from '../http/api-error.js';
import { pathParam } from '../http/api-router.js';
import { apiAuth } from './bearer-auth.js';
import { findFleetMember } from './fleet-members.js';
import { createHost, deleteHost, listHosts, patchHost, renderHost } from './host-handlers.js';
import { hostPatchSchema } from './openapi/patch-schemas.js';
import { jsonContent, listOf, mergePatchContent, type AgentApiRouter } from './openapi/route-doc.js';
import { forbiddenById, requirePermission } from './require-permission.js';
import { resolve } from './resource-access.js';
import { viewDeps, type ResourceRouteDeps } from './resource-deps.js';
import { domainViewSchema } from './schemas/domain-schemas.js';
import { hostCreateSchema, hostViewSchema } from './schemas/host-schemas.js';
import { domainView } from './views/domain-view.js';

/**
 * The agent in a path like `/agents/{id}/hosts`. The agent hosting the API is checked with the
 * rules of what is under it (`kind`): a Modify host client adds hosts through it. Any other id
 * is first checked as an agent the client must be able to see, so a client that may not see
 * other agents gets the same 401 for a registered agent as for an unknown id and cannot learn
 * which agents are registered; then with the rules of what is under it, as "other".
 */
function agentContainer(
  ctx: Koa.Context,
  deps: ResourceRouteDeps,
  kind: 'host' | 'domain',
  action: 'read' | 'write',
): { id: string; local: boolean } {
  const id = pathParam(ctx, 'agentId');
  const local = id === deps.localAgent.id;
  const exists = local || deps.agents.findRegistered(id) !== undefined || findFleetMember(deps, id) !== undefined;
  if (!local && !apiAuth(ctx).access.allows('agent', 'read', 'other')) throw forbiddenById('agent', 'read');
  resolve(ctx, kind, action, exists ? id : undefined, 'there is no such agent', local ? 'local' : 'other');
  return { id, local };
}

/** A change under another agent: it is made through that agent's API (its address is not repeated here). */
function onlyLocal(): ApiError {
  return new ApiError(409, 'conflict', "the hosts of another agent are configured through that agent's own API", {
    field: 'agentId',
  });
}

export function registerAgentChildRoutes(router: AgentApiRouter, deps: ResourceRouteDeps): void {
  // Hosts of an agent: the local agent's are this agent's hosts; a fleet member's are what it
  // registered in the fleet database (docs/fleet.md); a registered agent's are not known here.
  router.get(
    '/api/v1/agents/:agentId/hosts',
    {
      tag: 'Agents',
      summary: 'Hosts monitored by an agent (a fleet member’s as it registered them; a registered agent’s: empty)',
      ok: { status: 200, description: 'Hosts', schema: listOf(hostViewSchema) },
      errors: [404],
    },
    requirePermission('host', 'read'),
    (ctx) => {
      const { id, local } = agentContainer(ctx, deps, 'host', 'read');
      ctx.body = local ? listHosts(ctx, deps) : (findFleetMember(deps, id)?.hosts ?? []);
    },
  );

  router.post(
    '/api/v1/agents/:agentId/hosts',
    {
      tag: 'Agents',
      summary: 'Add a host to this agent (409 for a registered agent)',
      body: jsonContent(hostCreateSchema),
      ok: { status: 201, description: 'The host, with its outputs', schema: hostViewSchema },
      errors: [400, 404, 409, 413, 415],
    },
    requirePermission('host', 'write'),
    async (ctx) => {
      const { local } = agentContainer(ctx, deps, 'host', 'write');
      if (!local) throw onlyLocal();
      await createHost(ctx, deps);
    },
  );

  router.get(
    '/api/v1/agents/:agentId/hosts/:hostId',
    {
      tag: 'Agents',
      summary: 'Get a host of an agent',
      ok: { status: 200, description: 'The host', schema: hostViewSchema },
      errors: [404],
    },
    requirePermission('host', 'read'),
    (ctx) => {
      const { local } = agentContainer(ctx, deps, 'host', 'read');
      const hostId = pathParam(ctx, 'hostId');
      const host = local ? deps.hosts.find(hostId) : undefined;
      const { resource, view } = resolve(ctx, 'host', 'read', host, 'there is no such host');
      ctx.body = renderHost(ctx, deps, resource, view);
    },
  );

  router.patch(
    '/api/v1/agents/:agentId/hosts/:hostId',
    {
      tag: 'Agents',
      summary: 'Change a host of an agent',
      body: mergePatchContent(hostPatchSchema),
      ok: { status: 200, description: 'The changed host', schema: hostViewSchema },
      errors: [400, 404, 409, 413, 415],
    },
    requirePermission('host', 'write'),
    async (ctx) => {
      const { local } = agentContainer(ctx, deps, 'host', 'write');
      if (!local) throw onlyLocal();
      await patchHost(ctx, deps, pathParam(ctx, 'hostId'));
    },
  );

  router.delete(
    '/api/v1/agents/:agentId/hosts/:hostId',
    {
      tag: 'Agents',
      summary: 'Stop monitoring a host (its outputs go too)',
      ok: { status: 204, description: 'Deleted' },
      errors: [404, 409],
    },
    requirePermission('host', 'write'),
    async (ctx) => {
      const { local } = agentContainer(ctx, deps, 'host', 'write');
      if (!local) throw onlyLocal();
      await deleteHost(ctx, deps, pathParam(ctx, 'hostId'));
    },
  );

  // The domain the agent reads: the first enabled domain of its settings (docs/agent-api.md).
  router.get(
    '/api/v1/agents/:agentId/domain',
    {
      tag: 'Agents',
      summary: 'The domain an agent reads (the first enabled domain)',
      ok: { status: 200, description: 'The domain', schema: domainViewSchema },
      errors: [404],
    },
    requirePermission('domain', 'read'),
    (ctx) => {
      const { local } = agentContainer(ctx, deps, 'domain', 'read');
      const domain = local ? deps.domains.primary() : undefined;
      const { resource, view } = resolve(
        ctx,
        'domain',
        'read',
        domain,
        local ? 'this agent reads no domain' : 'the domain of another agent is not known here',
        local ? 'local' : 'other',
      );
      ctx.body = domainView(resource, deps.outputs.ofDomain(resource.id), viewDeps(ctx, deps), view);
    },
  );
}
