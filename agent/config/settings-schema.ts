/**
 * The settings document (`settings.json` in the data dir) and its defaults. Every section is a
 * strict object so a typo in a hand-edited file is reported instead of silently ignored.
 * Later capabilities add their own sections here (clients, users, hosts, outputs, ...).
 */
import { z } from 'zod';
import { DEFAULT_ALLOW_LIST, parseAllowListEntry } from '../../shared/ip-address.js';

export const SETTINGS_SCHEMA_VERSION = 1;

/** 0 means "pick a free port" (DESIGN.md §3). */
export const portSchema = z.number().int().min(0).max(65535);

export const allowListEntrySchema = z.string().superRefine((value, ctx) => {
  const parsed = parseAllowListEntry(value);
  if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.error });
});

/** A bind address must be a literal IP, never a name that could resolve somewhere else. */
const bindAddressSchema = z.string().superRefine((value, ctx) => {
  const parsed = parseAllowListEntry(value);
  if (!parsed.ok || value.includes('/')) {
    ctx.addIssue({ code: 'custom', message: `"${value}" is not an IP address to listen on` });
  }
});

export const agentApiSettingsSchema = z.strictObject({
  port: portSchema.default(4494),
  /** All interfaces by default; the allow-list decides who gets in. */
  bindAddress: bindAddressSchema.default('::'),
});

export const auditApiSettingsSchema = z.strictObject({
  port: portSchema.default(9699),
  bindAddress: bindAddressSchema.default('::'),
  /** First path segment of the audit API (DESIGN.md §5); `netwrix` for unchanged old clients. */
  vendor: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,31}$/, 'lower-case letters, digits and "-", starting with a letter')
    .default('vigil'),
});

export const consoleSettingsSchema = z.strictObject({
  /** The console listens on 127.0.0.1 only; only its port is a setting. */
  port: portSchema.default(4495),
});

/** Roles of audit API users (DESIGN.md §5): `reader` may enumerate and search, `contributor` may write. */
export const AUDIT_ROLES = ['reader', 'contributor'] as const;

/**
 * A password hashed with scrypt; the parameters are stored with each hash so they can be raised
 * later without invalidating existing passwords (security.md §2.2 "Human passwords").
 */
export const passwordHashSchema = z.strictObject({
  algorithm: z.literal('scrypt'),
  N: z
    .number()
    .int()
    .min(1024)
    .max(2 ** 22)
    .refine((n) => (n & (n - 1)) === 0, 'must be a power of two'),
  r: z.number().int().min(1).max(32),
  p: z.number().int().min(1).max(16),
  keyLength: z.number().int().min(16).max(128),
  salt: z.base64(),
  hash: z.base64(),
});

/**
 * An audit user name: what the client sends before the colon of HTTP Basic credentials, so no
 * colon (RFC 7617 §2), no control characters, no surrounding spaces. `DOMAIN\user` and
 * `user@example.com` are fine. Names are unique without regard to case.
 */
export const auditUserNameSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(128)
  .refine((name) => !name.includes(':'), 'must not contain ":"')
  .refine((name) => !/[\p{Cc}]/u.test(name), 'must not contain control characters')
  .refine((name) => name.trim() === name, 'must not start or end with a space');

export const auditUserSchema = z.strictObject({
  name: auditUserNameSchema,
  roles: z
    .array(z.enum(AUDIT_ROLES))
    .min(1, 'needs at least one role')
    .refine((roles) => new Set(roles).size === roles.length, 'lists a role twice'),
  passwordHash: passwordHashSchema,
  createdAt: z.iso.datetime(),
  passwordChangedAt: z.iso.datetime(),
});

export const auditUsersSchema = z
  .array(auditUserSchema)
  .max(1000)
  .superRefine((users, ctx) => {
    const seen = new Set<string>();
    users.forEach((user, index) => {
      const key = user.name.toLowerCase();
      if (seen.has(key))
        ctx.addIssue({ code: 'custom', path: [index, 'name'], message: `"${user.name}" exists twice` });
      seen.add(key);
    });
  });

export const settingsSchema = z.strictObject({
  schemaVersion: z.literal(SETTINGS_SCHEMA_VERSION).default(SETTINGS_SCHEMA_VERSION),
  agentApi: agentApiSettingsSchema.prefault({}),
  auditApi: auditApiSettingsSchema.prefault({}),
  console: consoleSettingsSchema.prefault({}),
  /** Who may connect to the agent and audit APIs: addresses and CIDR ranges, IPv4 and IPv6. */
  allowList: z
    .array(allowListEntrySchema)
    .max(1000)
    .default([...DEFAULT_ALLOW_LIST]),
  /** Users of the audit API (HTTP Basic); managed with `vigil user` and the console. */
  auditUsers: auditUsersSchema.default([]),
});

export type Settings = z.infer<typeof settingsSchema>;
export type AuditUser = z.infer<typeof auditUserSchema>;
export type AuditRole = (typeof AUDIT_ROLES)[number];
export type PasswordHash = z.infer<typeof passwordHashSchema>;

export function defaultSettings(): Settings {
  return settingsSchema.parse({});
}
