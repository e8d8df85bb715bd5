/**
 * Host settings → the Host resource (schemas/host-schemas.ts), the limited view, and a write
 * back to settings fields. The API says `host` and `isEnabled` where the settings say `name`
 * and `enabled`.
 */
import { HOST_DETAILED_ONLY, withoutKeys } from '../../../shared/detailed-only.js';
import type { View } from '../../../shared/permission-engine.js';
import type { HostSettings, OutputSettings } from '../../config/monitoring-schema.js';
import type { HostFields, HostState } from '../../resources/host-service.js';
import type { HostView, HostWrite } from '../schemas/host-schemas.js';
import { newHostStats } from '../../status/status-registry.js';
import { outputView, renameOutputField, type OutputViewDeps } from './output-view.js';

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
    host: host.name,
    type: host.type,
    isEnabled: host.enabled,
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
  return { attribution: 'none', attributionReason: host.enabled ? 'starting' : 'monitoring is disabled' };
}

/** The writable fields of a host, by API name: what a merge patch applies to. */
export function hostWritable(host: HostState): Record<string, unknown> {
  return {
    host: host.name,
    type: host.type,
    isEnabled: host.enabled,
    includePaths: host.includePaths,
    excludePaths: host.excludePaths,
    rescanIntervalMinutes: host.rescanIntervalMinutes,
    monitorReads: host.monitorReads,
    comment: host.comment,
  };
}

export function hostFieldsFromWrite(write: HostWrite): HostFields {
  return {
    name: write.host,
    type: write.type,
    enabled: write.isEnabled,
    includePaths: write.includePaths,
    excludePaths: write.excludePaths,
    rescanIntervalMinutes: write.rescanIntervalMinutes,
    monitorReads: write.monitorReads,
    comment: write.comment,
  };
}

/** A settings field of a host (in an error) → its API name; `outputs[i].…` are the outputs' names. */
export function renameHostField(field: string): string {
  const output = /^(outputs\[\d+\]\.)(.*)$/.exec(field);
  if (output) return `${output[1]}${renameOutputField(output[2]!)}`;
  if (field === 'name') return 'host';
  if (field === 'enabled') return 'isEnabled';
  return field;
}
