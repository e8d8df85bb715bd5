/**
 * `/api/v1/hosts/...` (docs/agent-api.md): the hosts this agent monitors, their agents,
 * their outputs and their status history. Reading needs a permission that sees hosts (Read,
 * Access activity data: limited, Modify host); changing them needs Modify host.
 */
import { forbiddenById, requirePermission } from './require-permission.js';
import { pathParam } from '../http/api-router.js';
import { renderAgentList } from './agents-router.js';
import { deleteHost, listHosts, patchHost, renderHost, resolveHost } from './host-handlers.js';
import { createOutput, deleteOutput, patchOutput, renderOutput, resolveOutput } from './output-handlers.js';
import { resolve, visible } from './resource-access.js';
import type { ResourceRouteDeps } from './resource-deps.js';
import { hostPatchSchema, outputPatchSchema } from './openapi/patch-schemas.js';
import { agentViewSchema } from './schemas/agent-schemas.js';
import { statusSchema } from './schemas/common-schemas.js';
import { hostViewSchema } from './schemas/host-schemas.js';
import { outputViewSchema, outputWriteSchema } from './schemas/output-schemas.js';
import { jsonContent, listOf, mergePatchContent, type AgentApiRouter } from './openapi/route-doc.js';

export function registerHostRoutes(router: AgentApiRouter, deps: ResourceRouteDeps): void {
  const hostId = (ctx: Parameters<typeof pathParam>[0]): string => pathParam(ctx, 'hostId');
  const outputId = (ctx: Parameters<typeof pathParam>[0]): string => pathParam(ctx, 'outputId');

  router.get(
    '/api/v1/hosts',
    {
      tag: 'Hosts',
      summary: 'List hosts',
      ok: { status: 200, description: 'Hosts', schema: listOf(hostViewSchema) },
      errors: [],
    },
    requirePermission('host', 'read'),
    (ctx) => {
      ctx.body = listHosts(ctx, deps);
    },
  );

  router.get(
    '/api/v1/hosts/:hostId',
    {
      tag: 'Hosts',
      summary: 'Get a host',
      ok: { status: 200, description: 'The host', schema: hostViewSchema },
      errors: [404],
    },
    requirePermission('host', 'read'),
    (ctx) => {
      const { resource, view } = resolveHost(ctx, deps, hostId(ctx));
      ctx.body = renderHost(ctx, deps, resource, view);
    },
  );

  router.patch(
    '/api/v1/hosts/:hostId',
    {
      tag: 'Hosts',
      summary: 'Change a host (enable, disable, folders...)',
      body: mergePatchContent(hostPatchSchema),
      ok: { status: 200, description: 'The changed host', schema: hostViewSchema },
      errors: [400, 404, 413, 415],
    },
    requirePermission('host', 'write'),
    (ctx) => patchHost(ctx, deps, hostId(ctx)),
  );

  router.delete(
    '/api/v1/hosts/:hostId',
    {
      tag: 'Hosts',
      summary: 'Stop monitoring a host (its outputs go too)',
      ok: { status: 204, description: 'Deleted' },
      errors: [404],
    },
    requirePermission('host', 'write'),
    (ctx) => deleteHost(ctx, deps, hostId(ctx)),
  );

  // The agents monitoring the host: the agent hosting the API (filtered by what the client may see of agents).
  router.get(
    '/api/v1/hosts/:hostId/agents',
    {
      tag: 'Hosts',
      summary: 'Agents monitoring a host',
      ok: { status: 200, description: 'Agents', schema: listOf(agentViewSchema) },
      errors: [404],
    },
    requirePermission('host', 'read'),
    (ctx) => {
      resolveHost(ctx, deps, hostId(ctx));
      renderAgentList(ctx, deps, (agent) => agent.id === deps.localAgent.id);
    },
  );

  // Newest first; Detailed Only (a client that sees the host only in the limited view gets 401).
  router.get(
    '/api/v1/hosts/:hostId/statusHistory',
    {
      access: 'detailed',
      tag: 'Hosts',
      summary: 'Status changes of a host, newest first (Detailed Only)',
      ok: { status: 200, description: 'Statuses', schema: listOf(statusSchema) },
      errors: [404],
    },
    requirePermission('host', 'read'),
    (ctx) => {
      const { resource, view } = resolveHost(ctx, deps, hostId(ctx));
      if (view !== 'detailed') throw forbiddenById('host', 'read');
      ctx.body = deps.status.host(resource.id)?.statusHistory ?? [renderHost(ctx, deps, resource, view).status];
    },
  );

  router.get(
    '/api/v1/hosts/:hostId/outputs',
    {
      tag: 'Hosts',
      summary: 'Outputs of a host',
      ok: { status: 200, description: 'Outputs', schema: listOf(outputViewSchema) },
      errors: [404],
    },
    requirePermission('output', 'read'),
    (ctx) => {
      const { resource } = resolve(ctx, 'output', 'read', deps.hosts.find(hostId(ctx)), 'there is no such host');
      ctx.body = visible(ctx, 'output', deps.outputs.ofHost(resource.id)).map(({ item }) =>
        renderOutput(ctx, deps, item),
      );
    },
  );

  router.post(
    '/api/v1/hosts/:hostId/outputs',
    {
      tag: 'Hosts',
      summary: 'Add an output to a host',
      body: jsonContent(outputWriteSchema),
      ok: { status: 201, description: 'The output', schema: outputViewSchema },
      errors: [400, 404, 413, 415],
    },
    requirePermission('output', 'write'),
    async (ctx) => {
      const { resource } = resolve(ctx, 'output', 'write', deps.hosts.find(hostId(ctx)), 'there is no such host');
      await createOutput(ctx, deps, { hostId: resource.id });
    },
  );

  router.get(
    '/api/v1/hosts/:hostId/outputs/:outputId',
    {
      tag: 'Hosts',
      summary: 'Get an output of a host',
      ok: { status: 200, description: 'The output', schema: outputViewSchema },
      errors: [404],
    },
    requirePermission('output', 'read'),
    (ctx) => {
      const { resource } = resolveOutput(ctx, deps, outputId(ctx), { hostId: hostId(ctx) });
      ctx.body = renderOutput(ctx, deps, resource);
    },
  );

  router.patch(
    '/api/v1/hosts/:hostId/outputs/:outputId',
    {
      tag: 'Hosts',
      summary: 'Change an output (enable, disable, format, filter...)',
      body: mergePatchContent(outputPatchSchema),
      ok: { status: 200, description: 'The changed output', schema: outputViewSchema },
      errors: [400, 404, 413, 415],
    },
    requirePermission('output', 'write'),
    (ctx) => patchOutput(ctx, deps, outputId(ctx), { hostId: hostId(ctx) }),
  );

  router.delete(
    '/api/v1/hosts/:hostId/outputs/:outputId',
    {
      tag: 'Hosts',
      summary: 'Delete an output (its files follow the orphan retention)',
      ok: { status: 204, description: 'Deleted' },
      errors: [404],
    },
    requirePermission('output', 'write'),
    (ctx) => deleteOutput(ctx, deps, outputId(ctx), { hostId: hostId(ctx) }),
  );

  // Newest first (docs/agent-api.md). Outputs have no Detailed Only attribute, so every reader gets it.
  router.get(
    '/api/v1/hosts/:hostId/outputs/:outputId/statusHistory',
    {
      tag: 'Hosts',
      summary: 'Status changes of an output, newest first',
      ok: { status: 200, description: 'Statuses', schema: listOf(statusSchema) },
      errors: [404],
    },
    requirePermission('output', 'read'),
    (ctx) => {
      const { resource } = resolveOutput(ctx, deps, outputId(ctx), { hostId: hostId(ctx) });
      ctx.body = deps.status.output(resource.id)?.statusHistory ?? [renderOutput(ctx, deps, resource).status];
    },
  );
}
