/**
 * The Output resource (docs/agent-api.md): a LogFile or Syslog output of a host or a domain.
 * Names are those of docs/agent-api.md (`isEnabled`, `logFile.daysToRetain`), in the API and in
 * settings.json alike.
 */
import { z } from 'zod';
import {
  fileFilterSchema,
  logFileOptionsSchema,
  OUTPUT_TYPES,
  outputOptionsShape,
  syslogOptionsSchema,
} from '../../config/monitoring-schema.js';
import { nullableUrlSchema, statusSchema, urlSchema } from './common-schemas.js';

export const logFileOptionsWriteSchema = logFileOptionsSchema.meta({ id: 'LogFileOptions' });
export const syslogOptionsWriteSchema = syslogOptionsSchema.meta({ id: 'SyslogOptions' });
export const fileFilterWriteSchema = fileFilterSchema.meta({ id: 'FileFilter' });

const outputTypeDescription = `${OUTPUT_TYPES.join(' or ')}; any other type (Amqp...) is refused with 400.`;

/**
 * The fields a client sends to create an output, and what a merge patch must leave valid: the
 * output's settings without id and owner. `type` takes any text so the refusal can name it.
 */
export const outputWriteSchema = z
  .strictObject({
    ...outputOptionsShape,
    type: z
      .string()
      .max(64)
      .meta({ description: outputTypeDescription, examples: ['LogFile'] }),
    logFile: logFileOptionsWriteSchema.optional().meta({ description: 'For LogFile outputs; defaults when absent.' }),
    syslog: syslogOptionsWriteSchema.optional().meta({ description: 'Required for Syslog outputs.' }),
    fileFilter: fileFilterWriteSchema
      .optional()
      .meta({ description: 'What the output passes on; everything when absent.' }),
  })
  .meta({ id: 'OutputWrite' });
export type OutputWrite = z.infer<typeof outputWriteSchema>;

/** Fields of the output resource that a write may not set (400 naming the field). */
export const OUTPUT_READ_ONLY = [
  'id',
  'url',
  'hostId',
  'hostUrl',
  'domainId',
  'domainUrl',
  'agentsIds',
  'logsUrl',
  'status',
  'statusHistoryUrl',
  'stats',
] as const;

export const outputStatsSchema = z
  .object({
    reportedAt: z.string().nullable(),
    reportedCount: z.number().int(),
    lastEventTime: z.string().nullable(),
    filesCount: z.number().int(),
    filesSize: z.number().int(),
    archiveFilesCount: z.number().int(),
    archiveFilesSize: z.number().int(),
    droppedCount: z.number().int(),
  })
  .meta({ id: 'OutputStats', description: 'Counters since the agent started.' });

export const outputViewSchema = z
  .strictObject({
    id: z.string(),
    url: urlSchema,
    hostId: z.string().nullable().meta({ description: 'The host of a host output; null for a domain output.' }),
    hostUrl: nullableUrlSchema,
    domainId: z.string().nullable().meta({ description: 'The domain of a domain output; null for a host output.' }),
    domainUrl: nullableUrlSchema,
    agentsIds: z.array(z.string()).meta({ description: 'Agents writing this output: the agent hosting the API.' }),
    logsUrl: nullableUrlSchema.meta({ description: 'The log file listing of a LogFile output; null otherwise.' }),
    isEnabled: z.boolean(),
    type: z.enum(OUTPUT_TYPES),
    comment: z.string(),
    logFile: logFileOptionsWriteSchema.optional(),
    syslog: syslogOptionsWriteSchema.optional(),
    fileFilter: fileFilterWriteSchema,
    status: statusSchema,
    statusHistoryUrl: nullableUrlSchema,
    stats: outputStatsSchema,
  })
  .meta({ id: 'Output', description: 'No attribute is Detailed Only.' });
export type OutputView = z.infer<typeof outputViewSchema>;
