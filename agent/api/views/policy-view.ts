/** Policy settings → the Policy resource (schemas/policy-schemas.ts) and its limited view. */
import { POLICY_DETAILED_ONLY, withoutKeys } from '../../../shared/detailed-only.js';
import type { View } from '../../../shared/permission-engine.js';
import type { PolicySettings } from '../../config/directory-schema.js';
import type { PolicyView } from '../schemas/policy-schemas.js';
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
    isEnabled: policy.isEnabled,
    updatedAt: policy.updatedAt,
    xml: policy.xml,
  };
  return view === 'detailed' ? detailed : withoutKeys(detailed, POLICY_DETAILED_ONLY);
}
