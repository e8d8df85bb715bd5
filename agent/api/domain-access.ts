/** The domain named in a path (`/domains/{domainId}/...`), checked with the rules of what is under it. */
import type Koa from 'koa';
import type { DomainSettings } from '../config/directory-schema.js';
import { pathParam } from '../http/api-router.js';
import { resolve, type Resolved } from './resource-access.js';
import type { ResourceRouteDeps } from './resource-deps.js';

export function resolveDomain(
  ctx: Koa.Context,
  deps: ResourceRouteDeps,
  kind: 'domain' | 'output' | 'policy' = 'domain',
  action: 'read' | 'write' = 'read',
): Resolved<DomainSettings> {
  return resolve(ctx, kind, action, deps.domains.find(pathParam(ctx, 'domainId')), 'there is no such domain');
}
