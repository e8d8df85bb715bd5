/**
 * Checks of the settings that span sections added for the agent API's resources:
 * domain ids unique, domain outputs and policies on existing domains, output ids unique over
 * host and domain outputs (`/api/v1/outputs/{id}` names either), policy ids unique, and no
 * registered agent using the local agent's id.
 */
import type { z } from 'zod';
import type { DomainSettings, PolicySettings } from './directory-schema.js';
import type { DomainOutputSettings, OutputSettings } from './monitoring-schema.js';
import type { RegisteredAgentSettings } from './fleet-schema.js';

interface DirectorySection {
  agent: { id?: string | undefined };
  agents: RegisteredAgentSettings[];
  outputs: OutputSettings[];
  domains: DomainSettings[];
  domainOutputs: DomainOutputSettings[];
  policies: PolicySettings[];
}

function uniqueIds(
  items: ReadonlyArray<{ id: string }>,
  section: string,
  what: string,
  ctx: z.RefinementCtx,
): Set<string> {
  const ids = new Set<string>();
  items.forEach((item, i) => {
    if (ids.has(item.id)) {
      ctx.addIssue({
        code: 'custom',
        path: [section, i, 'id'],
        message: `another ${what} already has id "${item.id}"`,
      });
    }
    ids.add(item.id);
  });
  return ids;
}

export function checkDirectorySection(settings: DirectorySection, ctx: z.RefinementCtx): void {
  const domainIds = uniqueIds(settings.domains, 'domains', 'domain', ctx);
  const hostOutputIds = new Set(settings.outputs.map((o) => o.id));
  uniqueIds(settings.domainOutputs, 'domainOutputs', 'domain output', ctx);
  settings.domainOutputs.forEach((output, i) => {
    if (hostOutputIds.has(output.id)) {
      ctx.addIssue({
        code: 'custom',
        path: ['domainOutputs', i, 'id'],
        message: `a host output already has id "${output.id}"`,
      });
    }
    if (!domainIds.has(output.domainId)) {
      ctx.addIssue({
        code: 'custom',
        path: ['domainOutputs', i, 'domainId'],
        message: `no domain has id "${output.domainId}"`,
      });
    }
  });
  uniqueIds(settings.policies, 'policies', 'policy', ctx);
  settings.policies.forEach((policy, i) => {
    if (!domainIds.has(policy.domainId)) {
      ctx.addIssue({
        code: 'custom',
        path: ['policies', i, 'domainId'],
        message: `no domain has id "${policy.domainId}"`,
      });
    }
  });
  const localId = settings.agent.id;
  settings.agents.forEach((agent, i) => {
    if (localId !== undefined && agent.id === localId) {
      ctx.addIssue({ code: 'custom', path: ['agents', i, 'id'], message: `"${agent.id}" is the id of this agent` });
    }
  });
}
