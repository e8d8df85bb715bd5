/**
 * Agents as resources: the local one comes from LocalAgent (local-agent.ts); a registered one
 * is described from what this agent knows — its address, port, comment and reachability. The
 * facts only that agent can tell are empty (`platformId` null, `installState` Unknown); a
 * console asks that agent's own API for them.
 */
import type { AgentDetailedView, ResourceStatus } from '../../../shared/agent-resource.js';
import type { RegisteredAgentSettings } from '../../config/fleet-schema.js';
import type { LocalAgentFields } from '../../resources/agent-service.js';
import type { LocalAgentWrite } from '../schemas/agent-schemas.js';
import type { ApiLinks } from './api-links.js';

function netbiosName(host: string): string {
  if (/^[0-9.]+$/.test(host) || host.includes(':')) return '';
  return host.split('.')[0]!.toUpperCase().slice(0, 15);
}

export function registeredAgentView(
  agent: RegisteredAgentSettings,
  status: ResourceStatus,
  links: ApiLinks,
): AgentDetailedView {
  const url = links.agent(agent.id);
  return {
    id: agent.id,
    url,
    platformId: null,
    host: agent.host,
    netbiosName: netbiosName(agent.host),
    domain: '',
    osVersion: '',
    isDC: false,
    errorMessage: status.type === 'OK' ? '' : status.details,
    installState: 'Unknown',
    version: '',
    configVersion: '',
    monitoredHostsUrl: `${url}/hosts`,
    monitoredDomainUrl: `${url}/domain`,
    apiServerIsEnabled: true,
    apiServerPort: agent.apiServerPort,
    userName: '',
    comment: agent.comment,
    status,
    signingKey: null,
    warnings: status.type === 'OK' ? [] : [status.summary],
    apiServerIpWhitelist: [],
    apiServerMgmtConsole: '',
    maxLocalSize: null,
    minLocalFreeSpace: null,
  };
}

export function localAgentWritable(fields: LocalAgentFields): Record<string, unknown> {
  return {
    comment: fields.comment,
    apiServerIpWhitelist: fields.allowList,
    maxLocalSize: fields.maxLocalSize,
    minLocalFreeSpace: fields.minLocalFreeSpace,
  };
}

export function localAgentFields(write: LocalAgentWrite): LocalAgentFields {
  return {
    comment: write.comment,
    allowList: write.apiServerIpWhitelist,
    maxLocalSize: write.maxLocalSize,
    minLocalFreeSpace: write.minLocalFreeSpace,
  };
}

export function renameLocalAgentField(field: string): string {
  return field.replace(/^allowList/, 'apiServerIpWhitelist');
}
