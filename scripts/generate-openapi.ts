/**
 * Writes docs/openapi.json, the OpenAPI 3.1 description of the agent API, from the zod schemas
 * (agent/api/openapi/). Run `npm run openapi` after changing a route or a resource schema;
 * test/integration/openapi.test.ts fails while the file is stale.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument } from '../agent/api/openapi/openapi-document.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };

export function openApiFileText(): string {
  return `${JSON.stringify(buildOpenApiDocument(version), null, 2)}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const target = path.join(root, 'docs', 'openapi.json');
  fs.writeFileSync(target, openApiFileText());
  console.log(`wrote ${path.relative(root, target)}`);
}
