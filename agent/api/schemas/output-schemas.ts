/**
 * The Output resource (docs/agent-api.md): a LogFile or Syslog output of a host or a domain.
 * API names follow the replaced product (`isEnabled`, `logFile.daysToRetain`); the settings
 * keep their own (`enabled`, `logFile.retentionDays`), mapped in output-view.ts.
 */
import { z } from 'zod';
import { fileFilterSchema, LOG_FORMATS, OUTPUT_TYPES, syslogOptionsSchema } from '../../config/monitoring-schema.js';
import { nullableUrlSchema, statusSchema, urlSchema } from './common-schemas.js';

export const logFileOptionsWriteSchema = z
  .strictObject({
    format: z.enum(LOG_FORMATS).default('Tsv'),
    fileName: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,100}$/, 'letters, digits, ".", "_" or "-", 1 to 100 characters')
      .optional()
      .meta({ description: 'File name prefix before `_Log_YYYYMMDD`; the host name (made file-safe) when absent.' }),
    daysToRetain: z
      .number()
      .int()
      .min(1)
      .max(3650)
      .default(10)
      .meta({ description: 'Days a file is kept after its day ends.' }),
    headerRow: z.boolean().default(false).meta({ description: 'A first line naming the columns.' }),
    zipClosedFiles: z.boolean().default(true).meta({ description: 'Days before today are compressed to .zip.' }),
  })
  .meta({ id: 'LogFileOptions' });

export const syslogOptionsWriteSchema = syslogOptionsSchema.meta({ id: 'SyslogOptions' });
export const fileFilterWriteSchema = fileFilterSchema.meta({ id: 'FileFilter' });

const outputTypeDescription = `${OUTPUT_TYPES.join(' or ')}; any other type (Amqp...) is refused with 400.`;

/** The fields a client sends to create an output, and what a merge patch must leave valid. */
export const outputWriteSchema = z
  .strictObject({
    type: z
      .string()
      .max(64)
      .meta({ description: outputTypeDescription, examples: ['LogFile'] }),
    isEnabled: z.boolean().default(true),
    comment: z.string().max(2000).default(''),
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
