/**
 * `/api/v1/domains/...` (docs/agent-api.md): the directory domains this agent knows,
 * the agents reading them, their outputs and their Active Directory monitoring policies.
 * Domains are read-only here (the console changes them); their outputs are managed with Modify
 * host, their policies with Policy change.
 */
import type Koa from 'koa';
import { requirePermission } from './require-permission.js';
import { pathParam, type ApiRouter } from '../http/api-router.js';
import { renderAgentList } from './agents-router.js';
import { createOutput, deleteOutput, patchOutput, renderOutput, resolveOutput } from './output-handlers.js';
import { registerPolicyRoutes } from './policies-router.js';
import { visible } from './resource-access.js';
import { resolveDomain } from './domain-access.js';
import { viewDeps, type ResourceRouteDeps } from './resource-deps.js';
import { domainView } from './views/domain-view.js';

export function registerDomainRoutes(router: ApiRouter, deps: ResourceRouteDeps): void {
  const outputId = (ctx: Koa.Context): string => pathParam(ctx, 'outputId');

  router.get('/api/v1/domains', requirePermission('domain', 'read'), (ctx) => {
    const shown = visible(ctx, 'domain', deps.domains.list());
    ctx.body = shown.map(({ item, view }) =>
      domainView(item, deps.outputs.ofDomain(item.id), viewDeps(ctx, deps), view, deps.domainStatus?.get(item.id)),
    );
  });

  router.get('/api/v1/domains/:domainId', requirePermission('domain', 'read'), (ctx) => {
    const { resource, view } = resolveDomain(ctx, deps);
    const status = deps.domainStatus?.get(resource.id);
    ctx.body = domainView(resource, deps.outputs.ofDomain(resource.id), viewDeps(ctx, deps), view, status);
  });

  // The agents reading the domain: the agent hosting the API.
  router.get('/api/v1/domains/:domainId/agents', requirePermission('domain', 'read'), (ctx) => {
    resolveDomain(ctx, deps);
    renderAgentList(ctx, deps, (agent) => agent.id === deps.localAgent.id);
  });

  router.get('/api/v1/domains/:domainId/outputs', requirePermission('output', 'read'), (ctx) => {
    const { resource } = resolveDomain(ctx, deps, 'output');
    ctx.body = visible(ctx, 'output', deps.outputs.ofDomain(resource.id)).map(({ item }) =>
      renderOutput(ctx, deps, item),
    );
  });

  router.post('/api/v1/domains/:domainId/outputs', requirePermission('output', 'write'), async (ctx) => {
    const { resource } = resolveDomain(ctx, deps, 'output', 'write');
    await createOutput(ctx, deps, { domainId: resource.id });
  });

  router.get('/api/v1/domains/:domainId/outputs/:outputId', requirePermission('output', 'read'), (ctx) => {
    const { resource } = resolveOutput(ctx, deps, outputId(ctx), { domainId: pathParam(ctx, 'domainId') });
    ctx.body = renderOutput(ctx, deps, resource);
  });

  router.patch('/api/v1/domains/:domainId/outputs/:outputId', requirePermission('output', 'write'), (ctx) =>
    patchOutput(ctx, deps, outputId(ctx), { domainId: pathParam(ctx, 'domainId') }),
  );

  router.delete('/api/v1/domains/:domainId/outputs/:outputId', requirePermission('output', 'write'), (ctx) =>
    deleteOutput(ctx, deps, outputId(ctx), { domainId: pathParam(ctx, 'domainId') }),
  );

  registerPolicyRoutes(router, deps);
}
