/**
 * The OpenAPI 3.1 description of the agent API: every registered route is in it and
 * every route it names is registered (both ways), docs/openapi.json is the generated document
 * (run `npm run openapi` when this fails), and the agent serves it to any valid token.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { buildOpenApiDocument } from '../../agent/api/openapi/openapi-document.js';
import { openApiFileText } from '../../scripts/generate-openapi.js';
import { apiRequest } from '../helpers/api-client.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { call } from '../helpers/resource-client.js';
import { startTestAgent } from '../helpers/test-agent.js';

let agent: TestAgent;
beforeAll(async () => {
  agent = await startTestAgent({ version: '9.9.9' });
});
afterAll(() => agent.stop());

type Paths = Record<string, Record<string, unknown>>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function documented(document: Record<string, unknown>): string[] {
  const paths = document['paths'] as Paths;
  return Object.entries(paths).flatMap(([p, operations]) =>
    Object.keys(operations)
      .filter((m) => METHODS.includes(m))
      .map((m) => `${m.toUpperCase()} ${p}`),
  );
}

function registered(): string[] {
  // find-my-way's `:param` is OpenAPI's `{param}`.
  return agent.apiRoutes.map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`);
}

describe('the OpenAPI description', () => {
  it('names every registered route, and only registered routes', () => {
    const doc = documented(buildOpenApiDocument('0.0.0'));
    const routes = registered();
    expect(
      routes.filter((r) => !doc.includes(r)),
      'routes missing from the description',
    ).toEqual([]);
    expect(
      doc.filter((d) => !routes.includes(d)),
      'described routes that do not exist',
    ).toEqual([]);
    expect(new Set(routes).size).toBe(routes.length);
    expect(routes).toContain('POST /api/v1/token');
    expect(routes.length).toBeGreaterThanOrEqual(40);
  });

  it('describes each path parameter, a 401 for every authenticated route and the success answer', () => {
    const document = buildOpenApiDocument('0.0.0');
    expect(document['openapi']).toBe('3.1.0');
    for (const [p, operations] of Object.entries(document['paths'] as Paths)) {
      const names = [...p.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      for (const [method, operation] of Object.entries(operations)) {
        const op = operation as {
          parameters?: Array<{ name: string; in: string }>;
          responses: Record<string, unknown>;
        };
        const params = (op.parameters ?? []).filter((x) => x.in === 'path').map((x) => x.name);
        expect({ route: `${method} ${p}`, params }).toEqual({ route: `${method} ${p}`, params: names });
        expect(Object.keys(op.responses).some((s) => s.startsWith('2'))).toBe(true);
        expect(op.responses['401']).toBeDefined();
      }
    }
  });

  it('is kept in the repository as docs/openapi.json (npm run openapi)', () => {
    const committed = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'openapi.json'), 'utf8');
    expect(committed === openApiFileText(), 'docs/openapi.json is stale: run `npm run openapi`').toBe(true);
  });

  it('is served at GET /api/v1/openapi.json to any valid token, with this agent as server', async () => {
    const response = await call(agent, [], 'GET', '/api/v1/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    const served = response.json!;
    expect(served['servers']).toEqual([{ url: `https://127.0.0.1:${agent.ports.api}` }]);
    expect({ ...served, servers: null }).toEqual({ ...buildOpenApiDocument('9.9.9'), servers: null });
    const anonymous = await apiRequest(agent, { path: '/api/v1/openapi.json' });
    expect(anonymous.status).toBe(401);
  });
});
