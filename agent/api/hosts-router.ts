/**
 * `/api/v1/hosts/...` (docs/agent-api.md): the hosts this agent monitors, their agents,
 * their outputs and their status history. Reading needs a permission that sees hosts (Read,
 * Access activity data: limited, Modify host); changing them needs Modify host.
 */
import { forbiddenById, requirePermission } from './require-permission.js';
import { pathParam, type ApiRouter } from '../http/api-router.js';
import { renderAgentList } from './agents-router.js';
import { deleteHost, listHosts, patchHost, renderHost, resolveHost } from './host-handlers.js';
import { createOutput, deleteOutput, patchOutput, renderOutput, resolveOutput } from './output-handlers.js';
import { resolve, visible } from './resource-access.js';
import type { ResourceRouteDeps } from './resource-deps.js';

export function registerHostRoutes(router: ApiRouter, deps: ResourceRouteDeps): void {
  const hostId = (ctx: Parameters<typeof pathParam>[0]): string => pathParam(ctx, 'hostId');
  const outputId = (ctx: Parameters<typeof pathParam>[0]): string => pathParam(ctx, 'outputId');

  router.get('/api/v1/hosts', requirePermission('host', 'read'), (ctx) => {
    ctx.body = listHosts(ctx, deps);
  });

  router.get('/api/v1/hosts/:hostId', requirePermission('host', 'read'), (ctx) => {
    const { resource, view } = resolveHost(ctx, deps, hostId(ctx));
    ctx.body = renderHost(ctx, deps, resource, view);
  });

  router.patch('/api/v1/hosts/:hostId', requirePermission('host', 'write'), (ctx) => patchHost(ctx, deps, hostId(ctx)));

  router.delete('/api/v1/hosts/:hostId', requirePermission('host', 'write'), (ctx) =>
    deleteHost(ctx, deps, hostId(ctx)),
  );

  // The agents monitoring the host: the agent hosting the API (filtered by what the client may see of agents).
  router.get('/api/v1/hosts/:hostId/agents', requirePermission('host', 'read'), (ctx) => {
    resolveHost(ctx, deps, hostId(ctx));
    renderAgentList(ctx, deps, (agent) => agent.id === deps.localAgent.id);
  });

  // Newest first; Detailed Only (a client that sees the host only in the limited view gets 401).
  router.get('/api/v1/hosts/:hostId/statusHistory', requirePermission('host', 'read'), (ctx) => {
    const { resource, view } = resolveHost(ctx, deps, hostId(ctx));
    if (view !== 'detailed') throw forbiddenById('host', 'read');
    ctx.body = deps.status.host(resource.id)?.statusHistory ?? [renderHost(ctx, deps, resource, view).status];
  });

  router.get('/api/v1/hosts/:hostId/outputs', requirePermission('output', 'read'), (ctx) => {
    const { resource } = resolve(ctx, 'output', 'read', deps.hosts.find(hostId(ctx)), 'there is no such host');
    ctx.body = visible(ctx, 'output', deps.outputs.ofHost(resource.id)).map(({ item }) =>
      renderOutput(ctx, deps, item),
    );
  });

  router.post('/api/v1/hosts/:hostId/outputs', requirePermission('output', 'write'), async (ctx) => {
    const { resource } = resolve(ctx, 'output', 'write', deps.hosts.find(hostId(ctx)), 'there is no such host');
    await createOutput(ctx, deps, { hostId: resource.id });
  });

  router.get('/api/v1/hosts/:hostId/outputs/:outputId', requirePermission('output', 'read'), (ctx) => {
    const { resource } = resolveOutput(ctx, deps, outputId(ctx), { hostId: hostId(ctx) });
    ctx.body = renderOutput(ctx, deps, resource);
  });

  router.patch('/api/v1/hosts/:hostId/outputs/:outputId', requirePermission('output', 'write'), (ctx) =>
    patchOutput(ctx, deps, outputId(ctx), { hostId: hostId(ctx) }),
  );

  router.delete('/api/v1/hosts/:hostId/outputs/:outputId', requirePermission('output', 'write'), (ctx) =>
    deleteOutput(ctx, deps, outputId(ctx), { hostId: hostId(ctx) }),
  );

  // Newest first (docs/agent-api.md). Outputs have no Detailed Only attribute, so every reader gets it.
  router.get('/api/v1/hosts/:hostId/outputs/:outputId/statusHistory', requirePermission('output', 'read'), (ctx) => {
    const { resource } = resolveOutput(ctx, deps, outputId(ctx), { hostId: hostId(ctx) });
    ctx.body = deps.status.output(resource.id)?.statusHistory ?? [renderOutput(ctx, deps, resource).status];
  });
}
