/**
 * `/api/v1/domains/{domainId}/policies/...` (docs/agent-api.md): a domain's Active
 * Directory monitoring policies. Read and Policy change read them (detailed: with `xml`);
 * Policy change creates, changes and deletes them. POST takes the JSON resource or the raw
 * policy document (`application/xml`); the list filters on `isEnabled` and `path`.
 */
import type Koa from 'koa';
import { applyMergePatch } from '../../shared/merge-patch.js';
import { POLICY_XML_MAX } from '../config/directory-schema.js';
import { requirePermission } from './require-permission.js';
import { pathParam } from '../http/api-router.js';
import { resolveDomain } from './domain-access.js';
import {
  booleanQuery,
  parseInput,
  readJsonOrXml,
  readMergePatch,
  rejectReadOnly,
  viaService,
} from './request-input.js';
import { created, noContent, resolve, visible, type Resolved } from './resource-access.js';
import { actorOf, linksOf, type ResourceRouteDeps } from './resource-deps.js';
import {
  POLICY_READ_ONLY,
  policyCreateSchema,
  policyListQuerySchema,
  policyViewSchema,
  policyWriteSchema,
} from './schemas/policy-schemas.js';
import { policyView } from './views/policy-view.js';
import type { PolicySettings } from '../config/directory-schema.js';
import { invalidInput } from '../http/api-error.js';
import { policyPatchSchema } from './openapi/patch-schemas.js';
import { z } from 'zod';
import { listOf, mergePatchContent, type AgentApiRouter } from './openapi/route-doc.js';

/** Room for the largest policy document in JSON (escaping can double it) and the other fields. */
const POLICY_BODY_LIMIT = 2 * POLICY_XML_MAX + 16 * 1024;

function resolvePolicy(ctx: Koa.Context, deps: ResourceRouteDeps, action: 'read' | 'write'): Resolved<PolicySettings> {
  const { resource: domain } = resolveDomain(ctx, deps, 'policy', action);
  return resolve(
    ctx,
    'policy',
    action,
    deps.policies.find(domain.id, pathParam(ctx, 'policyId')),
    'there is no such policy',
  );
}

export function registerPolicyRoutes(router: AgentApiRouter, deps: ResourceRouteDeps): void {
  router.get(
    '/api/v1/domains/:domainId/policies',
    {
      tag: 'Policies',
      summary: 'List a domain’s policies',
      query: policyListQuerySchema,
      ok: { status: 200, description: 'Policies', schema: listOf(policyViewSchema) },
      errors: [400, 404],
    },
    requirePermission('policy', 'read'),
    (ctx) => {
      const { resource: domain } = resolveDomain(ctx, deps, 'policy');
      const path = ctx.query['path'];
      if (Array.isArray(path)) throw invalidInput('path', 'path: give the parameter once');
      const filter = {
        isEnabled: ctx.query['isEnabled'] === undefined ? undefined : booleanQuery(ctx, 'isEnabled', true),
        path,
      };
      const links = linksOf(ctx, deps);
      ctx.body = visible(ctx, 'policy', deps.policies.list(domain.id, filter)).map(({ item, view }) =>
        policyView(item, links, view),
      );
    },
  );

  router.post(
    '/api/v1/domains/:domainId/policies',
    {
      tag: 'Policies',
      summary: 'Add a policy (JSON, or the raw policy XML)',
      body: {
        'application/json': policyCreateSchema,
        'application/xml': z
          .string()
          .meta({ description: 'The policy document; name, description, path and enabled are read from it.' }),
      },
      ok: { status: 201, description: 'The policy', schema: policyViewSchema },
      errors: [400, 404, 413, 415],
    },
    requirePermission('policy', 'write'),
    async (ctx) => {
      const { resource: domain } = resolveDomain(ctx, deps, 'policy', 'write');
      const body = await readJsonOrXml(ctx, POLICY_BODY_LIMIT);
      let fields;
      if ('xml' in body) {
        fields = { xml: body.xml };
      } else {
        rejectReadOnly(body.json, POLICY_READ_ONLY);
        fields = parseInput(policyCreateSchema, body.json);
      }
      const policy = await viaService(() => deps.policies.create(domain.id, fields, actorOf(ctx)));
      created(ctx, policyView(policy, linksOf(ctx, deps), 'detailed'));
    },
  );

  router.get(
    '/api/v1/domains/:domainId/policies/:policyId',
    {
      tag: 'Policies',
      summary: 'Get a policy',
      ok: { status: 200, description: 'The policy', schema: policyViewSchema },
      errors: [404],
    },
    requirePermission('policy', 'read'),
    (ctx) => {
      const { resource, view } = resolvePolicy(ctx, deps, 'read');
      ctx.body = policyView(resource, linksOf(ctx, deps), view);
    },
  );

  router.patch(
    '/api/v1/domains/:domainId/policies/:policyId',
    {
      tag: 'Policies',
      summary: 'Change a policy',
      body: mergePatchContent(policyPatchSchema),
      ok: { status: 200, description: 'The changed policy', schema: policyViewSchema },
      errors: [400, 404, 413, 415],
    },
    requirePermission('policy', 'write'),
    async (ctx) => {
      const { resource, view } = resolvePolicy(ctx, deps, 'write');
      const patch = await readMergePatch(ctx, POLICY_BODY_LIMIT);
      rejectReadOnly(patch, POLICY_READ_ONLY);
      const policy = await viaService(() =>
        deps.policies.update(
          resource.domainId,
          resource.id,
          (current) => parseInput(policyWriteSchema, applyMergePatch(current, patch)),
          actorOf(ctx),
        ),
      );
      ctx.body = policyView(policy, linksOf(ctx, deps), view);
    },
  );

  router.delete(
    '/api/v1/domains/:domainId/policies/:policyId',
    {
      tag: 'Policies',
      summary: 'Delete a policy',
      ok: { status: 204, description: 'Deleted' },
      errors: [404],
    },
    requirePermission('policy', 'write'),
    async (ctx) => {
      const { resource } = resolvePolicy(ctx, deps, 'write');
      await viaService(() => deps.policies.remove(resource.domainId, resource.id, actorOf(ctx)));
      noContent(ctx);
    },
  );
}
