/**
 * The Domain resource (docs/agent-api.md): a directory domain this agent knows — its name,
 * the LDAP server to read it from (and as whom; the password is never shown), enabled — with
 * its outputs and policies. Read-only in the agent API; the console changes domains.
 */
import { z } from 'zod';
import { detailedOnly, urlSchema } from './common-schemas.js';
import { outputViewSchema } from './output-schemas.js';

export const domainViewSchema = z
  .strictObject({
    id: z.string().meta({ description: 'NetBIOS-style name, e.g. CORP' }),
    url: urlSchema,
    name: z.string().meta({ description: 'DNS name of the domain' }),
    isEnabled: z.boolean(),
    comment: z.string(),
    ldapServer: detailedOnly(z.string(), 'The LDAP server the domain is read from (ldap:// or ldaps://).'),
    userName: detailedOnly(z.string(), 'The account the directory is read with (its password is never returned).'),
    outputs: z.array(outputViewSchema),
    outputsUrl: urlSchema,
    agentsUrl: urlSchema,
    policiesUrl: detailedOnly(urlSchema, 'The domain’s policies.'),
    masterAgentId: z.string().meta({ description: 'The agent reading the domain: the agent hosting the API.' }),
    masterAgentUrl: urlSchema,
  })
  .meta({ id: 'Domain' });
export type DomainView = z.infer<typeof domainViewSchema>;
