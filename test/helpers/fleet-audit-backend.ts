/**
 * The audit API tests against a fleet member (docs/audit-api.md "Fleet"): a test file that calls
 * useFleetAuditBackend() before its fixtures start gets agents that are members of a fleet on a
 * real PostgreSQL (one server per file, a fresh database per agent, so each fixture's audit API
 * serves exactly the records it stored), and records the fixture inserts are waited for until
 * they are in the fleet database.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll } from 'vitest';
import { writeFleetPassword } from '../../agent/fleet/fleet-connection.js';
import { useAuditBackend } from './audit-fixture.js';
import { startPostgres, type PostgresServer } from './postgres-server.js';

/** Forwarding and reconnecting at test pace. */
export const FAST_FLEET = { pollMs: 50, heartbeatMs: 500, pacing: { firstDelayMs: 50, maxDelayMs: 300 } };

let server: Promise<PostgresServer> | null = null;
let databases = 0;

/** A new database owned by the `vigil` role, with pg_trgm; its URL (without password). */
export async function freshFleetDatabase(of: PostgresServer): Promise<string> {
  const name = `vigil_${++databases}`;
  const admin = new pg.Client({ connectionString: of.adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} OWNER vigil`);
  } finally {
    await admin.end();
  }
  const inside = new pg.Client({ connectionString: of.adminUrl.replace(/\/postgres$/, `/${name}`) });
  await inside.connect();
  try {
    await inside.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
  } finally {
    await inside.end();
  }
  return of.url.replace(/\/vigil$/, `/${name}`);
}

/** Makes the data folder's agent a member of `database` before it starts (`vigil fleet join` offline). */
export function joinOffline(dataDir: string, database: string, password: string): void {
  const file = path.join(dataDir, 'settings.json');
  const settings = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
  settings['fleet'] = { database, joinedAt: new Date().toISOString() };
  fs.writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`);
  writeFleetPassword(dataDir, password);
}

/** The file's PostgreSQL, started on first use and stopped after the file. */
export function fleetServer(): Promise<PostgresServer> {
  server ??= startPostgres();
  return server;
}

export function useFleetAuditBackend(): void {
  useAuditBackend({
    name: 'fleet',
    agentOptions: { fleet: FAST_FLEET },
    async prepare(dataDir) {
      const of = await fleetServer();
      joinOffline(dataDir, await freshFleetDatabase(of), of.password);
    },
  });
  afterAll(async () => {
    const started = server;
    server = null;
    await (await started?.catch(() => null))?.stop();
  }, 60_000);
}
