/**
 * Agents as members of a fleet on a real PostgreSQL (docs/fleet.md): `vigil fleet join` offline
 * and while the agent runs, every record of three agents stored exactly once, an outage that the
 * agent rides out (monitoring on, backlog growing, status Warning) and catches up on exactly once,
 * and `vigil fleet leave`.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewActivityRecord } from '../../shared/activity-record.js';
import { fleetPasswordFile } from '../../agent/fleet/fleet-connection.js';
import type { FleetStatusView } from '../../agent/fleet/fleet-service.js';
import { waitFor, monitorFolders } from '../helpers/activity.js';
import { apiRequest, bearer, enrolClient, obtainTokens } from '../helpers/api-client.js';
import { runVigil } from '../helpers/cli.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';

const FAST = { pollMs: 50, heartbeatMs: 500, pacing: { firstDelayMs: 50, maxDelayMs: 300 } };

function someRecords(n: number, tag: string): NewActivityRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    Who: 'carol',
    Action: 'Modified',
    What: `/data/${tag}/${i}.txt`,
    When: new Date().toISOString(),
    Where: 'ws-fleet',
    ObjectType: 'File',
    DataSource: 'File Servers',
  }));
}

describe('fleet membership', () => {
  let server: PostgresServer;
  /** A pool: its connections come back after the server restarts. */
  let admin: pg.Pool;
  const agents: TestAgent[] = [];

  async function fleetRows(agentId: string): Promise<{ n: number; rids: number }> {
    const { rows } = await admin.query<{ n: number; rids: number }>(
      'SELECT count(*)::int AS n, count(DISTINCT rid)::int AS rids FROM vigil_records WHERE agent_id = $1',
      [agentId],
    );
    return rows[0]!;
  }

  async function fleet(args: string[], dataDir: string, stdin?: string): Promise<FleetStatusView> {
    const result = await runVigil(['fleet', ...args, '--data-dir', dataDir], stdin === undefined ? {} : { stdin });
    expect(result.stderr).not.toContain(server.password);
    expect(result.stdout).not.toContain(server.password);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as FleetStatusView;
  }

  async function agent(dataDir = makeTempDir()): Promise<TestAgent> {
    const started = await startTestAgent({ dataDir, fleet: FAST });
    agents.push(started);
    return started;
  }

  beforeAll(async () => {
    server = await startPostgres();
    admin = new pg.Pool({ connectionString: server.adminUrl.replace(/\/postgres$/, '/vigil'), max: 1 });
    admin.on('error', () => undefined);
  });
  afterAll(async () => {
    for (const a of agents) await a.stop();
    await admin?.end();
    await server?.stop();
  });

  let first: TestAgent;

  it('joins while the agent runs: at once connected, registered, forwarding; the password kept owner-only', async () => {
    first = await agent();
    const status = await fleet(['join', server.url, '--password-stdin'], first.dataDir, `${server.password}\n`);
    expect(status).toMatchObject({ database: server.url, state: 'connected', backlog: expect.any(Number) });
    expect(status.members.map((m) => m.id)).toContain(first.agentId);
    expect(first.settings.current.fleet?.database).toBe(server.url);
    const stat = fs.statSync(fleetPasswordFile(first.dataDir));
    expect(stat.mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(fleetPasswordFile(first.dataDir), 'utf8')).toBe(server.password);
    expect(fs.readFileSync(path.join(first.dataDir, 'settings.json'), 'utf8')).not.toContain(server.password);
    first.store.insertBatch(someRecords(50, 'first'));
    await waitFor(
      () => fleetRows(first.agentId),
      (r) => r.n === first.store.count(),
      15_000,
      'records forwarded',
    );
  });

  it('joins offline, then forwards from the start; three agents store every record exactly once', async () => {
    const dirs = [makeTempDir(), makeTempDir()];
    for (const dir of dirs) {
      const status = await fleet(['join', server.url, '--password-stdin'], dir, server.password);
      expect(status.database).toBe(server.url);
    }
    const others = [await agent(dirs[0]), await agent(dirs[1])];
    const all = [first, ...others];
    for (let round = 0; round < 3; round++) {
      for (const [i, a] of all.entries()) a.store.insertBatch(someRecords(400, `round${round}-agent${i}`));
    }
    for (const a of all) {
      await waitFor(
        () => fleetRows(a.agentId),
        (r) => r.n === a.store.count(),
        20_000,
        `records of ${a.agentId}`,
      );
      expect(await fleetRows(a.agentId)).toEqual({ n: a.store.count(), rids: a.store.count() });
    }
    const status = await fleet(['status'], first.dataDir);
    expect(status.members.map((m) => m.id).sort()).toEqual(all.map((a) => a.agentId).sort());
    expect(status.members.every((m) => m.status === 'OK')).toBe(true);
  });

  it("lists the fleet's agents on any member, with their hosts; Access activity data still sees only the local agent", async () => {
    const all = agents.slice(0, 3);
    const other = all[1]!;
    const reader = await obtainTokens(first, await enrolClient(first, ['read']));
    const listed = await waitFor(
      async () => {
        const response = await apiRequest(first, { path: '/api/v1/agents', headers: bearer(reader.access_token) });
        return JSON.parse(response.text) as Array<{ id: string; version: string; status: { type: string } }>;
      },
      (list) => list.length === 3,
      15_000,
      'three agents listed',
    );
    expect(listed.map((a) => a.id).sort()).toEqual(all.map((a) => a.agentId).sort());
    expect(listed.find((a) => a.id === other.agentId)!.status.type).toBe('OK');
    const hosts = await apiRequest(first, {
      path: `/api/v1/agents/${other.agentId}/hosts`,
      headers: bearer(reader.access_token),
    });
    expect(hosts.status).toBe(200);
    expect((JSON.parse(hosts.text) as Array<{ host: string }>).map((h) => h.host)).toEqual(
      other.settings.current.hosts.map((h) => h.host),
    );
    const activityOnly = await obtainTokens(first, await enrolClient(first, ['accessActivityData']));
    const limited = await apiRequest(first, { path: '/api/v1/agents', headers: bearer(activityOnly.access_token) });
    expect((JSON.parse(limited.text) as Array<{ id: string }>).map((a) => a.id)).toEqual([first.agentId]);
  });

  it('rides out a PostgreSQL outage: monitoring goes on, backlog grows, status says unreachable; then catches up exactly once', async () => {
    const watched = makeTempDir('vigil-fleet-watched-');
    await monitorFolders(first, [watched]);
    const tokens = await obtainTokens(first, await enrolClient(first, ['read']));
    const before = first.store.count();
    await server.pause();
    try {
      fs.writeFileSync(path.join(watched, 'during-outage.txt'), 'still monitored');
      await waitFor(
        () => first.store.count(),
        (n) => n > before,
        15_000,
        'a file record while the database is down',
      );
      first.store.insertBatch(someRecords(200, 'outage'));
      await waitFor(
        () => first.fleet.current()?.state(),
        (s) => s === 'unreachable',
        15_000,
        'unreachable',
      );
      const status = await fleet(['status'], first.dataDir);
      expect(status.state).toBe('unreachable');
      expect(status.backlog).toBeGreaterThanOrEqual(201);
      const shown = await apiRequest(first, {
        path: `/api/v1/agents/${first.agentId}`,
        headers: bearer(tokens.access_token),
      });
      const agentStatus = (shown.json as { status: { type: string; details: string } }).status;
      expect(agentStatus.type).toBe('Warning');
      expect(agentStatus.details).toMatch(/^fleet database unreachable since \d{4}-.*Z, \d+ records waiting$/);
    } finally {
      await server.start();
    }
    await waitFor(
      () => fleetRows(first.agentId),
      (r) => r.n === first.store.count(),
      30_000,
      'backlog forwarded',
    );
    expect(await fleetRows(first.agentId)).toEqual({ n: first.store.count(), rids: first.store.count() });
    expect(first.fleet.current()?.state()).toBe('connected');
    expect((await fleet(['status'], first.dataDir)).backlog).toBe(0);
  });

  it('leaves: forwarding stops, the membership and its password are gone', async () => {
    const status = await fleet(['leave'], first.dataDir);
    expect(status.state).toBe('alone');
    expect(first.settings.current.fleet).toBeUndefined();
    expect(fs.existsSync(fleetPasswordFile(first.dataDir))).toBe(false);
    const forwarded = (await fleetRows(first.agentId)).n;
    first.store.insertBatch(someRecords(20, 'after-leave'));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await fleetRows(first.agentId)).n).toBe(forwarded);
    expect(first.fleet.current()).toBeNull();
    expect((await fleet(['status'], first.dataDir)).state).toBe('alone');
  });
});
