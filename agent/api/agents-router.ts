/**
 * `GET /api/v1/agents` and `GET /api/v1/agents/{id}` (DESIGN.md §4). For now the only agent is
 * the one hosting the API; issue 4 adds the others and the write routes. Visibility and views
 * come from the permission engine: Read and Modify agent see it detailed, Access activity
 * data limited, anything else gets 401 at the route.
 */
import type Koa from 'koa';
import { limitedAgentView, type AgentDetailedView } from '../../shared/agent-resource.js';
import type { View } from '../../shared/permission-engine.js';
import { apiAuth } from '../auth/bearer-auth.js';
import { requirePermission, resolveById } from '../auth/require-permission.js';
import { pathParam, type ApiRouter } from './api-router.js';
import type { LocalAgent } from './local-agent.js';

export interface AgentsRouterDeps {
  localAgent: LocalAgent;
}

/**
 * The JSON of each view, kept as long as the (frozen, cached) agent object lives: the same
 * bytes answer every request until the agent's description changes.
 */
const serialized = new WeakMap<AgentDetailedView, Record<View, string>>();

function json(agent: AgentDetailedView, view: View): string {
  let both = serialized.get(agent);
  if (!both) {
    both = { detailed: JSON.stringify(agent), limited: JSON.stringify(limitedAgentView(agent)) };
    serialized.set(agent, both);
  }
  return both[view];
}

/**
 * `ctx.host` for the usual request: the Host header as it came. Koa's getter splits every
 * value at commas and looks for userinfo on each call, which the profile of this route (it
 * answers every GET of an agent) showed as a visible share; those rare headers still take it.
 */
function requestHost(ctx: Koa.Context): string {
  const host = ctx.req.headers.host;
  if (host === undefined || host.includes(',') || host.includes('@') || host.trim() !== host) return ctx.host;
  return host;
}

function sendJson(ctx: Koa.Context, text: string): void {
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = text;
}

export function registerAgentRoutes(router: ApiRouter, deps: AgentsRouterDeps): void {
  // Links are absolute and use the name the client used to reach this agent (always HTTPS).
  const all = (ctx: Koa.Context): AgentDetailedView[] => [
    deps.localAgent.describe(`https://${requestHost(ctx) || `127.0.0.1:${deps.localAgent.apiPort}`}`),
  ];
  const localityOf = (agent: AgentDetailedView): 'local' | 'other' =>
    agent.id === deps.localAgent.id ? 'local' : 'other';

  router.get('/api/v1/agents', requirePermission('agent', 'read'), (ctx) => {
    const visible = apiAuth(ctx).access.filter('agent', all(ctx), localityOf);
    sendJson(ctx, `[${visible.map(({ item, view }) => json(item, view)).join(',')}]`);
  });

  router.get('/api/v1/agents/:agentId', requirePermission('agent', 'read'), (ctx) => {
    const id = pathParam(ctx, 'agentId');
    const agent = all(ctx).find((a) => a.id === id);
    const { resource, view } = resolveById(ctx, 'agent', 'read', agent, agent ? localityOf(agent) : 'other');
    sendJson(ctx, json(resource, view));
  });
}
