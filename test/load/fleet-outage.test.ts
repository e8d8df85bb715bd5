/**
 * A 60-second PostgreSQL outage under a recording fleet (docs/fleet.md "Failure behaviour"):
 * three real `vigil agent` processes keep recording file activity while the fleet database is
 * stopped for a minute, and one of them is killed with SIGKILL and started again in the middle
 * of it. What a user sees meanwhile: `vigil fleet status` says unreachable with a growing
 * backlog, the audit API answers 500 ServerError, the agent API still answers (its status
 * Warning). After the database is back every member drains its backlog on its own, and the
 * fleet database holds every record of the members' local stores exactly once.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FleetStatusView } from '../../agent/fleet/fleet-service.js';
import { waitFor } from '../helpers/activity.js';
import { addClient, FORM_HEADERS } from '../helpers/agent-process.js';
import { addUsersOffline, PASSWORD } from '../helpers/audit-fixture.js';
import {
  fleetContents,
  fleetStatus,
  keepWriting,
  localRids,
  restartMember,
  settledFleet,
  startMembers,
  type FleetMember,
} from '../helpers/fleet-members.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';

const OUTAGE_MS = 60_000;

describe('a 60 s PostgreSQL outage while the fleet records', () => {
  let server: PostgresServer;
  let admin: pg.Pool;
  const members: FleetMember[] = [];

  beforeAll(async () => {
    server = await startPostgres();
    admin = new pg.Pool({ connectionString: server.adminUrl.replace(/\/postgres$/, '/vigil'), max: 2 });
    // The pool's idle connections die with the server; the next query reconnects.
    admin.on('error', () => undefined);
    members.push(
      ...(await startMembers(
        ['member-1', 'member-2', 'member-3'].map((name) => ({
          name,
          database: server.url,
          password: server.password,
          beforeStart: (dataDir: string) => addUsersOffline(dataDir, [{ name: 'auditor', roles: ['reader'] }]),
        })),
      )),
    );
  }, 240_000);

  afterAll(async () => {
    for (const member of members) await member.agent.kill();
    await admin?.end();
    await server?.stop();
  });

  // A miss here is a lost or doubled record, not timing noise; and a rerun costs minutes of CI.
  it(
    'keeps recording, says so, and drains every backlog exactly once after',
    { timeout: 480_000, retry: 0 },
    async () => {
      const [first, , restarted] = members as [FleetMember, FleetMember, FleetMember];
      const client = await addClient(first.agent, ['read']);
      const issued = await first.agent.api({
        method: 'POST',
        path: '/api/v1/token',
        headers: FORM_HEADERS,
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: client.clientId,
          client_secret: client.clientSecret,
        }).toString(),
      });
      const token = (JSON.parse(issued.text) as { access_token: string }).access_token;
      const writer = keepWriting(
        members.map((m) => m.watched),
        100,
      );
      let outageEndedAt: number;
      try {
        for (const member of members) {
          await waitFor(
            async () => (await fleetContents(admin)).perAgent.get(member.agentId) ?? 0,
            (n) => n > 0,
            60_000,
            `records of ${member.name} forwarded`,
          );
        }
        const localBefore = members.map((m) => localRids(m).length);

        await server.pause();
        const pausedAt = Date.now();
        try {
          const noticed: FleetStatusView[] = [];
          for (const member of members) {
            noticed.push(
              await waitFor(
                () => fleetStatus(member),
                (s) => s.state === 'unreachable',
                45_000,
                `${member.name} reporting unreachable`,
              ),
            );
          }
          await waitFor(
            () => Promise.all(members.map((m) => fleetStatus(m))),
            (now) => now.every((s, i) => s.state === 'unreachable' && s.backlog > noticed[i]!.backlog),
            20_000,
            'every backlog growing',
          );

          const audit = await first.agent.audit({
            path: 'activity_records/enum?format=json',
            auth: `auditor:${PASSWORD}`,
          });
          expect(audit.status, audit.text).toBe(500);
          const error = (JSON.parse(audit.text) as { ErrorList: Array<{ Category: string }> }).ErrorList[0]!;
          expect(error.Category).toBe('ServerError');
          const shown = await first.agent.api({
            path: `/api/v1/agents/${first.agentId}`,
            headers: { Authorization: `Bearer ${token}` },
          });
          expect(shown.status, shown.text).toBe(200);
          const status = (JSON.parse(shown.text) as { status: { type: string; details: string } }).status;
          expect(status.type).toBe('Warning');
          expect(status.details).toMatch(/^fleet database unreachable since \d{4}-.*Z, \d+ records waiting$/);

          // kill -9 in the middle of the outage, and a start while the database is still away.
          await restarted.agent.kill();
          await restartMember(restarted);
          expect((await fleetStatus(restarted)).state).toBe('unreachable');

          await new Promise((resolve) => setTimeout(resolve, Math.max(0, OUTAGE_MS - (Date.now() - pausedAt))));
          // Recording never stopped: every member committed records locally during the outage.
          const localAfter = members.map((m) => localRids(m).length);
          for (const [i, member] of members.entries()) {
            expect(localAfter[i], member.name).toBeGreaterThan(localBefore[i]! + 100);
          }
        } finally {
          await server.start();
          outageEndedAt = Date.now();
        }
        // The members keep recording while they come back.
        await new Promise((resolve) => setTimeout(resolve, 5_000));
      } finally {
        await writer.stop();
      }

      // Each member retries within its backoff (at most a minute after an outage this long).
      const { fleet, local } = await settledFleet(admin, members, 150_000);
      process.stderr.write(
        `fleet outage: ${fleet.count} records, every backlog drained ${Date.now() - outageEndedAt} ms after PostgreSQL came back\n`,
      );
      const union = [...local.values()].flat().sort();
      expect(new Set(union).size).toBe(union.length);
      expect(fleet.count).toBe(union.length);
      expect(fleet.rids).toEqual(union);
      for (const member of members) expect(fleet.perAgent.get(member.agentId)).toBe(local.get(member)!.length);
    },
  );
});
