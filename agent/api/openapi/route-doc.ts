/**
 * The documentation a route of the agent API carries where it is registered (agent/http/api-router.ts):
 *
 *   router.get('/api/v1/hosts', { tag: 'Hosts', summary: 'List hosts', ok: ok('Hosts', list(hostViewSchema)), errors: [] },
 *     requirePermission('host', 'read'), handler);
 *
 * Who may call it is not written here: it is read from the route's `requirePermission` guard and
 * put in words from the permission table (shared/permission-engine.ts, docs/permissions.md).
 * openapi-document.ts turns the registered routes into the OpenAPI description.
 */
import { z } from 'zod';
import type { ApiRouter } from '../../http/api-router.js';

export interface RouteDoc {
  tag: string;
  summary: string;
  /**
   * For a route without a `requirePermission` guard: `token` = any valid access token, `none` =
   * no token at all (the token endpoint). `detailed` = the guard's readers with a detailed view only.
   */
  access?: 'token' | 'none' | 'detailed';
  query?: z.ZodObject;
  body?: Record<string, z.ZodType>;
  /** The success answer: status, description and body (none for 204 and downloads). */
  ok: { status: 200 | 201 | 204; description: string; schema?: z.ZodType; content?: Record<string, z.ZodType> };
  /** Failure statuses besides 401 (every authenticated route) and 405. */
  errors: readonly number[];
}

/** The agent API's routers: every route documented. */
export type AgentApiRouter = ApiRouter<RouteDoc>;

export const jsonContent = (schema: z.ZodType): Record<string, z.ZodType> => ({ 'application/json': schema });
export const mergePatchContent = (schema: z.ZodType): Record<string, z.ZodType> => ({
  'application/merge-patch+json': schema,
  'application/json': schema,
});
export const listOf = (schema: z.ZodType): z.ZodType => z.array(schema);

/** A JSON Merge Patch of `schema` (RFC 7396): every member optional, `null` removes (resets) it. */
export function mergePatchOf(schema: z.ZodObject, id: string, description: string): z.ZodType {
  const shape = Object.fromEntries(
    Object.entries(schema.shape).map(([key, value]) => [key, (value as z.ZodType).nullable().optional()]),
  );
  return z.strictObject(shape).meta({ id, description: `JSON Merge Patch (RFC 7396): ${description}` });
}
