/**
 * Requests to the agent API's resources with a client application of the given permissions:
 * one token per permission set, JSON and merge-patch bodies, and the zod schemas of the
 * resources to check every answer against the OpenAPI description's source.
 */
import type { z } from 'zod';
import type { TestAgent } from './test-agent.js';
import type { Permission } from '../../shared/permissions.js';
import { apiRequest, bearer, enrolClient, obtainTokens, type ApiResponse } from './api-client.js';
import { label } from './permission-table.js';

const tokens = new WeakMap<TestAgent, Map<string, string>>();
let clients = 0;

/** An access token of a client holding exactly `permissions` (one client per set and agent). */
export async function tokenFor(agent: TestAgent, permissions: readonly Permission[]): Promise<string> {
  let byAgent = tokens.get(agent);
  if (!byAgent) tokens.set(agent, (byAgent = new Map()));
  const key = label(permissions);
  let token = byAgent.get(key);
  if (!token) {
    const client = await enrolClient(agent, [...permissions], `resources ${key} ${++clients}`);
    token = (await obtainTokens(agent, client)).access_token;
    byAgent.set(key, token);
  }
  return token;
}

export interface CallOptions {
  body?: unknown;
  /** Sent as is (not JSON-encoded). */
  raw?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

export async function call(
  agent: TestAgent,
  permissions: readonly Permission[],
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...bearer(await tokenFor(agent, permissions)), ...options.headers };
  let body: string | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) {
    headers['Content-Type'] =
      options.contentType ?? (method === 'PATCH' ? 'application/merge-patch+json' : 'application/json');
  }
  return apiRequest(agent, { method, path, headers, ...(body !== undefined ? { body } : {}) });
}

/** The parsed JSON array of a list answer. */
export function listOf(response: ApiResponse): Array<Record<string, unknown>> {
  return JSON.parse(response.text) as Array<Record<string, unknown>>;
}

/** Throws with the zod message when `value` does not match `schema` (the resource as documented). */
export function conforms<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success)
    throw new Error(`answer does not match its schema: ${result.error.message}\n${JSON.stringify(value)}`);
  return result.data;
}

export const ALL: Permission[] = ['read', 'accessActivityData', 'policyChange', 'modifyHost', 'modifyAgent'];
