/**
 * Pieces every agent API resource schema uses: the status item, the error body, links. The
 * resource schemas (one file per resource) are the single description of what the API sends
 * and accepts: handlers validate input with them, the views are typed from them, and the
 * OpenAPI document (agent/api/openapi/) is generated from them.
 */
import { z } from 'zod';
import { STATUS_TYPES } from '../../../shared/agent-resource.js';

export const statusSchema = z
  .object({
    updatedAt: z.string().meta({ description: 'ISO 8601 UTC time of the last status change' }),
    type: z.enum(STATUS_TYPES),
    summary: z.string(),
    details: z.string(),
  })
  .meta({ id: 'Status', description: 'Status of a host, output or agent.' });
export type StatusView = z.infer<typeof statusSchema>;

export const errorBodySchema = z
  .object({
    error: z.string().meta({
      description: 'Stable code: invalid_request, not_found, conflict, insufficient_permission, invalid_token, ...',
    }),
    error_description: z.string(),
    field: z
      .string()
      .optional()
      .meta({ description: 'The input field at fault, when there is one (`includePaths[2]`).' }),
    holderId: z
      .string()
      .optional()
      .meta({ description: 'A 409 conflict over a taken unique value: the id of the resource that holds it.' }),
  })
  .meta({ id: 'Error', description: 'The one error body of the agent API (RFC 6749 §5.2 shape, docs/agent-api.md).' });

export const urlSchema = z.string().meta({ description: 'Absolute URL' });
export const nullableUrlSchema = z.string().nullable().meta({ description: 'Absolute URL, or null' });

/** A read-only field in a write: named in the 400 so the caller knows it cannot be changed. */
export function detailedOnly<T extends z.ZodType>(schema: T, description: string): z.ZodOptional<T> {
  return schema.optional().meta({ description: `${description} Detailed Only: left out of the limited view.` });
}
