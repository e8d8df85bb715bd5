/**
 * The Domain resource (docs/agent-api.md): a directory domain this agent knows — its name,
 * the LDAP server to read it from (and as whom; the password is never shown), enabled, its
 * monitoring status (docs/directory.md) — with its outputs and policies. Read-only in the agent API; the console changes domains.
 */
import { z } from 'zod';
import { detailedOnly, statusSchema, urlSchema } from './common-schemas.js';
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
    baseDn: detailedOnly(z.string(), 'Where the monitored objects are; empty: the server’s default naming context.'),
    pollingIntervalSeconds: detailedOnly(z.number().int(), 'Seconds between two reads of the directory’s changes.'),
    tls: detailedOnly(z.enum(['starttls', 'none']), 'Whether an ldap:// connection upgrades with StartTLS.'),
    caFile: detailedOnly(z.string(), 'The PEM file of the CA trusted for the server; empty: the system’s CAs.'),
    status: statusSchema.meta({
      description:
        'Whether the directory is read: Warning while its server cannot be reached, Error when it refuses the bind or TLS.',
    }),
    outputs: z.array(outputViewSchema),
    outputsUrl: urlSchema,
    agentsUrl: urlSchema,
    policiesUrl: detailedOnly(urlSchema, 'The domain’s policies.'),
    masterAgentId: z.string().meta({ description: 'The agent reading the domain: the agent hosting the API.' }),
    masterAgentUrl: urlSchema,
  })
  .meta({ id: 'Domain' });
export type DomainView = z.infer<typeof domainViewSchema>;
