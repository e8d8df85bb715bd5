/**
 * kill -9 of a fleet member mid-forward (docs/fleet.md "Exactly once"): a real `vigil agent`
 * forwards a burst of file activity; it is killed while a batch waits inside its PostgreSQL
 * transaction, and its durable cursor is then wound back as if it had died after PostgreSQL
 * committed but before SQLite recorded it. After a restart the fleet database holds every local
 * record exactly once.
 */
import { execFile, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localHostType } from '../../agent/config/monitoring-schema.js';
import { ADVISORY_KEYS } from '../../agent/fleet/pg-schema.js';
import { waitFor } from '../helpers/activity.js';
import { collect, REPO_ROOT, runVigil, spawnVigil, waitForReady } from '../helpers/cli.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const WRITER = path.join(REPO_ROOT, 'test', 'fixtures', 'burst-writer.mjs');
const FREE_PORTS = ['--api-port', '0', '--audit-port', '0', '--console-port', '0'];
const FILES = 3_000;

describe('kill -9 of a fleet member mid-forward', () => {
  let server: PostgresServer;
  let admin: pg.Pool;
  const children: ChildProcessWithoutNullStreams[] = [];

  beforeAll(async () => {
    server = await startPostgres();
    admin = new pg.Pool({ connectionString: server.adminUrl.replace(/\/postgres$/, '/vigil'), max: 2 });
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await admin?.end();
    await server?.stop();
  });

  async function startAgent(dataDir: string): Promise<ChildProcessWithoutNullStreams> {
    const child = spawnVigil(['agent', '--data-dir', dataDir, ...FREE_PORTS]);
    children.push(child);
    await waitForReady(child, 60_000);
    return child;
  }

  async function fleetCount(agentId: string): Promise<{ n: number; rids: number }> {
    const { rows } = await admin.query<{ n: number; rids: number }>(
      'SELECT count(*)::int AS n, count(DISTINCT rid)::int AS rids FROM vigil_records WHERE agent_id = $1',
      [agentId],
    );
    return rows[0]!;
  }

  it('stores every record exactly once after the restart', async () => {
    const dataDir = makeTempDir();
    const watched = makeTempDir('vigil-fleet-crash-');
    fs.writeFileSync(
      path.join(dataDir, 'settings.json'),
      JSON.stringify({
        hosts: [{ id: 'host-1', host: 'fleet-crash', type: localHostType(), includePaths: [watched] }],
      }),
    );
    const joined = await runVigil(['fleet', 'join', server.url, '--password-stdin', '--data-dir', dataDir], {
      stdin: server.password,
    });
    expect(joined.code, joined.stderr).toBe(0);

    const first = await startAgent(dataDir);
    const exited = collect(first, 120_000);
    const agentId = (
      JSON.parse(fs.readFileSync(path.join(dataDir, 'settings.json'), 'utf8')) as { agent: { id: string } }
    ).agent.id;
    const writer = promisify(execFile)(process.execPath, [WRITER, watched, String(FILES), '10']);
    await waitFor(
      () => fleetCount(agentId),
      (c) => c.n >= 200,
      60_000,
      'some records forwarded',
    );

    // Hold the inserts lock: the member's next batch waits inside its transaction, then dies there.
    const holder = await admin.connect();
    await holder.query('SELECT pg_advisory_lock($1)', [ADVISORY_KEYS.inserts]);
    await waitFor(
      async () =>
        (
          await admin.query(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'vigil' AND wait_event = 'advisory'",
          )
        ).rows[0].n as number,
      (n) => n > 0,
      30_000,
      'a batch waiting in its transaction',
    );
    first.kill('SIGKILL');
    expect((await exited).signal).toBe('SIGKILL');
    await holder.query('SELECT pg_advisory_unlock($1)', [ADVISORY_KEYS.inserts]);
    holder.release();
    await writer;

    // As if the member had died after PostgreSQL committed but before its cursor moved.
    const db = new Database(path.join(dataDir, 'audit.db'), { fileMustExist: true });
    const cursor = db.prepare('SELECT last_seq FROM fleet_forward_cursor').get() as { last_seq: number };
    expect(cursor.last_seq).toBeGreaterThan(0);
    db.prepare('UPDATE fleet_forward_cursor SET last_seq = ?').run(Math.floor(cursor.last_seq / 2));
    db.close();

    const second = await startAgent(dataDir);
    const stopped = collect(second, 120_000);
    const reader = new Database(path.join(dataDir, 'audit.db'), { readonly: true, fileMustExist: true });
    const local = (): number => (reader.prepare('SELECT count(*) AS n FROM activity_records').get() as { n: number }).n;
    await waitFor(
      () => local(),
      (n) => n >= FILES,
      60_000,
      'every file recorded locally',
    );
    await waitFor(
      async () => (await fleetCount(agentId)).n === local(),
      Boolean,
      60_000,
      'the backlog forwarded after the restart',
    );
    const localRids = (reader.prepare('SELECT rid FROM activity_records').all() as Array<{ rid: string }>).map(
      (r) => r.rid,
    );
    reader.close();
    const { rows } = await admin.query<{ rid: string }>('SELECT rid FROM vigil_records WHERE agent_id = $1', [agentId]);
    expect(rows.map((r) => r.rid).sort()).toEqual(localRids.sort());
    second.kill('SIGTERM');
    await stopped;
  }, 240_000);
});
