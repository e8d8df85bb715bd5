/**
 * Route-level permission checks (docs/permissions.md). A route declares what it needs where it
 * is registered:
 *
 *   router.get('/api/v1/agents', requirePermission('agent', 'read'), listAgents);
 *   router.patch('/api/v1/hosts/:id', requirePermission('host', 'write'), patchHost);
 *
 * `requirePermission(kind, action)` lets the request through when the client's permissions
 * allow `action` on at least some resource of `kind`; otherwise 401 `insufficient_permission`
 * (the product's rule, docs/permissions.md: 401, not RFC 6750's 403 `insufficient_scope`). The handler
 * then asks `apiAuth(ctx).access` about each resource: `filter` for collections, `byId` for a
 * resource named by id, and turns a `byId` refusal into `forbiddenById(kind)`.
 */
import type Koa from 'koa';
import type { Action, ResourceKind } from '../../shared/permission-engine.js';
import type { ApiError } from '../http/api-error.js';
import { apiAuth, bearerChallenge } from './bearer-auth.js';

const KIND_TEXT: Record<ResourceKind, string> = {
  agent: 'agents',
  host: 'hosts',
  domain: 'domains',
  output: 'outputs',
  policy: 'policies',
  logFile: 'log files',
};

const SINGULAR_TEXT: Record<ResourceKind, string> = {
  agent: 'agent',
  host: 'host',
  domain: 'domain',
  output: 'output',
  policy: 'policy',
  logFile: 'log file',
};

const ACTION_TEXT: Record<Action, string> = { read: 'read', write: 'change', download: 'download' };

export function insufficientPermission(kind: ResourceKind, action: Action): ApiError {
  return bearerChallenge(
    'insufficient_permission',
    `this client application's permissions do not allow it to ${ACTION_TEXT[action]} ${KIND_TEXT[kind]}`,
  );
}

/** The 401 for a resource named by id that the client may not see or change (docs/permissions.md). */
export function forbiddenById(kind: ResourceKind, action: Action = 'read'): ApiError {
  return bearerChallenge(
    'insufficient_permission',
    `this client application's permissions do not allow it to ${ACTION_TEXT[action]} this ${SINGULAR_TEXT[kind]}`,
  );
}

/** What a route's guard requires; the OpenAPI description reads it (openapi/permission-text.ts). */
export interface RequiredPermission {
  kind: ResourceKind;
  action: Action;
}

export type PermissionGuard = Koa.Middleware & { readonly required: RequiredPermission };

export function requirePermission(kind: ResourceKind, action: Action): PermissionGuard {
  const guard: Koa.Middleware = (ctx, next) => {
    if (!apiAuth(ctx).access.allowsAny(kind, action)) throw insufficientPermission(kind, action);
    return next();
  };
  return Object.assign(guard, { required: { kind, action } });
}

/** The permission a route's chain requires, when one of its middleware is a `requirePermission` guard. */
export function requiredPermission(middleware: readonly Koa.Middleware[]): RequiredPermission | undefined {
  for (const m of middleware) if ('required' in m) return (m as PermissionGuard).required;
  return undefined;
}
