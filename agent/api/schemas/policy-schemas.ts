/**
 * The Policy resource (docs/agent-api.md): an Active Directory monitoring policy of a domain.
 * Its `xml` must be one well-formed XML document (no DTD). POST takes this JSON, or the raw
 * policy document as `application/xml`.
 */
import { z } from 'zod';
import { POLICY_XML_MAX, policySchema } from '../../config/directory-schema.js';
import { detailedOnly, urlSchema } from './common-schemas.js';

const xmlSchema = z
  .string()
  .min(1)
  .max(POLICY_XML_MAX)
  .meta({ description: 'The policy document: well-formed XML, no DOCTYPE.' });

export const policyCreateSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(255).optional().meta({ description: 'Taken from the XML (Name) when absent.' }),
    description: z.string().max(4000).optional(),
    path: z.string().max(1024).optional().meta({ description: 'Folder, `\\`-separated (Policies\\Auditing).' }),
    isEnabled: z
      .boolean()
      .optional()
      .meta({ description: 'Taken from the XML (IsEnabled or Enabled) when absent; true by default.' }),
    xml: xmlSchema,
  })
  .meta({ id: 'PolicyCreate' });
export type PolicyCreate = z.infer<typeof policyCreateSchema>;

/** What a merge patch of a policy must leave valid: the policy's writable settings. */
export const policyWriteSchema = policySchema
  .pick({ name: true, description: true, path: true, isEnabled: true })
  .extend({ xml: xmlSchema })
  .meta({ id: 'PolicyWrite' });
export type PolicyWrite = z.infer<typeof policyWriteSchema>;

export const POLICY_READ_ONLY = ['id', 'url', 'domainId', 'domainUrl', 'guid', 'updatedAt'] as const;

export const policyListQuerySchema = z.object({
  isEnabled: z
    .enum(['true', 'false'])
    .optional()
    .meta({ description: 'Only enabled (true) or disabled (false) policies.' }),
  path: z
    .string()
    .max(1024)
    .optional()
    .meta({ description: 'Only policies in this folder or below it (case-insensitive).' }),
});

export const policyViewSchema = z
  .strictObject({
    id: z.string(),
    url: urlSchema,
    domainId: z.string(),
    domainUrl: urlSchema,
    name: z.string(),
    description: z.string(),
    path: z.string(),
    guid: z.string(),
    isEnabled: z.boolean(),
    updatedAt: z.string(),
    xml: detailedOnly(z.string(), 'The policy document.'),
  })
  .meta({ id: 'Policy' });
export type PolicyView = z.infer<typeof policyViewSchema>;
