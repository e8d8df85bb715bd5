/**
 * Host settings → the Host resource (schemas/host-schemas.ts) and its limited view. The
 * settings and the API name the fields alike, so a write needs no mapping.
 */
import { HOST_DETAILED_ONLY, withoutKeys } from '../../../shared/detailed-only.js';
import type { View } from '../../../shared/permission-engine.js';
import type { HostSettings, OutputSettings } from '../../config/monitoring-schema.js';
import type { HostView } from '../schemas/host-schemas.js';
import { newHostStats } from '../../status/status-registry.js';
import { outputView, type OutputViewDeps } from './output-view.js';

export function hostView(
  host: HostSettings,
  outputs: readonly OutputSettings[],
  deps: OutputViewDeps,
  view: View,
): HostView {
  const url = deps.links.host(host.id);
  const runtime = deps.status.host(host.id);
  const detailed: HostView = {
    id: host.id,
    url,
    host: host.host,
    type: host.type,
    isEnabled: host.isEnabled,
    comment: host.comment,
    includePaths: host.includePaths,
    excludePaths: host.excludePaths,
    rescanIntervalMinutes: host.rescanIntervalMinutes,
    monitorReads: host.monitorReads,
    ...attributionOf(host, deps),
    agentsUrl: `${url}/agents`,
    outputs: outputs.map((o) => outputView(o, deps)),
    outputsUrl: `${url}/outputs`,
    status: runtime?.status ?? { updatedAt: deps.since, type: 'OK', summary: 'Starting', details: '' },
    statusHistoryUrl: `${url}/statusHistory`,
    stats: runtime?.stats ?? newHostStats(),
  };
  return view === 'detailed' ? detailed : withoutKeys(detailed, HOST_DETAILED_ONLY);
}

/** What the running source says (docs/attribution.md); a host not running names no actor. */
function attributionOf(host: HostSettings, deps: OutputViewDeps): Pick<HostView, 'attribution' | 'attributionReason'> {
  const known = deps.status.hostAttribution(host.id);
  if (known) return known;
  return { attribution: 'none', attributionReason: host.isEnabled ? 'starting' : 'monitoring is disabled' };
}
