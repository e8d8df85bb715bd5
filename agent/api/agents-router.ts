/**
 * `/api/v1/agents/...` (docs/agent-api.md): the agent hosting the API
 * (always present, never deleted) and other agents registered by address and port, with their
 * reachability (checked in the background); the local agent's hosts and domain. Read, Modify
 * agent (detailed) and Access activity data (the local agent only, limited) see agents; Modify
 * agent registers, changes and deletes them; host routes under an agent follow the host rules.
 */
import type Koa from 'koa';
import { limitedAgentView, type AgentDetailedView } from '../../shared/agent-resource.js';
import { applyMergePatch } from '../../shared/merge-patch.js';
import type { Locality, View } from '../../shared/permission-engine.js';
import { requirePermission } from './require-permission.js';
import { pathParam } from '../http/api-router.js';
import { parseInput, readJsonBody, readMergePatch, rejectReadOnly, viaService } from './request-input.js';
import { created, noContent, resolve, visible } from './resource-access.js';
import { actorOf, linksOf, type ResourceRouteDeps } from './resource-deps.js';
import {
  AGENT_READ_ONLY,
  agentCreateSchema,
  agentViewSchema,
  localAgentWriteSchema,
  registeredAgentWriteSchema,
} from './schemas/agent-schemas.js';
import {
  localAgentFields,
  localAgentWritable,
  registeredAgentView,
  renameLocalAgentField,
} from './views/agent-view.js';
import { agentPatchSchema } from './openapi/patch-schemas.js';
import { jsonContent, listOf, mergePatchContent, type AgentApiRouter } from './openapi/route-doc.js';
import { fleetMemberView } from './views/fleet-member-view.js';
import { fleetMembers, findFleetMember } from './fleet-members.js';
import { registerAgentChildRoutes } from './agent-children-router.js';

/**
 * The JSON of each view of the local agent, kept as long as its (frozen, cached) description
 * lives: the same bytes answer every request until the agent's description changes.
 */
const serialized = new WeakMap<AgentDetailedView, Record<View, string>>();

function json(agent: AgentDetailedView, view: View): string {
  let both = serialized.get(agent);
  if (!both) {
    both = { detailed: JSON.stringify(agent), limited: JSON.stringify(limitedAgentView(agent)) };
    if (Object.isFrozen(agent)) serialized.set(agent, both);
  }
  return both[view];
}

function sendJson(ctx: Koa.Context, text: string): void {
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = text;
}

/** The local agent first, then the registered ones in the order they were registered, then the fleet's. */
function allAgents(ctx: Koa.Context, deps: ResourceRouteDeps): AgentDetailedView[] {
  const links = linksOf(ctx, deps);
  const local = deps.localAgent.describe(links.origin);
  const registered = deps.agents.registered();
  const members = fleetMembers(deps);
  if (registered.length === 0 && members.length === 0) return [local];
  return [
    local,
    ...registered.map((a) => registeredAgentView(a, deps.reachability.status(a), links)),
    ...members.map((m) => fleetMemberView(m, links)),
  ];
}

function localityOf(deps: ResourceRouteDeps): (agent: { id: string }) => Locality {
  return (agent) => (agent.id === deps.localAgent.id ? 'local' : 'other');
}

/** A list of agents in the client's views (collections drop what it may not see). */
export function renderAgentList(
  ctx: Koa.Context,
  deps: ResourceRouteDeps,
  include: (agent: AgentDetailedView) => boolean = () => true,
): void {
  const agents = allAgents(ctx, deps).filter(include);
  const shown = visible(ctx, 'agent', agents, localityOf(deps));
  sendJson(ctx, `[${shown.map(({ item, view }) => json(item, view)).join(',')}]`);
}

function findAgent(ctx: Koa.Context, deps: ResourceRouteDeps, id: string): AgentDetailedView | undefined {
  if (id === deps.localAgent.id) return deps.localAgent.describe(linksOf(ctx, deps).origin);
  const registered = deps.agents.findRegistered(id);
  if (registered) return registeredAgentView(registered, deps.reachability.status(registered), linksOf(ctx, deps));
  const member = findFleetMember(deps, id);
  return member && fleetMemberView(member, linksOf(ctx, deps));
}

export function registerAgentRoutes(router: AgentApiRouter, deps: ResourceRouteDeps): void {
  router.get(
    '/api/v1/agents',
    {
      tag: 'Agents',
      summary: 'List agents: this one first, then the registered ones',
      ok: { status: 200, description: 'Agents', schema: listOf(agentViewSchema) },
      errors: [],
    },
    requirePermission('agent', 'read'),
    (ctx) => renderAgentList(ctx, deps),
  );

  router.post(
    '/api/v1/agents',
    {
      tag: 'Agents',
      summary: 'Register another agent (reachability is checked in the background)',
      body: jsonContent(agentCreateSchema),
      ok: { status: 201, description: 'The registered agent', schema: agentViewSchema },
      errors: [400, 413, 415],
    },
    requirePermission('agent', 'write'),
    async (ctx) => {
      const body = await readJsonBody(ctx);
      rejectReadOnly(body, AGENT_READ_ONLY);
      const write = parseInput(agentCreateSchema, body);
      const agent = await viaService(() => deps.agents.register(write, actorOf(ctx)));
      created(ctx, registeredAgentView(agent, deps.reachability.status(agent), linksOf(ctx, deps)));
    },
  );

  router.get(
    '/api/v1/agents/:agentId',
    {
      tag: 'Agents',
      summary: 'Get an agent',
      ok: { status: 200, description: 'The agent', schema: agentViewSchema },
      errors: [404],
    },
    requirePermission('agent', 'read'),
    (ctx) => {
      const agent = findAgent(ctx, deps, pathParam(ctx, 'agentId'));
      const { resource, view } = resolve(
        ctx,
        'agent',
        'read',
        agent,
        'there is no such agent',
        agent ? localityOf(deps)(agent) : 'other',
      );
      sendJson(ctx, json(resource, view));
    },
  );

  router.patch(
    '/api/v1/agents/:agentId',
    {
      tag: 'Agents',
      summary: 'Change an agent',
      body: mergePatchContent(agentPatchSchema),
      ok: { status: 200, description: 'The changed agent', schema: agentViewSchema },
      errors: [400, 404, 413, 415],
    },
    requirePermission('agent', 'write'),
    async (ctx) => {
      const id = pathParam(ctx, 'agentId');
      const agent = findAgent(ctx, deps, id);
      const { view } = resolve(
        ctx,
        'agent',
        'write',
        agent,
        'there is no such agent',
        agent ? localityOf(deps)(agent) : 'other',
      );
      const patch = await readMergePatch(ctx);
      const actor = actorOf(ctx);
      if (id === deps.localAgent.id) {
        rejectReadOnly(patch, [...AGENT_READ_ONLY, 'host', 'apiServerPort']);
        await viaService(
          () =>
            deps.agents.updateLocal(
              (current) =>
                localAgentFields(
                  parseInput(localAgentWriteSchema, applyMergePatch(localAgentWritable(current), patch)),
                ),
              actor,
              { keepAdmitting: ctx.socket.remoteAddress },
            ),
          renameLocalAgentField,
        );
      } else {
        rejectReadOnly(patch, [...AGENT_READ_ONLY, 'apiServerIpWhitelist', 'maxLocalSize', 'minLocalFreeSpace']);
        await viaService(() =>
          deps.agents.update(
            id,
            (current) => parseInput(registeredAgentWriteSchema, applyMergePatch(current, patch)),
            actor,
          ),
        );
      }
      sendJson(ctx, json(findAgent(ctx, deps, id)!, view));
    },
  );

  router.delete(
    '/api/v1/agents/:agentId',
    {
      tag: 'Agents',
      summary: 'Forget a registered agent (the agent hosting the API cannot be deleted: 409)',
      ok: { status: 204, description: 'Deleted' },
      errors: [404, 409],
    },
    requirePermission('agent', 'write'),
    async (ctx) => {
      const id = pathParam(ctx, 'agentId');
      const agent = findAgent(ctx, deps, id);
      resolve(ctx, 'agent', 'write', agent, 'there is no such agent', agent ? localityOf(deps)(agent) : 'other');
      await viaService(() => deps.agents.remove(id, actorOf(ctx)));
      noContent(ctx);
    },
  );

  registerAgentChildRoutes(router, deps);
}
