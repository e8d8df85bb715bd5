/**
 * `/api/v1/outputs` and `/api/v1/outputs/{id}`: every output of this agent, host outputs then
 * domain outputs (docs/agent-api.md). Changes go through the host or domain path.
 */
import { requirePermission } from './require-permission.js';
import { pathParam } from '../http/api-router.js';
import { renderOutput, resolveOutput } from './output-handlers.js';
import { visible } from './resource-access.js';
import type { ResourceRouteDeps } from './resource-deps.js';
import { outputViewSchema } from './schemas/output-schemas.js';
import { listOf, type AgentApiRouter } from './openapi/route-doc.js';

export function registerOutputRoutes(router: AgentApiRouter, deps: ResourceRouteDeps): void {
  router.get(
    '/api/v1/outputs',
    {
      tag: 'Outputs',
      summary: 'List every output (host outputs, then domain outputs)',
      ok: { status: 200, description: 'Outputs', schema: listOf(outputViewSchema) },
      errors: [],
    },
    requirePermission('output', 'read'),
    (ctx) => {
      ctx.body = visible(ctx, 'output', deps.outputs.list()).map(({ item }) => renderOutput(ctx, deps, item));
    },
  );

  router.get(
    '/api/v1/outputs/:outputId',
    {
      tag: 'Outputs',
      summary: 'Get an output',
      ok: { status: 200, description: 'The output', schema: outputViewSchema },
      errors: [404],
    },
    requirePermission('output', 'read'),
    (ctx) => {
      const { resource } = resolveOutput(ctx, deps, pathParam(ctx, 'outputId'), null);
      ctx.body = renderOutput(ctx, deps, resource);
    },
  );
}
