/** Policy settings → the Policy resource (schemas/policy-schemas.ts), and writes back to settings fields. */
import { POLICY_DETAILED_ONLY, withoutKeys } from '../../../shared/detailed-only.js';
import type { View } from '../../../shared/permission-engine.js';
import type { PolicySettings } from '../../config/directory-schema.js';
import type { PolicyFields, PolicyState } from '../../resources/policy-service.js';
import type { PolicyView, PolicyWrite } from '../schemas/policy-schemas.js';
import type { ApiLinks } from './api-links.js';

export function policyView(policy: PolicySettings, links: ApiLinks, view: View): PolicyView {
  const detailed: PolicyView = {
    id: policy.id,
    url: links.policy(policy.domainId, policy.id),
    domainId: policy.domainId,
    domainUrl: links.domain(policy.domainId),
    name: policy.name,
    description: policy.description,
    path: policy.path,
    guid: policy.guid,
    isEnabled: policy.enabled,
    updatedAt: policy.updatedAt,
    xml: policy.xml,
  };
  return view === 'detailed' ? detailed : withoutKeys(detailed, POLICY_DETAILED_ONLY);
}

export function policyWritable(policy: PolicyState): Record<string, unknown> {
  return {
    name: policy.name,
    description: policy.description,
    path: policy.path,
    isEnabled: policy.enabled,
    xml: policy.xml,
  };
}

export function policyFieldsFromWrite(write: Partial<PolicyWrite> & { xml: string }): PolicyFields {
  return {
    name: write.name,
    description: write.description,
    path: write.path,
    enabled: write.isEnabled,
    xml: write.xml,
  };
}

export function renamePolicyField(field: string): string {
  return field === 'enabled' ? 'isEnabled' : field;
}
