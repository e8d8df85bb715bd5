/**
 * The OpenAPI 3.1 description of the whole agent API, generated from the same zod schemas
 * that validate requests and type the responses (@asteasolutions/zod-to-openapi), from the
 * routes as registered with their documentation (agent-api-routes.ts, route-doc.ts). Served at `GET /api/v1/openapi.json` and kept in the repository as
 * docs/openapi.json (`npm run openapi` writes it; a test fails when it is stale).
 */
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { errorBodySchema } from '../schemas/common-schemas.js';
import type { RouteInfo } from '../../http/api-router.js';
import { documentedRoutes } from '../agent-api-routes.js';
import { requiredPermission } from '../require-permission.js';
import { tokenErrorSchema } from '../schemas/token-schemas.js';
import { permissionText } from './permission-text.js';
import type { RouteDoc } from './route-doc.js';

const ERROR_TEXT: Record<number, string> = {
  400: 'Bad input: the body names the field (`field`)',
  401: 'No valid access token (`invalid_token`), or the permissions do not allow this (`insufficient_permission`; also for a resource named by id that the client may not see)',
  404: 'No such resource (only for a client that could see one)',
  405: 'Method not allowed on this path (`Allow` lists the methods)',
  409: 'The request conflicts with the resource (the agent hosting the API; hosts of another agent)',
  413: 'The body is too large',
  415: 'The body is not in a format the route takes',
  416: 'No requested byte range is in the file (`Content-Range: bytes */size`)',
};

export const DEFAULT_SERVER = 'https://localhost:4494';

function pathParams(path: string): z.ZodObject | undefined {
  const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  if (names.length === 0) return undefined;
  return z.object(Object.fromEntries(names.map((name) => [name, z.string()])));
}

/** Who may call the route, in words; null for the token endpoint (no access token). */
function permissionOf(info: RouteInfo<RouteDoc>, doc: RouteDoc): string | null {
  if (doc.access === 'none') return null;
  if (doc.access === 'token') return 'any valid access token';
  const required = requiredPermission(info.middleware);
  if (!required) throw new Error(`route ${info.method} ${info.path} has neither a permission guard nor an access note`);
  return permissionText(required.kind, required.action, doc.access === 'detailed');
}

function register(registry: OpenAPIRegistry, info: RouteInfo<RouteDoc>): void {
  const route = info.doc;
  if (!route) throw new Error(`route ${info.method} ${info.path} is not documented`);
  const path = info.path.replace(/:(\w+)/g, '{$1}');
  const permission = permissionOf(info, route);
  const isToken = permission === null;
  const errorSchema = isToken ? tokenErrorSchema : errorBodySchema;
  const responses: Record<string, { description: string; content?: Record<string, { schema: z.ZodType }> }> = {};
  const okContent = route.ok.content ?? (route.ok.schema ? { 'application/json': route.ok.schema } : undefined);
  responses[String(route.ok.status)] = {
    description: route.ok.description,
    ...(okContent
      ? { content: Object.fromEntries(Object.entries(okContent).map(([type, schema]) => [type, { schema }])) }
      : {}),
  };
  for (const status of [...new Set([...route.errors, 401, 405])].sort()) {
    responses[String(status)] = {
      description: ERROR_TEXT[status] ?? 'Error',
      ...(status === 405 ? {} : { content: { 'application/json': { schema: errorSchema } } }),
    };
  }
  const params = pathParams(path);
  registry.registerPath({
    method: info.method.toLowerCase() as Lowercase<typeof info.method>,
    path,
    tags: [route.tag],
    summary: route.summary,
    description: isToken ? 'No access token needed.' : `Permissions: ${permission}.`,
    ...(isToken ? { security: [] } : {}),
    request: {
      ...(params ? { params } : {}),
      ...(route.query ? { query: route.query } : {}),
      ...(route.body
        ? {
            body: {
              required: true,
              content: Object.fromEntries(Object.entries(route.body).map(([type, schema]) => [type, { schema }])),
            },
          }
        : {}),
    },
    responses,
  });
}

/** The document; `server` is the agent's address as the client reaches it. */
export function buildOpenApiDocument(version: string, server = DEFAULT_SERVER): Record<string, unknown> {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'An access token from POST /api/v1/token (docs/authentication.md).',
  });
  for (const route of documentedRoutes()) register(registry, route);
  const document = new OpenApiGeneratorV31(registry.definitions, { sortComponents: 'alphabetically' }).generateDocument(
    {
      openapi: '3.1.0',
      info: {
        title: 'Vigil agent API',
        version,
        description:
          'REST API of the Vigil agent (docs/agent-api.md): agents, hosts, outputs, domains, policies and log files. ' +
          'OAuth 2.0 client credentials; five permissions (docs/permissions.md). Reference for users: docs/agent-api.md.',
      },
      servers: [{ url: server }],
      security: [{ bearer: [] }],
    },
  );
  return document as unknown as Record<string, unknown>;
}
