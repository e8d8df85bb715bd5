/**
 * What the rest of the agent sees of fleet membership (docs/fleet.md): the console's fleet routes,
 * the agents router and the audit API use it; agent/setup/fleet-setup.ts makes it.
 */
import type { FleetStatusView } from '../../shared/console-api.js';
import type { FleetMembership } from './fleet-membership.js';
import type { FleetMember } from './fleet-registry.js';

/** `vigil fleet status`'s JSON (docs/fleet.md), shared with the console. */
export type { FleetStatusView };

export interface FleetService {
  /** The membership while this agent is a member; null when it is not (or not started yet). */
  current(): FleetMembership | null;
  status(): Promise<FleetStatusView>;
  /** The fleet's members, or null when this agent is not a member or the database is unreachable. */
  members(): Promise<FleetMember[] | null>;
  /** The fleet's members as of the last heartbeat; empty when this agent is not a member. */
  knownMembers(): readonly FleetMember[];
  /** Makes this agent a member of the fleet database `database` (the password is kept owner-only). */
  join(database: string, password: string | null): Promise<FleetStatusView>;
  leave(): Promise<void>;
  /** Why the agent's status is Warning, or null. */
  problem(): string | null;
  /** Starts membership when settings name a fleet; call once the listeners are bound. */
  start(): Promise<void>;
  stop(): Promise<void>;
}
