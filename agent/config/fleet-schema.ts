/**
 * Other agents this agent knows about: registered so that a console can keep its
 * fleet in one place. Only how to reach them is stored; their reachability is checked at run
 * time (agent/resources/agent-reachability.ts) and never saved.
 */
import { z } from 'zod';
import { isIpv4, isIpv6 } from '../../shared/ip-address.js';

const DNS_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

/** A host name (RFC 1123) or an IPv4 or IPv6 address (without brackets). */
export const hostNameOrAddressSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(253)
  .refine(
    (value) => isIpv4(value) || isIpv6(value) || (DNS_NAME.test(value) && !/^[0-9.]+$/.test(value)),
    'must be a host name (letters, digits, "-" and ".") or an IPv4 or IPv6 address',
  );

/** `AGENT-` and 12 hex digits, like the local agent's id; hand-edited files may use any simple token. */
export const agentIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, 'letters, digits, "_" and "-", at most 64');

export const registeredAgentSchema = z.strictObject({
  id: agentIdSchema,
  /** Host name or address of the machine running the other agent. */
  host: hostNameOrAddressSchema,
  /** Port of that agent's API (docs/agent-api.md default 4494). */
  apiServerPort: z.number().int().min(1).max(65535).default(4494),
  comment: z.string().max(2000).default(''),
  createdAt: z.iso.datetime({ offset: false }),
});
export type RegisteredAgentSettings = z.infer<typeof registeredAgentSchema>;

/** The same machine and port registered twice would be checked and listed twice. */
export const registeredAgentsSchema = z
  .array(registeredAgentSchema)
  .max(1000)
  .superRefine((agents, ctx) => {
    const ids = new Set<string>();
    const endpoints = new Map<string, string>();
    agents.forEach((agent, index) => {
      if (ids.has(agent.id)) {
        ctx.addIssue({ code: 'custom', path: [index, 'id'], message: `another agent already has id "${agent.id}"` });
      }
      ids.add(agent.id);
      const endpoint = `${agent.host.toLowerCase().replace(/\.$/, '')}:${agent.apiServerPort}`;
      const other = endpoints.get(endpoint);
      if (other !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [index, 'host'],
          message: `agent "${other}" is already registered at ${agent.host}:${agent.apiServerPort}`,
          params: { holderId: other },
        });
      }
      endpoints.set(endpoint, agent.id);
    });
  });
