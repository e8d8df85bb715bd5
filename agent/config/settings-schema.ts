/**
 * The settings document (`settings.json` in the data dir) and its defaults. Every section is a
 * strict object so a typo in a hand-edited file is reported instead of silently ignored.
 * Sections with more than a few fields live in their own files (clients, audit users, monitoring).
 */
import { z } from 'zod';
import { DEFAULT_ALLOW_LIST, parseAllowListEntry } from '../../shared/ip-address.js';
import {
  auditStoreSettingsSchema,
  checkMonitoringSection,
  domainOutputSchema,
  hostSchema,
  logStorageSchema,
  outputSchema,
} from './monitoring-schema.js';
import { registeredAgentsSchema } from './fleet-schema.js';
import { fleetMembershipSchema } from './fleet-membership-schema.js';
import { domainSchema, policySchema } from './directory-schema.js';
import { checkDirectorySection } from './directory-checks.js';
import { clientApplicationSchema, clientsSchema } from './clients-schema.js';
import { AUDIT_ROLES, auditUserSchema, auditUsersSchema, passwordHashSchema } from './audit-users-schema.js';
import { alertsSettingsSchema } from './alerts-schema.js';
import { CURRENT_SETTINGS_SCHEMA } from './settings-migration.js';

export * from './clients-schema.js';
export * from './audit-users-schema.js';

/** Files of older schemas are migrated when the store opens them (settings-migration.ts). */
export const SETTINGS_SCHEMA_VERSION = CURRENT_SETTINGS_SCHEMA;

/** 0 means "pick a free port" (README.md). */
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
  /** First path segment of the audit API (docs/audit-api.md); `netwrix` for unchanged old clients. */
  vendor: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,31}$/, 'lower-case letters, digits and "-", starting with a letter')
    .default('vigil'),
});

export const consoleSettingsSchema = z.strictObject({
  /** The console listens on 127.0.0.1 only; only its port is a setting. */
  port: portSchema.default(4495),
});

/** The agent hosting the API (the "local agent" of docs/permissions.md); its id is generated once, on first start. */
export const localAgentSettingsSchema = z.strictObject({
  id: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, 'letters, digits, "_" and "-", at most 64')
    .optional(),
  /** Shown in the agent resource; changed with PATCH /api/v1/agents/{id}. */
  comment: z.string().max(2000).default(''),
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
    /** What the agent monitors (docs/agent-api.md); first run adds the local host. */
    hosts: z.array(hostSchema).max(100).default([]),
    /** Where each host's activity goes (docs/agent-api.md). */
    outputs: z.array(outputSchema).max(1000).default([]),
    logStorage: logStorageSchema.prefault({}),
    auditStore: auditStoreSettingsSchema.prefault({}),
    /** Users of the audit API (HTTP Basic); managed with `vigil user` and the console. */
    auditUsers: auditUsersSchema.default([]),
    /** Other agents registered so a console keeps its fleet in one place. */
    agents: registeredAgentsSchema.default([]),
    /** Directory domains this agent knows (docs/agent-api.md). */
    domains: z.array(domainSchema).max(100).default([]),
    /** Outputs of the domains (docs/agent-api.md); ids are unique together with `outputs`. */
    domainOutputs: z.array(domainOutputSchema).max(1000).default([]),
    /** Active Directory monitoring policies of the domains (docs/agent-api.md). */
    policies: z.array(policySchema).max(500).default([]),
    /** Alert rules on mass changes (docs/alerts.md); the defaults when absent. */
    alerts: alertsSettingsSchema,
    /** Membership of a fleet sharing one PostgreSQL database (docs/fleet.md); absent when alone. */
    fleet: fleetMembershipSchema.optional(),
  })
  .superRefine(checkMonitoringSection)
  .superRefine(checkDirectorySection);

export type Settings = z.infer<typeof settingsSchema>;
export type StoredClientApplication = z.infer<typeof clientApplicationSchema>;
export type AuditUser = z.infer<typeof auditUserSchema>;
export type AuditRole = (typeof AUDIT_ROLES)[number];
export type PasswordHash = z.infer<typeof passwordHashSchema>;

export function defaultSettings(): Settings {
  return settingsSchema.parse({});
}
