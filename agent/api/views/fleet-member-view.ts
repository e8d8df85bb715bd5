/**
 * Another member of this agent's fleet (docs/fleet.md), as an Agent resource: what it registered
 * in the fleet database (host name, API address and port, version) and whether it was seen in the
 * last 2 minutes (status Warning when not). Like a registered agent, the facts only that agent
 * can tell are empty; its own API has them.
 */
import type { AgentDetailedView, ResourceStatus } from '../../../shared/agent-resource.js';
import { STALE_AFTER_MS, type FleetMember } from '../../fleet/fleet-registry.js';
import type { ApiLinks } from './api-links.js';
import { registeredAgentView } from './agent-view.js';

export function fleetMemberStatus(member: FleetMember, now = Date.now()): ResourceStatus {
  const seen = member.lastSeen === null ? Number.NaN : Date.parse(member.lastSeen);
  const updatedAt = member.lastSeen ?? new Date(now).toISOString();
  if (seen >= now - STALE_AFTER_MS && member.status === 'OK') {
    return { updatedAt, type: 'OK', summary: 'Member of the fleet', details: '' };
  }
  return {
    updatedAt,
    type: 'Warning',
    summary: 'Not seen for 2 minutes',
    details: member.lastSeen === null ? 'never seen' : `last seen ${member.lastSeen}`,
  };
}

export function fleetMemberView(member: FleetMember, links: ApiLinks, now = Date.now()): AgentDetailedView {
  const view = registeredAgentView(
    {
      id: member.id,
      host: member.host ?? member.apiAddress ?? '',
      apiServerPort: member.apiPort ?? 4494,
      comment: '',
      createdAt: member.joinedAt ?? new Date(0).toISOString(),
    },
    fleetMemberStatus(member, now),
    links,
  );
  return { ...view, version: member.version ?? '' };
}
