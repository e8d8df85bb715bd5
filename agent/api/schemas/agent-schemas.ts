/**
 * The Agent resource (shared/agent-resource.ts; docs/agent-api.md) and what may be written:
 * registering another agent (host name or address, API port, comment), changing it, and
 * changing the local agent's comment, allow-list and log storage limits.
 */
import { z } from 'zod';
import type { AgentDetailedView } from '../../../shared/agent-resource.js';
import { allowListEntrySchema } from '../../config/settings-schema.js';
import { hostNameOrAddressSchema, registeredAgentSchema } from '../../config/fleet-schema.js';
import { detailedOnly, statusSchema, urlSchema } from './common-schemas.js';

export const agentCreateSchema = registeredAgentSchema
  .pick({ host: true, apiServerPort: true, comment: true })
  .extend({
    host: hostNameOrAddressSchema.meta({
      description: 'Host name or IP address of the machine running the other agent.',
    }),
  })
  .meta({ id: 'AgentCreate', description: 'Registers another agent; its reachability is checked in the background.' });
export type AgentCreate = z.infer<typeof agentCreateSchema>;

const MB = 1024 ** 2;

/** What a merge patch of the local agent must leave valid. */
export const localAgentWriteSchema = z
  .strictObject({
    comment: z.string().max(2000).default(''),
    apiServerIpWhitelist: z
      .array(allowListEntrySchema)
      .min(1, 'an empty allow-list would shut every client out')
      .max(1000)
      .meta({
        description: 'IP addresses and CIDR ranges admitted to the agent and audit APIs. Must still admit the caller.',
      }),
    maxLocalSize: z
      .number()
      .int()
      .min(100 * MB)
      .default(5 * 1024 * MB)
      .meta({ description: 'Bytes the log files may take (at least 100 MB; default 5 GB).' }),
    minLocalFreeSpace: z
      .number()
      .int()
      .min(0)
      .default(64 * MB)
      .meta({ description: 'Log writing stops below this free disk space, in bytes (default 64 MB).' }),
  })
  .meta({ id: 'LocalAgentWrite' });
export type LocalAgentWrite = z.infer<typeof localAgentWriteSchema>;

/** What a merge patch of a registered agent must leave valid. */
export const registeredAgentWriteSchema = agentCreateSchema.meta({ id: 'RegisteredAgentWrite' });

/** Fields of the agent resource that a write may not set (400 naming the field). */
export const AGENT_READ_ONLY = [
  'id',
  'signingKey',
  'url',
  'platformId',
  'netbiosName',
  'domain',
  'osVersion',
  'isDC',
  'errorMessage',
  'installState',
  'version',
  'configVersion',
  'monitoredHostsUrl',
  'monitoredDomainUrl',
  'apiServerIsEnabled',
  'userName',
  'status',
  'warnings',
  'apiServerMgmtConsole',
] as const;

export const agentViewSchema = z
  .strictObject({
    id: z.string(),
    url: urlSchema,
    platformId: z.enum(['Windows', 'Linux', 'MacOS']).nullable(),
    host: z.string(),
    netbiosName: z.string(),
    domain: z.string(),
    osVersion: z.string(),
    isDC: z.boolean(),
    errorMessage: z.string(),
    installState: z
      .enum(['Installed', 'Unknown'])
      .meta({ description: 'Installed: the agent hosting the API; Unknown: a registered agent.' }),
    version: z.string(),
    configVersion: z.string(),
    monitoredHostsUrl: urlSchema,
    monitoredDomainUrl: urlSchema,
    apiServerIsEnabled: z.boolean(),
    apiServerPort: z.number().int(),
    userName: z.string(),
    comment: z.string(),
    status: statusSchema,
    signingKey: z.strictObject({ publicKey: z.string(), fingerprint: z.string() }).nullable().meta({
      description:
        'Read-only. The Ed25519 key that signs the record chain (PEM, and SHA-256 of the raw key); null for a registered agent.',
    }),
    warnings: detailedOnly(z.array(z.string()), 'Warnings about the agent.'),
    apiServerIpWhitelist: detailedOnly(z.array(z.string()), 'The IP allow-list of the agent and audit APIs.'),
    apiServerMgmtConsole: detailedOnly(z.string(), 'The console managing the agent.'),
    maxLocalSize: detailedOnly(z.number().int().nullable(), 'Bytes the log files may take.'),
    minLocalFreeSpace: detailedOnly(z.number().int().nullable(), 'Free disk space below which logs stop.'),
  })
  .meta({ id: 'Agent' });

// The schema describes exactly the shared type (a compile error here means they drifted apart).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const agentSchemaMatchesType: Same<Required<z.infer<typeof agentViewSchema>>, AgentDetailedView> = true;
void agentSchemaMatchesType;
