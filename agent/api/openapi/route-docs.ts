/**
 * Every route of the agent API as documentation data: method, path, who may call it, what it
 * takes and what it answers. openapi-document.ts turns this table into the OpenAPI 3.1
 * description; test/integration/openapi.test.ts checks it against the registered routes both
 * ways, so a route cannot be added or removed without this table following.
 */
import { z } from 'zod';
import { agentCreateSchema, agentViewSchema, localAgentWriteSchema } from '../schemas/agent-schemas.js';
import { statusSchema } from '../schemas/common-schemas.js';
import { domainViewSchema } from '../schemas/domain-schemas.js';
import { hostCreateSchema, hostViewSchema, hostWriteSchema } from '../schemas/host-schemas.js';
import { logFileViewSchema, logListQuerySchema } from '../schemas/log-file-schemas.js';
import { outputViewSchema, outputWriteSchema } from '../schemas/output-schemas.js';
import {
  policyCreateSchema,
  policyListQuerySchema,
  policyViewSchema,
  policyWriteSchema,
} from '../schemas/policy-schemas.js';
import { tokenErrorSchema, tokenRequestSchema, tokenResponseSchema } from '../schemas/token-schemas.js';

export type DocMethod = 'get' | 'post' | 'patch' | 'delete';

export interface RouteDoc {
  method: DocMethod;
  /** OpenAPI form: `/api/v1/hosts/{hostId}`. */
  path: string;
  tag: string;
  summary: string;
  /** Who may call it (docs/permissions.md); null for the token endpoint. */
  permission: string | null;
  query?: z.ZodObject;
  body?: Record<string, z.ZodType>;
  /** The success answer: status, description and body (none for 204 and downloads). */
  ok: { status: 200 | 201 | 204; description: string; schema?: z.ZodType; content?: Record<string, z.ZodType> };
  /** Failure statuses besides 401 (every authenticated route) and 405. */
  errors: readonly number[];
}

const R = 'Read';
const AAD = 'Access activity data';
const MH = 'Modify host';
const MA = 'Modify agent';
const PC = 'Policy change';

const json = (schema: z.ZodType): Record<string, z.ZodType> => ({ 'application/json': schema });
const patch = (schema: z.ZodType): Record<string, z.ZodType> => ({
  'application/merge-patch+json': schema,
  'application/json': schema,
});
const list = (schema: z.ZodType): z.ZodType => z.array(schema);

/** A JSON Merge Patch of `schema` (RFC 7396): every member optional, `null` removes (resets) it. */
function mergePatchOf(schema: z.ZodObject, id: string, description: string): z.ZodType {
  const shape = Object.fromEntries(
    Object.entries(schema.shape).map(([key, value]) => [key, (value as z.ZodType).nullable().optional()]),
  );
  return z.strictObject(shape).meta({ id, description: `JSON Merge Patch (RFC 7396): ${description}` });
}

const agentPatchSchema = z
  .union([
    mergePatchOf(
      localAgentWriteSchema,
      'LocalAgentPatch',
      'the agent hosting the API; null resets a field to its default.',
    ),
    mergePatchOf(agentCreateSchema, 'RegisteredAgentPatch', 'a registered agent; null resets a field to its default.'),
  ])
  .meta({ id: 'AgentPatch' });
const hostPatchSchema = mergePatchOf(hostWriteSchema, 'HostPatch', 'null resets a field to its default.');
const outputPatchSchema = mergePatchOf(
  outputWriteSchema,
  'OutputPatch',
  'logFile, syslog and fileFilter merge member by member; null removes a member.',
);
const policyPatchSchema = mergePatchOf(policyWriteSchema, 'PolicyPatch', 'null resets a field to its default.');

const hostCreate = {
  ok: { status: 201, description: 'The host, with its outputs', schema: hostViewSchema },
  errors: [400, 404, 409, 413, 415],
} as const;

export const ROUTE_DOCS: RouteDoc[] = [
  {
    method: 'post',
    path: '/api/v1/token',
    tag: 'Authentication',
    summary: 'Obtain an access token (client_credentials) or a new pair (refresh_token)',
    permission: null,
    body: { 'application/x-www-form-urlencoded': tokenRequestSchema },
    ok: { status: 200, description: 'Tokens (Cache-Control: no-store)', schema: tokenResponseSchema },
    errors: [400, 401, 413],
  },
  {
    method: 'get',
    path: '/api/v1/openapi.json',
    tag: 'Reference',
    summary: 'This OpenAPI description',
    permission: 'any valid access token',
    ok: { status: 200, description: 'OpenAPI 3.1 document', content: { 'application/json': z.looseObject({}) } },
    errors: [],
  },
  // Agents
  {
    method: 'get',
    path: '/api/v1/agents',
    tag: 'Agents',
    summary: 'List agents: this one first, then the registered ones',
    permission: `${R}, ${MA}; ${AAD}: this agent only, limited`,
    ok: { status: 200, description: 'Agents', schema: list(agentViewSchema) },
    errors: [],
  },
  {
    method: 'post',
    path: '/api/v1/agents',
    tag: 'Agents',
    summary: 'Register another agent (reachability is checked in the background)',
    permission: MA,
    body: json(agentCreateSchema),
    ok: { status: 201, description: 'The registered agent', schema: agentViewSchema },
    errors: [400, 413, 415],
  },
  {
    method: 'get',
    path: '/api/v1/agents/{agentId}',
    tag: 'Agents',
    summary: 'Get an agent',
    permission: `${R}, ${MA}; ${AAD}: this agent only, limited`,
    ok: { status: 200, description: 'The agent', schema: agentViewSchema },
    errors: [404],
  },
  {
    method: 'patch',
    path: '/api/v1/agents/{agentId}',
    tag: 'Agents',
    summary: 'Change an agent',
    permission: MA,
    body: patch(agentPatchSchema),
    ok: { status: 200, description: 'The changed agent', schema: agentViewSchema },
    errors: [400, 404, 413, 415],
  },
  {
    method: 'delete',
    path: '/api/v1/agents/{agentId}',
    tag: 'Agents',
    summary: 'Forget a registered agent (the agent hosting the API cannot be deleted: 409)',
    permission: MA,
    ok: { status: 204, description: 'Deleted' },
    errors: [404, 409],
  },
  {
    method: 'get',
    path: '/api/v1/agents/{agentId}/hosts',
    tag: 'Agents',
    summary: 'Hosts monitored by an agent (a registered agent’s are not known here: empty)',
    permission: `${R}, ${MH}; ${AAD}: limited`,
    ok: { status: 200, description: 'Hosts', schema: list(hostViewSchema) },
    errors: [404],
  },
  {
    method: 'post',
    path: '/api/v1/agents/{agentId}/hosts',
    tag: 'Agents',
    summary: 'Add a host to this agent (409 for a registered agent)',
    permission: MH,
    body: json(hostCreateSchema),
    ...hostCreate,
  },
  {
    method: 'get',
    path: '/api/v1/agents/{agentId}/hosts/{hostId}',
    tag: 'Agents',
    summary: 'Get a host of an agent',
    permission: `${R}, ${MH}; ${AAD}: limited`,
    ok: { status: 200, description: 'The host', schema: hostViewSchema },
    errors: [404],
  },
  {
    method: 'patch',
    path: '/api/v1/agents/{agentId}/hosts/{hostId}',
    tag: 'Agents',
    summary: 'Change a host of an agent',
    permission: MH,
    body: patch(hostPatchSchema),
    ok: { status: 200, description: 'The changed host', schema: hostViewSchema },
    errors: [400, 404, 409, 413, 415],
  },
  {
    method: 'delete',
    path: '/api/v1/agents/{agentId}/hosts/{hostId}',
    tag: 'Agents',
    summary: 'Stop monitoring a host (its outputs go too)',
    permission: MH,
    ok: { status: 204, description: 'Deleted' },
    errors: [404, 409],
  },
  {
    method: 'get',
    path: '/api/v1/agents/{agentId}/domain',
    tag: 'Agents',
    summary: 'The domain an agent reads (the first enabled domain)',
    permission: `${R}, ${PC}; ${AAD}: limited`,
    ok: { status: 200, description: 'The domain', schema: domainViewSchema },
    errors: [404],
  },
  // Hosts
  {
    method: 'get',
    path: '/api/v1/hosts',
    tag: 'Hosts',
    summary: 'List hosts',
    permission: `${R}, ${MH}; ${AAD}: limited`,
    ok: { status: 200, description: 'Hosts', schema: list(hostViewSchema) },
    errors: [],
  },
  {
    method: 'get',
    path: '/api/v1/hosts/{hostId}',
    tag: 'Hosts',
    summary: 'Get a host',
    permission: `${R}, ${MH}; ${AAD}: limited`,
    ok: { status: 200, description: 'The host', schema: hostViewSchema },
    errors: [404],
  },
  {
    method: 'patch',
    path: '/api/v1/hosts/{hostId}',
    tag: 'Hosts',
    summary: 'Change a host (enable, disable, folders...)',
    permission: MH,
    body: patch(hostPatchSchema),
    ok: { status: 200, description: 'The changed host', schema: hostViewSchema },
    errors: [400, 404, 413, 415],
  },
  {
    method: 'delete',
    path: '/api/v1/hosts/{hostId}',
    tag: 'Hosts',
    summary: 'Stop monitoring a host (its outputs go too)',
    permission: MH,
    ok: { status: 204, description: 'Deleted' },
    errors: [404],
  },
  {
    method: 'get',
    path: '/api/v1/hosts/{hostId}/agents',
    tag: 'Hosts',
    summary: 'Agents monitoring a host',
    permission: `${R}, ${MH}; ${AAD}: limited`,
    ok: { status: 200, description: 'Agents', schema: list(agentViewSchema) },
    errors: [404],
  },
  {
    method: 'get',
    path: '/api/v1/hosts/{hostId}/statusHistory',
    tag: 'Hosts',
    summary: 'Status changes of a host, newest first (Detailed Only)',
    permission: `${R}, ${MH}`,
    ok: { status: 200, description: 'Statuses', schema: list(statusSchema) },
    errors: [404],
  },
  {
    method: 'get',
    path: '/api/v1/hosts/{hostId}/outputs',
    tag: 'Hosts',
    summary: 'Outputs of a host',
    permission: `${R}, ${MH}, ${AAD}`,
    ok: { status: 200, description: 'Outputs', schema: list(outputViewSchema) },
    errors: [404],
  },
  {
    method: 'post',
    path: '/api/v1/hosts/{hostId}/outputs',
    tag: 'Hosts',
    summary: 'Add an output to a host',
    permission: MH,
    body: json(outputWriteSchema),
    ok: { status: 201, description: 'The output', schema: outputViewSchema },
    errors: [400, 404, 413, 415],
  },
  {
    method: 'get',
    path: '/api/v1/hosts/{hostId}/outputs/{outputId}',
    tag: 'Hosts',
    summary: 'Get an output of a host',
    permission: `${R}, ${MH}, ${AAD}`,
    ok: { status: 200, description: 'The output', schema: outputViewSchema },
    errors: [404],
  },
  {
    method: 'patch',
    path: '/api/v1/hosts/{hostId}/outputs/{outputId}',
    tag: 'Hosts',
    summary: 'Change an output (enable, disable, format, filter...)',
    permission: MH,
    body: patch(outputPatchSchema),
    ok: { status: 200, description: 'The changed output', schema: outputViewSchema },
    errors: [400, 404, 413, 415],
  },
  {
    method: 'delete',
    path: '/api/v1/hosts/{hostId}/outputs/{outputId}',
    tag: 'Hosts',
    summary: 'Delete an output (its files follow the orphan retention)',
    permission: MH,
    ok: { status: 204, description: 'Deleted' },
    errors: [404],
  },
  {
    method: 'get',
    path: '/api/v1/hosts/{hostId}/outputs/{outputId}/statusHistory',
    tag: 'Hosts',
    summary: 'Status changes of an output, newest first',
    permission: `${R}, ${MH}, ${AAD}`,
    ok: { status: 200, description: 'Statuses', schema: list(statusSchema) },
    errors: [404],
  },
  // Outputs
  {
    method: 'get',
    path: '/api/v1/outputs',
    tag: 'Outputs',
    summary: 'List every output (host outputs, then domain outputs)',
    permission: `${R}, ${MH}, ${AAD}`,
    ok: { status: 200, description: 'Outputs', schema: list(outputViewSchema) },
    errors: [],
  },
  {
    method: 'get',
    path: '/api/v1/outputs/{outputId}',
    tag: 'Outputs',
    summary: 'Get an output',
    permission: `${R}, ${MH}, ${AAD}`,
    ok: { status: 200, description: 'The output', schema: outputViewSchema },
    errors: [404],
  },
  // Domains and policies
  {
    method: 'get',
    path: '/api/v1/domains',
    tag: 'Domains',
    summary: 'List domains',
    permission: `${R}, ${PC}; ${AAD}: limited`,
    ok: { status: 200, description: 'Domains', schema: list(domainViewSchema) },
    errors: [],
  },
  {
    method: 'get',
    path: '/api/v1/domains/{domainId}',
    tag: 'Domains',
    summary: 'Get a domain',
    permission: `${R}, ${PC}; ${AAD}: limited`,
    ok: { status: 200, description: 'The domain', schema: domainViewSchema },
    errors: [404],
  },
  {
    method: 'get',
    path: '/api/v1/domains/{domainId}/agents',
    tag: 'Domains',
    summary: 'Agents reading a domain',
    permission: `${R}, ${PC}; ${AAD}: limited`,
    ok: { status: 200, description: 'Agents', schema: list(agentViewSchema) },
    errors: [404],
  },
  {
    method: 'get',
    path: '/api/v1/domains/{domainId}/outputs',
    tag: 'Domains',
    summary: 'Outputs of a domain',
    permission: `${R}, ${MH}, ${AAD}`,
    ok: { status: 200, description: 'Outputs', schema: list(outputViewSchema) },
    errors: [404],
  },
  {
    method: 'post',
    path: '/api/v1/domains/{domainId}/outputs',
    tag: 'Domains',
    summary: 'Add an output to a domain',
    permission: MH,
    body: json(outputWriteSchema),
    ok: { status: 201, description: 'The output', schema: outputViewSchema },
    errors: [400, 404, 413, 415],
  },
  {
    method: 'get',
    path: '/api/v1/domains/{domainId}/outputs/{outputId}',
    tag: 'Domains',
    summary: 'Get an output of a domain',
    permission: `${R}, ${MH}, ${AAD}`,
    ok: { status: 200, description: 'The output', schema: outputViewSchema },
    errors: [404],
  },
  {
    method: 'patch',
    path: '/api/v1/domains/{domainId}/outputs/{outputId}',
    tag: 'Domains',
    summary: 'Change an output of a domain',
    permission: MH,
    body: patch(outputPatchSchema),
    ok: { status: 200, description: 'The changed output', schema: outputViewSchema },
    errors: [400, 404, 413, 415],
  },
  {
    method: 'delete',
    path: '/api/v1/domains/{domainId}/outputs/{outputId}',
    tag: 'Domains',
    summary: 'Delete an output of a domain',
    permission: MH,
    ok: { status: 204, description: 'Deleted' },
    errors: [404],
  },
  {
    method: 'get',
    path: '/api/v1/domains/{domainId}/policies',
    tag: 'Policies',
    summary: 'List a domain’s policies',
    permission: `${R}, ${PC}`,
    query: policyListQuerySchema,
    ok: { status: 200, description: 'Policies', schema: list(policyViewSchema) },
    errors: [400, 404],
  },
  {
    method: 'post',
    path: '/api/v1/domains/{domainId}/policies',
    tag: 'Policies',
    summary: 'Add a policy (JSON, or the raw policy XML)',
    permission: PC,
    body: {
      'application/json': policyCreateSchema,
      'application/xml': z
        .string()
        .meta({ description: 'The policy document; name, description, path and enabled are read from it.' }),
    },
    ok: { status: 201, description: 'The policy', schema: policyViewSchema },
    errors: [400, 404, 413, 415],
  },
  {
    method: 'get',
    path: '/api/v1/domains/{domainId}/policies/{policyId}',
    tag: 'Policies',
    summary: 'Get a policy',
    permission: `${R}, ${PC}`,
    ok: { status: 200, description: 'The policy', schema: policyViewSchema },
    errors: [404],
  },
  {
    method: 'patch',
    path: '/api/v1/domains/{domainId}/policies/{policyId}',
    tag: 'Policies',
    summary: 'Change a policy',
    permission: PC,
    body: patch(policyPatchSchema),
    ok: { status: 200, description: 'The changed policy', schema: policyViewSchema },
    errors: [400, 404, 413, 415],
  },
  {
    method: 'delete',
    path: '/api/v1/domains/{domainId}/policies/{policyId}',
    tag: 'Policies',
    summary: 'Delete a policy',
    permission: PC,
    ok: { status: 204, description: 'Deleted' },
    errors: [404],
  },
  // Log files
  {
    method: 'get',
    path: '/api/v1/logs/{outputId}',
    tag: 'Log files',
    summary: 'List the files of a LogFile output',
    permission: `${R}, ${AAD}`,
    query: logListQuerySchema,
    ok: { status: 200, description: 'Files, newest first', schema: list(logFileViewSchema) },
    errors: [400, 404],
  },
  {
    method: 'get',
    path: '/api/v1/logs/get/{fileId}',
    tag: 'Log files',
    summary: 'Download a log file (streamed; one byte range supported)',
    permission: AAD,
    ok: {
      status: 200,
      description:
        'The file as an attachment; 206 with Content-Range for a single range (several ranges: the whole file)',
      content: {
        'text/tab-separated-values': z.string(),
        'application/x-ndjson': z.string(),
        'application/zip': z.string().meta({ format: 'binary' }),
      },
    },
    errors: [404, 416],
  },
];

export { tokenErrorSchema };
