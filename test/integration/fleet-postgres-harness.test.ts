/** The PostgreSQL the fleet tests run against: reachable as `vigil` with its password only. */
import fs from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, urlWithPassword, type PostgresServer } from '../helpers/postgres-server.js';

describe('fleet test PostgreSQL', () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('accepts the vigil role with its password, owning its database, with pg_trgm', async () => {
    const client = new pg.Client({ connectionString: urlWithPassword(server.url, server.password) });
    await client.connect();
    try {
      const { rows } = await client.query<{ user: string; db: string; similarity: number }>(
        "SELECT current_user AS user, current_database() AS db, similarity('workstation', 'workstations') AS similarity",
      );
      expect(rows[0]).toMatchObject({ user: 'vigil', db: 'vigil' });
      expect(rows[0]!.similarity).toBeGreaterThan(0.5);
    } finally {
      await client.end();
    }
  });

  it('refuses a wrong password (scram-sha-256, no trust)', async () => {
    const client = new pg.Client({ connectionString: urlWithPassword(server.url, 'wrong') });
    await expect(client.connect()).rejects.toThrow(/password authentication failed/);
  });

  it('keeps its data across a restart on the same port', async () => {
    const admin = new pg.Client({ connectionString: server.adminUrl });
    await admin.connect();
    await admin.query('CREATE TABLE kept (n int)');
    await admin.query('INSERT INTO kept VALUES (42)');
    await admin.end();
    await server.restart();
    const again = new pg.Client({ connectionString: server.adminUrl });
    await again.connect();
    expect((await again.query('SELECT n FROM kept')).rows).toEqual([{ n: 42 }]);
    await again.end();
  });

  it('stop() shuts the server down and removes its folder', async () => {
    const other = await startPostgres({ password: 'chosen-password' });
    expect(other.password).toBe('chosen-password');
    expect(fs.existsSync(other.dir)).toBe(true);
    await other.stop();
    // Its own folder: other test files start and stop servers of their own at the same time.
    expect(fs.existsSync(other.dir)).toBe(false);
    const client = new pg.Client({
      connectionString: urlWithPassword(other.url, other.password),
      connectionTimeoutMillis: 2000,
    });
    await expect(client.connect()).rejects.toThrow();
  });
});
