/**
 * `GET /api/v1/openapi.json`: the OpenAPI 3.1 description of this API, for any client with a
 * valid access token (the routes are not secret — the same document is in the repository — but
 * the API answers nothing to anonymous callers, docs/authentication.md). The document is built
 * once; only `servers` follows the address the client used.
 */
import type { AgentApiRouter } from './openapi/route-doc.js';
import { buildOpenApiDocument, DEFAULT_SERVER } from './openapi/openapi-document.js';
import { z } from 'zod';

export function registerOpenApiRoute(router: AgentApiRouter, deps: { version: string; apiPort: () => number }): void {
  let text: string | null = null;
  router.get(
    '/api/v1/openapi.json',
    {
      access: 'token',
      tag: 'Reference',
      summary: 'This OpenAPI description',
      ok: { status: 200, description: 'OpenAPI 3.1 document', content: { 'application/json': z.looseObject({}) } },
      errors: [],
    },
    (ctx) => {
      text ??= JSON.stringify(buildOpenApiDocument(deps.version));
      const origin = `https://${ctx.host || `127.0.0.1:${deps.apiPort()}`}`;
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = text.replace(JSON.stringify(DEFAULT_SERVER), JSON.stringify(origin));
    },
  );
}
