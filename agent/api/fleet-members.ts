/** Fleet members as the agents resource lists them (docs/fleet.md). */
import type { FleetMember } from '../fleet/fleet-registry.js';
import type { ResourceRouteDeps } from './resource-deps.js';

/** Members of this agent's fleet other than itself and than agents registered here by hand. */
export function fleetMembers(deps: ResourceRouteDeps): FleetMember[] {
  return (deps.fleetMembers?.() ?? []).filter(
    (m) => m.id !== deps.localAgent.id && deps.agents.findRegistered(m.id) === undefined,
  );
}

export function findFleetMember(deps: ResourceRouteDeps, id: string): FleetMember | undefined {
  return fleetMembers(deps).find((m) => m.id === id);
}
