/**
 * Real `vigil agent` processes as fleet members for the outage and partition tests
 * (docs/fleet.md "Failure behaviour"): each watches a folder of its own, writers create files
 * there from this process, and the fleet database is compared with the union of the members'
 * local SQLite stores.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { localHostType } from '../../agent/config/monitoring-schema.js';
import type { FleetStatusView } from '../../agent/fleet/fleet-service.js';
import { startAgentProcess, type AgentProcess, type AgentProcessOptions } from './agent-process.js';
import { joinOffline } from './fleet-audit-backend.js';
import { REPO_ROOT } from './cli.js';
import { makeTempDir } from './temp-dir.js';

const run = promisify(execFile);

export interface FleetMember {
  name: string;
  agent: AgentProcess;
  agentId: string;
  dataDir: string;
  watched: string;
  /** Prefix of commands run where the agent runs (`ip netns exec NS`), or empty. */
  prefix: string[];
}

/** Starts an agent that watches a folder of its own and is a member of `database` from its start. */
export async function startMember(options: {
  name: string;
  database: string;
  password: string;
  prefix?: string[];
  beforeStart?: (dataDir: string) => Promise<void>;
}): Promise<FleetMember> {
  const dataDir = makeTempDir();
  const watched = makeTempDir(`vigil-${options.name}-`);
  fs.writeFileSync(
    path.join(dataDir, 'settings.json'),
    JSON.stringify({
      hosts: [{ id: 'host-1', host: options.name, type: localHostType(), includePaths: [watched] }],
    }),
  );
  joinOffline(dataDir, options.database, options.password);
  await options.beforeStart?.(dataDir);
  const agent = await startAgentProcess(processOptions(dataDir, options.prefix ?? []));
  const agentId = (
    JSON.parse(fs.readFileSync(path.join(dataDir, 'settings.json'), 'utf8')) as { agent: { id: string } }
  ).agent.id;
  return { name: options.name, agent, agentId, dataDir, watched, prefix: options.prefix ?? [] };
}

/** Starts the members together; if one fails, those started are stopped and the failure thrown. */
export async function startMembers(list: Array<Parameters<typeof startMember>[0]>): Promise<FleetMember[]> {
  const started = await Promise.allSettled(list.map((options) => startMember(options)));
  const members = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    for (const member of members) await member.agent.kill();
    throw failed.reason;
  }
  return members;
}

function processOptions(dataDir: string, prefix: string[]): AgentProcessOptions {
  return { dataDir, logLevel: 'warn', readyTimeoutMs: 90_000, prefix };
}

/** Starts the member's agent again on the same data folder (after a kill -9, say). */
export async function restartMember(member: FleetMember): Promise<void> {
  member.agent = await startAgentProcess(processOptions(member.dataDir, member.prefix));
}

/** `vigil fleet status` of the member, run where the member runs (it goes through its console). */
export async function fleetStatus(member: FleetMember, timeoutMs = 30_000): Promise<FleetStatusView> {
  const [file, ...args] = [
    ...member.prefix,
    process.execPath,
    path.join(REPO_ROOT, 'bin', 'vigil.js'),
    'fleet',
    'status',
    '--data-dir',
    member.dataDir,
  ];
  const { stdout } = await run(file!, args, { cwd: REPO_ROOT, timeout: timeoutMs, env: { ...process.env } });
  return JSON.parse(stdout) as FleetStatusView;
}

/** The RIDs in the member's local SQLite store. */
export function localRids(member: FleetMember): string[] {
  const db = new Database(path.join(member.dataDir, 'audit.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT rid FROM activity_records').pluck().all() as string[];
  } finally {
    db.close();
  }
}

export interface FleetContents {
  count: number;
  rids: string[];
  /** Rows per agent id. */
  perAgent: Map<string, number>;
}

export async function fleetContents(admin: pg.Pool): Promise<FleetContents> {
  const { rows } = await admin.query<{ rid: string; agent_id: string }>('SELECT rid, agent_id FROM vigil_records');
  const perAgent = new Map<string, number>();
  for (const row of rows) perAgent.set(row.agent_id, (perAgent.get(row.agent_id) ?? 0) + 1);
  return { count: rows.length, rids: rows.map((r) => r.rid).sort(), perAgent };
}

/**
 * Creates a file in each folder every `everyMs` until `stop()` (bounded by `maxFiles` per
 * folder), so the members keep recording while the fleet database is away.
 */
export function keepWriting(
  folders: string[],
  everyMs: number,
  maxFiles = 10_000,
): { stop(): Promise<number>; written(): number } {
  let written = 0;
  let stopped = false;
  const loop = (async () => {
    for (let i = 0; i < maxFiles && !stopped; i++) {
      for (const folder of folders) fs.writeFileSync(path.join(folder, `file-${i}.txt`), `file ${i}\n`);
      written++;
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    written: () => written,
    async stop() {
      stopped = true;
      await loop;
      return written;
    },
  };
}

/**
 * Waits (bounded) until every member reports an empty backlog and the fleet database holds as
 * many records as their stores together, then returns both sides for the exact comparison.
 */
export async function settledFleet(
  admin: pg.Pool,
  members: FleetMember[],
  timeoutMs: number,
): Promise<{ fleet: FleetContents; local: Map<FleetMember, string[]> }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const statuses = await Promise.all(members.map((m) => fleetStatus(m)));
    const local = new Map(members.map((m) => [m, localRids(m)] as const));
    const fleet = await fleetContents(admin);
    const union = [...local.values()].reduce((n, rids) => n + rids.length, 0);
    if (statuses.every((s) => s.state === 'connected' && s.backlog === 0) && fleet.count === union) {
      return { fleet, local };
    }
    const last = `${statuses.map((s, i) => `${members[i]!.name}: ${s.state}, backlog ${s.backlog}`).join('; ')}; fleet ${fleet.count} of ${union}`;
    if (Date.now() > deadline) throw new Error(`the fleet did not settle within ${timeoutMs} ms: ${last}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
