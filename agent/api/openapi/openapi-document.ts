/**
 * The OpenAPI 3.1 description of the whole agent API, generated from the same zod schemas
 * that validate requests and type the responses (@asteasolutions/zod-to-openapi), from the
 * table in route-docs.ts. Served at `GET /api/v1/openapi.json` and kept in the repository as
 * docs/openapi.json (`npm run openapi` writes it; a test fails when it is stale).
 */
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { errorBodySchema } from '../schemas/common-schemas.js';
import { ROUTE_DOCS, tokenErrorSchema, type RouteDoc } from './route-docs.js';

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

function register(registry: OpenAPIRegistry, route: RouteDoc): void {
  const isToken = route.permission === null;
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
  const params = pathParams(route.path);
  registry.registerPath({
    method: route.method,
    path: route.path,
    tags: [route.tag],
    summary: route.summary,
    description: isToken ? 'No access token needed.' : `Permissions: ${route.permission}.`,
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
  for (const route of ROUTE_DOCS) register(registry, route);
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
