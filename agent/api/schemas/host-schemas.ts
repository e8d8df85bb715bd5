/**
 * The Host resource (docs/agent-api.md): what the agent monitors — on a workstation, its own
 * file system with the folders to watch. Names are those of docs/agent-api.md (`host`,
 * `isEnabled`), in the API and in settings.json alike.
 */
import { z } from 'zod';
import { HOST_TYPES, hostSchema } from '../../config/monitoring-schema.js';
import { detailedOnly, statusSchema, urlSchema } from './common-schemas.js';
import { outputViewSchema, outputWriteSchema } from './output-schemas.js';

/**
 * What a merge patch of a host must leave valid: the host's settings without its id. `type`
 * takes any text here so the service's refusal can name the type it cannot monitor.
 */
export const hostWriteSchema = hostSchema
  .omit({ id: true })
  .extend({
    type: z
      .string()
      .max(64)
      .meta({
        description: `The platform of this agent (${HOST_TYPES.join(', ')}); a workstation agent monitors its own file system only, any other type (NetApp, SharePoint...) is refused with 400.`,
        examples: ['Linux'],
      }),
  })
  .meta({ id: 'HostWrite' });
export type HostWrite = z.infer<typeof hostWriteSchema>;

/** POST /api/v1/agents/{agentId}/hosts: a host and its outputs (one LogFile output when `outputs` is absent). */
export const hostCreateSchema = hostWriteSchema
  .extend({
    outputs: z
      .array(outputWriteSchema)
      .max(20)
      .optional()
      .meta({ description: 'Outputs created with the host; absent = one TSV LogFile output, [] = none.' }),
  })
  .meta({ id: 'HostCreate' });
export type HostCreate = z.infer<typeof hostCreateSchema>;

export const HOST_READ_ONLY = [
  'id',
  'url',
  'agentsUrl',
  'outputs',
  'outputsUrl',
  'status',
  'statusHistoryUrl',
  'stats',
  'attribution',
  'attributionReason',
] as const;

export const hostStatsSchema = z
  .object({
    receivedAt: z.string().nullable(),
    receivedCount: z.number().int(),
    lastEventTime: z.string().nullable(),
    droppedCount: z.number().int(),
    unattributedCount: z
      .number()
      .int()
      .meta({ description: 'Records whose actor could not be resolved (Who unknown).' }),
    overflowCount: z
      .number()
      .int()
      .meta({ description: 'Kernel event queue overflows, each followed by a folder scan.' }),
  })
  .meta({ id: 'HostStats', description: 'Counters since the agent started.' });

export const hostViewSchema = z
  .strictObject({
    id: z.string(),
    url: urlSchema,
    host: z.string(),
    type: z.enum(HOST_TYPES),
    isEnabled: z.boolean(),
    comment: z.string(),
    includePaths: detailedOnly(z.array(z.string()), 'Folders watched recursively.'),
    excludePaths: detailedOnly(z.array(z.string()), 'Folders left out.'),
    rescanIntervalMinutes: detailedOnly(z.number().int(), 'Minutes between full scans.'),
    monitorReads: detailedOnly(z.boolean(), 'Whether reads are recorded.'),
    attribution: z.enum(['process', 'none']).meta({
      description:
        'Read-only. process: file records name the acting account and process; none: they cannot (see attributionReason).',
    }),
    attributionReason: z.string().optional().meta({
      description: 'Read-only, with attribution none: why (e.g. needs CAP_SYS_ADMIN: run the Vigil service).',
    }),
    agentsUrl: urlSchema,
    outputs: z.array(outputViewSchema),
    outputsUrl: urlSchema,
    status: statusSchema,
    statusHistoryUrl: detailedOnly(urlSchema, 'The status history.'),
    stats: hostStatsSchema,
  })
  .meta({ id: 'Host' });
export type HostView = z.infer<typeof hostViewSchema>;
