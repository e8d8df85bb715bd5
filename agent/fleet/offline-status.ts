/**
 * `vigil fleet status` when no agent runs on the data dir: the membership from settings, one
 * connection attempt to the fleet database, and the backlog counted in the local audit database.
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';
import type { FleetMembershipSettings } from '../config/fleet-membership-schema.js';
import { openFleetPool } from './fleet-connection.js';
import { failureState } from './fleet-state.js';
import { listMembers } from './fleet-registry.js';
import type { FleetStatusView } from './fleet-service.js';

/** Local records not yet forwarded to `database` (all of them when none ever were). */
export function localBacklog(auditDb: string, database: string): number {
  if (!fs.existsSync(auditDb)) return 0;
  const db = new Database(auditDb, { readonly: true, fileMustExist: true });
  try {
    let cursor = 0;
    try {
      const row = db.prepare('SELECT last_seq FROM fleet_forward_cursor WHERE database = ?').get(database) as
        { last_seq: number } | undefined;
      cursor = row?.last_seq ?? 0;
    } catch {
      // an audit database from before fleets: nothing forwarded yet
    }
    return (db.prepare('SELECT count(*) AS n FROM activity_records WHERE seq > ?').get(cursor) as { n: number }).n;
  } finally {
    db.close();
  }
}

export async function offlineFleetStatus(
  fleet: FleetMembershipSettings | undefined,
  dataDir: string,
  auditDb: string,
): Promise<FleetStatusView> {
  if (!fleet) return { database: null, state: 'alone', problem: null, backlog: 0, members: [] };
  const backlog = localBacklog(auditDb, fleet.database);
  const pool = openFleetPool(fleet, dataDir, { max: 1, connectionTimeoutMillis: 5_000 });
  try {
    const members = await listMembers(pool);
    return {
      database: fleet.database,
      state: 'connected',
      problem: null,
      backlog,
      members: members.map((m) => ({ id: m.id, host: m.host, lastSeen: m.lastSeen, status: m.status })),
    };
  } catch (error) {
    const problem = (error as Error).message;
    return { database: fleet.database, state: failureState(error), problem, backlog, members: [] };
  } finally {
    await pool.end().catch(() => undefined);
  }
}
