/**
 * A fleet database that answers but refuses this agent is `refused`, not `unreachable`
 * (docs/fleet.md "Failure behaviour"): the console, `vigil fleet status` and the agent's status
 * say why, so the operator looks at the database instead of the network. Against a real
 * PostgreSQL: a database not in UTF-8, and a wrong password; then a stopped server, which is
 * `unreachable`.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';

const FAST = { pollMs: 50, heartbeatMs: 500, pacing: { firstDelayMs: 50, maxDelayMs: 300 } };

describe('a fleet database that refuses this agent', () => {
  let server: PostgresServer;
  const agents: TestAgent[] = [];

  beforeAll(async () => {
    server = await startPostgres();
    const admin = new pg.Client({ connectionString: server.adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE vigil_latin1 OWNER vigil ENCODING 'LATIN1' TEMPLATE template0`);
    await admin.end();
  }, 120_000);
  afterAll(async () => {
    for (const a of agents) await a.stop();
    await server?.stop();
  });

  async function joined(database: string, password: string): Promise<TestAgent> {
    const agent = await startTestAgent({ fleet: FAST });
    agents.push(agent);
    await agent.fleet.join(database, password);
    return agent;
  }

  it('a database not in UTF-8: refused, naming its encoding', async () => {
    const agent = await joined(server.url.replace(/\/vigil$/, '/vigil_latin1'), server.password);
    const status = await agent.fleet.status();
    expect(status).toMatchObject({ state: 'refused', members: [] });
    expect(status.problem).toMatch(/encoding is LATIN1; Vigil needs a UTF8 database/);
    expect(agent.fleet.problem()).toMatch(
      /^fleet database refuses this agent since .*encoding is LATIN1.*records waiting$/,
    );
  }, 60_000);

  it('a wrong password: refused, with the server’s reason', async () => {
    const agent = await joined(server.url, 'not-the-password');
    const status = await agent.fleet.status();
    expect(status.state).toBe('refused');
    expect(status.problem).toMatch(/password authentication failed/);
  }, 60_000);

  it('a server that is not running: unreachable, even with nothing to forward; then connected once it is back', async () => {
    const agent = await joined(server.url, server.password);
    expect((await agent.fleet.status()).state).toBe('connected');
    await server.pause();
    // Nothing to forward: the heartbeat (every 500 ms here) finds the database gone.
    await expect.poll(async () => (await agent.fleet.status()).state, { timeout: 20_000 }).toBe('unreachable');
    const down = await agent.fleet.status();
    expect(down.problem).not.toBeNull();
    expect(agent.fleet.problem()).toMatch(/^fleet database unreachable since /);
    await server.start();
    await expect.poll(async () => (await agent.fleet.status()).state, { timeout: 30_000 }).toBe('connected');
    expect((await agent.fleet.status()).problem).toBeNull();
  }, 90_000);
});
