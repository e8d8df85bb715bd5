/**
 * The settings document (`settings.json` in the data dir) and its defaults. Every section is a
 * strict object so a typo in a hand-edited file is reported instead of silently ignored.
 * Later capabilities add their own sections here (clients, users, hosts, outputs, ...).
 */
import { z } from 'zod';
import { DEFAULT_ALLOW_LIST, parseAllowListEntry } from '../../shared/ip-address.js';
import {
  auditStoreSettingsSchema,
  checkMonitoringSection,
  hostSchema,
  logStorageSchema,
  outputSchema,
} from './monitoring-schema.js';
import { PERMISSIONS } from '../../shared/permissions.js';
import { CLIENT_NAME_MAX, clientNameProblem } from '../../shared/client-application.js';

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

/** The agent hosting the API (the "local agent" of spec §5); its id is generated once, on first start. */
export const localAgentSettingsSchema = z.strictObject({
  id: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, 'letters, digits, "_" and "-", at most 64')
    .optional(),
});

const isoTimeSchema = z.iso.datetime({ offset: false });

/**
 * A client application of the agent API (DESIGN.md §4). The secret itself is never stored:
 * only HMAC-SHA256(pepper, secret) in hex, the pepper living in `secrets/` (agent/auth/pepper.ts).
 */
export const clientApplicationSchema = z.strictObject({
  id: z.string().regex(/^[0-9a-f]{32}$/, '32 lower-case hex digits'),
  name: z
    .string()
    .max(CLIENT_NAME_MAX)
    .superRefine((value, ctx) => {
      const problem = clientNameProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  permissions: z
    .array(z.enum(PERMISSIONS))
    .max(PERMISSIONS.length)
    .refine((list) => new Set(list).size === list.length, 'a permission is listed twice'),
  secretHash: z.string().regex(/^[0-9a-f]{64}$/, 'an HMAC-SHA256 in hex'),
  secretExpiresAt: isoTimeSchema,
  createdAt: isoTimeSchema,
});

export const clientsSchema = z
  .array(clientApplicationSchema)
  .max(1000)
  .superRefine((clients, ctx) => {
    const ids = new Set<string>();
    const names = new Set<string>();
    clients.forEach((client, index) => {
      if (ids.has(client.id)) ctx.addIssue({ code: 'custom', path: [index, 'id'], message: 'duplicate client id' });
      const key = client.name.toLowerCase();
      if (names.has(key)) ctx.addIssue({ code: 'custom', path: [index, 'name'], message: 'duplicate client name' });
      ids.add(client.id);
      names.add(key);
    });
  });

export const settingsSchema = z
  .strictObject({
    schemaVersion: z.literal(SETTINGS_SCHEMA_VERSION).default(SETTINGS_SCHEMA_VERSION),
    agentApi: agentApiSettingsSchema.prefault({}),
    auditApi: auditApiSettingsSchema.prefault({}),
    console: consoleSettingsSchema.prefault({}),
    agent: localAgentSettingsSchema.prefault({}),
    /** Client applications of the agent API (OAuth 2.0 client credentials). */
    clients: clientsSchema.default([]),
    /** Who may connect to the agent and audit APIs: addresses and CIDR ranges, IPv4 and IPv6. */
    allowList: z
      .array(allowListEntrySchema)
      .max(1000)
      .default([...DEFAULT_ALLOW_LIST]),
    /** What the agent monitors (agent-api.md §1.6.3); first run adds the local host. */
    hosts: z.array(hostSchema).max(100).default([]),
    /** Where each host's activity goes (agent-api.md §1.6.4). */
    outputs: z.array(outputSchema).max(1000).default([]),
    logStorage: logStorageSchema.prefault({}),
    auditStore: auditStoreSettingsSchema.prefault({}),
  })
  .superRefine(checkMonitoringSection);

export type Settings = z.infer<typeof settingsSchema>;
export type StoredClientApplication = z.infer<typeof clientApplicationSchema>;

export function defaultSettings(): Settings {
  return settingsSchema.parse({});
}
