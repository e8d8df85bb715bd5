/**
 * Active Directory monitoring policies of a domain (docs/agent-api.md): name, description,
 * path (folder, `\`-separated), guid, enabled, updatedAt, and the policy document in `xml`,
 * which must be well-formed (policy-xml.ts). Create, list with filters, change, delete. Changes
 * go through the settings store and are reported to the ChangeRecorder. No HTTP here.
 */
import crypto from 'node:crypto';
import type { ChangeRecorder } from '../pipeline/change-recorder.js';
import type { PolicySettings } from '../config/directory-schema.js';
import type { SettingsStore } from '../config/settings-store.js';
import { changeDetails } from './change-details.js';
import { checkPolicyLimits } from './policy-limits.js';
import { parsePolicyXml, policyFieldsFromXml } from './policy-xml.js';
import { invalidField, ServiceError } from '../util/service-error.js';
import { placed, withResourceProblems, type Placement } from './settings-problems.js';

export const POLICY_OBJECT_TYPE = 'Policy';

export interface PolicyFields {
  name?: string | undefined;
  description?: string | undefined;
  path?: string | undefined;
  isEnabled?: boolean | undefined;
  xml: string;
}

/** What a change function sees and may change; id, domain, guid and updatedAt are the agent's. */
export type PolicyState = Pick<PolicySettings, 'name' | 'description' | 'path' | 'isEnabled' | 'xml'>;

export interface PolicyFilter {
  isEnabled?: boolean | undefined;
  /** Policies in this folder or below it (case-insensitive; `\` separates folders). */
  path?: string | undefined;
}

function state(policy: PolicySettings): PolicyState {
  const { name, description, path, isEnabled, xml } = policy;
  return { name, description, path, isEnabled, xml };
}

function underPath(policyPath: string, folder: string): boolean {
  const p = policyPath.toLowerCase().replace(/\\+$/, '');
  const f = folder.toLowerCase().replace(/\\+$/, '');
  return f === '' || p === f || p.startsWith(`${f}\\`);
}

export interface PolicyServiceDeps {
  settings: SettingsStore;
  recorder: ChangeRecorder;
  now?: () => Date;
}

export class PolicyService {
  private readonly now: () => Date;

  constructor(private readonly deps: PolicyServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  list(domainId: string, filter: PolicyFilter = {}): PolicySettings[] {
    return this.deps.settings.current.policies.filter(
      (p) =>
        p.domainId === domainId &&
        (filter.isEnabled === undefined || p.isEnabled === filter.isEnabled) &&
        (filter.path === undefined || underPath(p.path, filter.path)),
    );
  }

  find(domainId: string, id: string): PolicySettings | undefined {
    return this.deps.settings.current.policies.find((p) => p.domainId === domainId && p.id === id);
  }

  /**
   * Adds a policy. Fields left out are taken from the XML when it names them (policy-xml.ts);
   * given fields win. The XML's own id and GUID are ignored: the agent assigns both.
   */
  async create(domainId: string, fields: PolicyFields, actor: string): Promise<PolicySettings> {
    const fromXml = typeof fields.xml === 'string' ? policyFieldsFromXml(parsePolicyXml(fields.xml)) : {};
    const name = fields.name ?? fromXml.name;
    if (name === undefined) {
      throw invalidField('name', 'the policy needs a name: give "name", or a Name element in the XML');
    }
    const id = crypto.randomUUID();
    const placements: Placement[] = [];
    const next = await withResourceProblems(
      () =>
        this.deps.settings.update((draft) => {
          if (!draft.domains.some((d) => d.id === domainId)) {
            throw new ServiceError('not_found', `there is no domain with id "${domainId}"`, 'domainId');
          }
          placements.push(placed('policies', draft.policies.length));
          draft.policies.push({
            id,
            domainId,
            name,
            description: fields.description ?? fromXml.description,
            path: fields.path ?? fromXml.path,
            isEnabled: fields.isEnabled ?? fromXml.isEnabled,
            guid: crypto.randomUUID(),
            updatedAt: this.now().toISOString(),
            xml: fields.xml,
          } as PolicySettings);
          checkPolicyLimits(this.deps.settings.current.policies, draft.policies);
        }),
      placements,
    );
    const policy = next.policies.find((p) => p.id === id)!;
    this.deps.recorder.recordChange({
      actor,
      action: 'Added',
      objectType: POLICY_OBJECT_TYPE,
      what: policy.name,
      id: policy.id,
      details: changeDetails(null, state(policy)),
    });
    return policy;
  }

  async update(
    domainId: string,
    id: string,
    change: (current: PolicyState) => PolicyFields,
    actor: string,
  ): Promise<PolicySettings> {
    let before: PolicySettings | undefined;
    const placements: Placement[] = [];
    const next = await withResourceProblems(
      () =>
        this.deps.settings.update((draft) => {
          const index = draft.policies.findIndex((p) => p.domainId === domainId && p.id === id);
          if (index < 0) throw new ServiceError('not_found', `there is no policy with id "${id}"`, 'id');
          before = draft.policies[index]!;
          const fields = change(state(before));
          if (fields.xml !== before.xml && typeof fields.xml === 'string') parsePolicyXml(fields.xml);
          placements.push(placed('policies', index));
          draft.policies[index] = {
            ...fields,
            id,
            domainId,
            guid: before.guid,
            updatedAt: this.now().toISOString(),
          } as PolicySettings;
          checkPolicyLimits(this.deps.settings.current.policies, draft.policies);
        }),
      placements,
    );
    const policy = next.policies.find((p) => p.id === id)!;
    const details = changeDetails(state(before!), state(policy));
    if (details.length > 0) {
      this.deps.recorder.recordChange({
        actor,
        action: 'Modified',
        objectType: POLICY_OBJECT_TYPE,
        what: policy.name,
        id: policy.id,
        details,
      });
    }
    return policy;
  }

  setEnabled(domainId: string, id: string, enabled: boolean, actor: string): Promise<PolicySettings> {
    return this.update(domainId, id, (policy) => ({ ...policy, isEnabled: enabled }), actor);
  }

  async remove(domainId: string, id: string, actor: string): Promise<void> {
    let removed: PolicySettings | undefined;
    await this.deps.settings.update((draft) => {
      removed = draft.policies.find((p) => p.domainId === domainId && p.id === id);
      if (!removed) throw new ServiceError('not_found', `there is no policy with id "${id}"`, 'id');
      draft.policies = draft.policies.filter((p) => p !== removed);
    });
    this.deps.recorder.recordChange({
      actor,
      action: 'Removed',
      objectType: POLICY_OBJECT_TYPE,
      what: removed!.name,
      id: removed!.id,
      details: changeDetails(state(removed!), null),
    });
  }
}
