/**
 * `vigil verify --fleet [--data-dir DIR]`: the fleet database's chains (agent/fleet/verify-fleet.ts),
 * reached with this data dir's membership and password. Read-only; runs while agents forward.
 */
import fs from 'node:fs';
import { fleetMembershipSchema } from '../config/fleet-membership-schema.js';
import type { DataPaths } from '../config/data-dir.js';
import { openFleetPool } from '../fleet/fleet-connection.js';
import { verifyFleet } from '../fleet/verify-fleet.js';
import type { VerifyReport } from '../integrity/verify-report.js';
import { AgentUnreachableError } from './admin-client.js';
import { UsageError } from './usage-error.js';

export async function verifyFleetOf(paths: DataPaths): Promise<VerifyReport> {
  let fleet: unknown;
  try {
    fleet = (JSON.parse(fs.readFileSync(paths.settings, 'utf8')) as { fleet?: unknown }).fleet;
  } catch {
    fleet = undefined;
  }
  const membership = fleetMembershipSchema.safeParse(fleet);
  if (!membership.success)
    throw new UsageError(`the agent on ${paths.root} is no member of a fleet (vigil fleet join)`);
  const pool = openFleetPool(membership.data, paths.root, { max: 1 });
  try {
    return await verifyFleet(pool);
  } catch (error) {
    throw new AgentUnreachableError(`the fleet database cannot be read (${(error as Error).message})`);
  } finally {
    await pool.end().catch(() => undefined);
  }
}
