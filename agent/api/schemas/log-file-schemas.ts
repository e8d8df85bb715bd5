/**
 * The File resource (docs/agent-api.md, docs/activity-pipeline.md): one log file of a LogFile output.
 * Its id is the file name; `contentUrl` downloads it (Access activity data only).
 */
import { z } from 'zod';
import { urlSchema } from './common-schemas.js';

export const logFileViewSchema = z
  .strictObject({
    id: z.string().meta({ description: 'The file name, e.g. wrkst01_Log_20260301.tsv' }),
    url: urlSchema.meta({ description: 'Where the file is downloaded (same as contentUrl).' }),
    size: z.number().int().meta({ description: 'Bytes' }),
    localPath: z.string(),
    isZip: z.boolean(),
    isArchived: z.boolean().meta({ description: 'Always false: this agent does not archive to a share.' }),
    type: z.enum(['Tsv', 'Json']),
    updatedAt: z.string(),
    activityFrom: z
      .string()
      .nullable()
      .meta({ description: 'Time of the first record; null for a file without records.' }),
    activityTo: z.string().nullable(),
    outputId: z.string().nullable(),
    contentUrl: urlSchema,
  })
  .meta({ id: 'LogFile', description: 'No attribute is Detailed Only.' });
export type LogFileView = z.infer<typeof logFileViewSchema>;

export const logListQuerySchema = z.object({
  includeLocal: z.enum(['true', 'false']).optional().meta({ description: 'Files on this machine (default true).' }),
  includeArchived: z
    .enum(['true', 'false'])
    .optional()
    .meta({ description: 'Files moved to an archive share (default false; this agent archives none).' }),
});
