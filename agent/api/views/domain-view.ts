/** Domain settings → the Domain resource (schemas/domain-schemas.ts) and its limited view. */
import { DOMAIN_DETAILED_ONLY, withoutKeys } from '../../../shared/detailed-only.js';
import type { View } from '../../../shared/permission-engine.js';
import type { DomainSettings } from '../../config/directory-schema.js';
import type { DomainOutputSettings } from '../../config/monitoring-schema.js';
import type { DomainView } from '../schemas/domain-schemas.js';
import { outputView, type OutputViewDeps } from './output-view.js';
import type { DomainStatus } from '../../directory/domain-status.js';

export function domainView(
  domain: DomainSettings,
  outputs: readonly DomainOutputSettings[],
  deps: OutputViewDeps,
  view: View,
  status?: DomainStatus,
): DomainView {
  const url = deps.links.domain(domain.id);
  const detailed: DomainView = {
    id: domain.id,
    url,
    name: domain.name,
    isEnabled: domain.isEnabled,
    comment: domain.comment,
    ldapServer: domain.ldapServer,
    userName: domain.userName,
    baseDn: domain.baseDn,
    pollingIntervalSeconds: domain.pollingIntervalSeconds,
    tls: domain.tls,
    caFile: domain.caFile,
    status: status ?? { updatedAt: deps.since, type: 'OK', summary: 'Starting', details: '' },
    outputs: outputs.map((o) => outputView(o, deps)),
    outputsUrl: `${url}/outputs`,
    agentsUrl: `${url}/agents`,
    policiesUrl: `${url}/policies`,
    masterAgentId: deps.localAgentId,
    masterAgentUrl: deps.links.agent(deps.localAgentId),
  };
  return view === 'detailed' ? detailed : withoutKeys(detailed, DOMAIN_DETAILED_ONLY);
}
