/**
 * The fleet's agents (docs/fleet.md): each member writes its row in `vigil_agents` at start and
 * every 30 s (host name, API address and port, version, hosts as JSON); any member lists them.
 * A member not seen for 2 minutes has status Warning. Every query goes through
 * queryWhileReachable, so a member cut off by a silent link does not wait a minute for an answer.
 */
import type pg from 'pg';
import { queryWhileReachable } from './fleet-connection.js';

export const HEARTBEAT_MS = 30_000;
export const STALE_AFTER_MS = 120_000;

export interface MemberRegistration {
  id: string;
  host: string;
  apiAddress: string | null;
  apiPort: number | null;
  version: string | null;
  /** The member's hosts, as its agent API shows them. */
  hosts: unknown;
}

export interface FleetMember {
  id: string;
  host: string | null;
  apiAddress: string | null;
  apiPort: number | null;
  version: string | null;
  hosts: unknown;
  lastSeen: string | null;
  joinedAt: string | null;
  status: 'OK' | 'Warning';
}

export async function registerMember(pool: pg.Pool, member: MemberRegistration): Promise<void> {
  await queryWhileReachable(
    pool,
    `INSERT INTO vigil_agents (id, host, api_address, api_port, version, hosts, last_seen, joined_at)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, now(), now())
     ON CONFLICT (id) DO UPDATE SET host = excluded.host, api_address = excluded.api_address,
       api_port = excluded.api_port, version = excluded.version, hosts = excluded.hosts,
       last_seen = excluded.last_seen`,
    [member.id, member.host, member.apiAddress, member.apiPort, member.version, JSON.stringify(member.hosts ?? [])],
  );
}

interface AgentRow {
  id: string;
  host: string | null;
  api_address: string | null;
  api_port: number | null;
  version: string | null;
  hosts: unknown;
  last_seen: Date | null;
  joined_at: Date | null;
  stale: boolean;
}

function member(row: AgentRow): FleetMember {
  return {
    id: row.id,
    host: row.host,
    apiAddress: row.api_address,
    apiPort: row.api_port,
    version: row.version,
    hosts: row.hosts,
    lastSeen: row.last_seen?.toISOString() ?? null,
    joinedAt: row.joined_at?.toISOString() ?? null,
    status: row.stale ? 'Warning' : 'OK',
  };
}

const SELECT = `SELECT id, host, api_address, api_port, version, hosts, last_seen, joined_at,
                       (last_seen IS NULL OR last_seen < now() - make_interval(secs => $1)) AS stale
                  FROM vigil_agents`;

/** Every member, in id order; "stale" is judged by the database's clock, which all members share. */
export async function listMembers(pool: pg.Pool): Promise<FleetMember[]> {
  const { rows } = await queryWhileReachable<AgentRow>(pool, `${SELECT} ORDER BY id`, [STALE_AFTER_MS / 1000]);
  return rows.map(member);
}

export async function findMember(pool: pg.Pool, id: string): Promise<FleetMember | undefined> {
  const { rows } = await queryWhileReachable<AgentRow>(pool, `${SELECT} WHERE id = $2`, [STALE_AFTER_MS / 1000, id]);
  return rows[0] && member(rows[0]);
}
