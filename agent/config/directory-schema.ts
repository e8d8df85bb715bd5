/**
 * Directory domains the agent knows (name, the LDAP server to read it from and how, enabled),
 * their outputs, and their directory monitoring policies (docs/agent-api.md, docs/directory.md).
 * An enabled domain with an enabled Changes policy is watched by the directory source
 * (agent/directory/).
 */
import { z } from 'zod';
import { hostNameOrAddressSchema } from './fleet-schema.js';
import { resourceIdSchema } from './monitoring-schema.js';

/** `ldap://host[:port]` or `ldaps://host[:port]`, nothing after the authority. */
export const ldapServerSchema = z
  .string()
  .max(300)
  .superRefine((value, ctx) => {
    const match = /^(ldaps?):\/\/(\[[0-9A-Fa-f:.]+\]|[^/:[\]]+)(?::(\d{1,5}))?\/?$/i.exec(value);
    const host = match?.[2]?.replace(/^\[|\]$/g, '') ?? '';
    const port = match?.[3] === undefined ? 1 : Number(match[3]);
    if (!match || !hostNameOrAddressSchema.safeParse(host).success || port < 1 || port > 65535) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be an LDAP address such as ldaps://dc1.corp.example.com:636 or ldap://10.0.0.5',
      });
    }
  });

export const domainSchema = z.strictObject({
  /** The NetBIOS-style name the product uses as the domain id (`CORP`). */
  id: resourceIdSchema,
  /** DNS name of the domain (`corp.example.com`). */
  name: z.string().trim().min(1).max(255),
  ldapServer: ldapServerSchema,
  /** Account used to read the directory; its password is in secrets/ (config/domain-passwords.ts). */
  userName: z.string().max(256).default(''),
  /** Only in settings.json files of older versions: moved to secrets/ at start, never written back. */
  password: z.string().max(1024).optional(),
  isEnabled: z.boolean().default(true),
  comment: z.string().max(2000).default(''),
  /** Where the monitored objects are; empty: the server's default naming context (docs/directory.md). */
  baseDn: z.string().trim().max(1024).default(''),
  /** Seconds between two reads of the directory's changes. */
  pollingIntervalSeconds: z.number().int().min(1).max(86_400).default(5),
  /**
   * `starttls` (the default): an `ldap://` connection upgrades with StartTLS (RFC 4513) before
   * anything else, and a server that refuses it is an error; `none`: never (clear text). `ldaps://` is TLS from the first byte either way.
   */
  tls: z.enum(['starttls', 'none']).default('starttls'),
  /** A PEM file of the CA to trust for the server's certificate; empty: the system's CAs. */
  caFile: z.string().max(4096).default(''),
});
export type DomainSettings = z.infer<typeof domainSchema>;

/** The policy body: well-formedness is checked where it enters (agent/resources/policy-xml.ts). */
export const POLICY_XML_MAX = 256 * 1024;

export const policySchema = z.strictObject({
  id: resourceIdSchema,
  domainId: resourceIdSchema,
  name: z.string().trim().min(1).max(255),
  description: z.string().max(4000).default(''),
  /** Folder of the policy, `\`-separated like the product's (`Policies\Auditing`). */
  path: z.string().max(1024).default(''),
  guid: z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'a lower-case UUID'),
  isEnabled: z.boolean().default(true),
  updatedAt: z.iso.datetime({ offset: false }),
  xml: z.string().min(1).max(POLICY_XML_MAX),
});
export type PolicySettings = z.infer<typeof policySchema>;
