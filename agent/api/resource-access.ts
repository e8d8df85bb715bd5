/**
 * How the resource routes apply the permission engine (docs/permissions.md). Everything this
 * agent configures — its hosts, their outputs, its domains and their outputs and policies — is
 * "local" (docs/permissions.md: the agent hosting the API, its hosts, its domain...); only registered
 * agents are "other". A resource named by id that does not exist counts as "other", so a client
 * limited to local resources gets 401 for it as for a foreign one (404 only for a client that
 * could see such a resource).
 */
import type Koa from 'koa';
import type { Action, Locality, ResourceKind, View } from '../../shared/permission-engine.js';
import { apiAuth } from './bearer-auth.js';
import { forbiddenById } from './require-permission.js';
import { notFound } from '../http/api-error.js';

export interface Resolved<T> {
  resource: T;
  view: View;
}

/**
 * A resource named by id: returned with the client's view of it, or 401 (may not see or
 * change such a resource) / 404 (could, but there is none; `missing` says what is missing).
 */
export function resolve<T>(
  ctx: Koa.Context,
  kind: ResourceKind,
  action: Action,
  resource: T | undefined,
  missing: string,
  locality: Locality = resource === undefined ? 'other' : 'local',
): Resolved<T> {
  const decision = apiAuth(ctx).access.byId(kind, action, { exists: resource !== undefined, locality });
  if (decision.outcome === 'unauthorized') throw forbiddenById(kind, action);
  if (decision.outcome === 'not_found' || resource === undefined) throw notFound(missing);
  return { resource, view: decision.view };
}

/** A collection (docs/permissions.md): what the client may see, each with its view. */
export function visible<T>(
  ctx: Koa.Context,
  kind: ResourceKind,
  items: readonly T[],
  localityOf: (item: T) => Locality = () => 'local',
): Array<{ item: T; view: View }> {
  return apiAuth(ctx).access.filter(kind, items, localityOf);
}

/** 201 Created with the new resource and its Location (RFC 9110 §15.3.2). */
export function created(ctx: Koa.Context, body: { url: string }): void {
  ctx.status = 201;
  ctx.set('Location', body.url);
  ctx.body = body;
}

export function noContent(ctx: Koa.Context): void {
  ctx.status = 204;
  ctx.body = null;
}
