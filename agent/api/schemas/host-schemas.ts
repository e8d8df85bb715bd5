/**
 * The Host resource (docs/agent-api.md): what the agent monitors — on a workstation, its own
 * file system with the folders to watch. API names follow the replaced product (`host`,
 * `isEnabled`); the settings say `name`, `enabled` (mapped in host-view.ts).
 */
import { z } from 'zod';
import { HOST_TYPES, absolutePathSchema } from '../../config/monitoring-schema.js';
import { detailedOnly, statusSchema, urlSchema } from './common-schemas.js';
import { outputViewSchema, outputWriteSchema } from './output-schemas.js';

const pathsSchema = z.array(absolutePathSchema).max(1000);

/** What a merge patch of a host must leave valid. */
export const hostWriteSchema = z
  .strictObject({
    host: z
      .string()
      .trim()
      .min(1)
      .max(255)
      .meta({ description: 'Name of the monitored machine; prefixes its log files. Unique.' }),
    type: z
      .string()
      .max(64)
      .meta({
        description: `The platform of this agent (${HOST_TYPES.join(', ')}); a workstation agent monitors its own file system only, any other type (NetApp, SharePoint...) is refused with 400.`,
        examples: ['Linux'],
      }),
    isEnabled: z.boolean().default(true),
    includePaths: pathsSchema.default([]).meta({ description: 'Folders watched recursively (absolute paths).' }),
    excludePaths: pathsSchema.default([]).meta({ description: 'Folders left out, with everything under them.' }),
    rescanIntervalMinutes: z
      .number()
      .int()
      .min(0)
      .max(10_080)
      .default(60)
      .meta({ description: 'Minutes between full reconciling scans; 0 = only at start-up.' }),
    monitorReads: z.boolean().default(false).meta({
      description:
        'Record reads (Action Read), at most one per process and file a minute; only where actors are named (attribution process).',
    }),
    comment: z.string().max(2000).default(''),
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
