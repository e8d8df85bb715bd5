/**
 * Every route of the agent API, registered in one place: the token endpoint (no access token)
 * and, behind bearer tokens, the OpenAPI document and the resource routes. The running agent
 * serves these routers; the OpenAPI description is generated from the same registration
 * (`documentedRoutes`), so a route and its description cannot drift apart.
 */
import { ApiRouter, type RouteInfo } from '../http/api-router.js';
import { registerOpenApiRoute } from './openapi-router.js';
import type { RouteDoc } from './openapi/route-doc.js';
import type { ResourceRouteDeps } from './resource-deps.js';
import { registerResourceRoutes } from './resource-routes.js';
import { registerTokenRoute, type TokenRouterDeps } from './token-router.js';

export interface AgentApiRoutes {
  /** Open to any client on the allow-list: the token endpoint. */
  publicRoutes: ApiRouter<RouteDoc>;
  /** Behind a bearer token. */
  routes: ApiRouter<RouteDoc>;
}

export function agentApiRoutes(deps: {
  token: TokenRouterDeps;
  openApi: { version: string; apiPort: () => number };
  resources: ResourceRouteDeps;
}): AgentApiRoutes {
  const publicRoutes = new ApiRouter<RouteDoc>();
  registerTokenRoute(publicRoutes, deps.token);
  const routes = new ApiRouter<RouteDoc>();
  registerOpenApiRoute(routes, deps.openApi);
  registerResourceRoutes(routes, deps.resources);
  return { publicRoutes, routes };
}

/**
 * The routes as registered, with their documentation, without a running agent: handlers are
 * built around services they never call here, so placeholders stand in for them.
 */
export function documentedRoutes(): ReadonlyArray<RouteInfo<RouteDoc>> {
  const unused = {} as never;
  const { publicRoutes, routes } = agentApiRoutes({
    token: { clients: unused, tokens: unused, log: unused, rateLimit: unused },
    openApi: { version: '', apiPort: () => 0 },
    resources: unused,
  });
  return [...publicRoutes.routes(), ...routes.routes()];
}
