/**
 * A fleet member cut off by the network (docs/fleet.md "Failure behaviour"): three real
 * `vigil agent` processes on one PostgreSQL, one of them inside its own network namespace,
 * reaching the database over a veth pair. While every member keeps recording file activity, the
 * link is taken down: no connection is told, packets just stop. The cut-off member must notice
 * (`vigil fleet status` answers promptly, says unreachable, its backlog grows) while the others
 * keep forwarding; once the link is back it must catch up on its own, and the fleet database
 * then holds every record of every local store exactly once.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/activity.js';
import {
  fleetContents,
  fleetStatus,
  keepWriting,
  settledFleet,
  startMembers,
  type FleetMember,
} from '../helpers/fleet-members.js';
import { createNetworkNamespace, netnsUnavailable, type NetworkNamespace } from '../helpers/netns.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';

const unavailable = netnsUnavailable();

describe.skipIf(unavailable !== null)(
  `a member cut off by the network${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  () => {
    let ns: NetworkNamespace;
    let server: PostgresServer;
    let admin: pg.Pool;
    const members: FleetMember[] = [];

    beforeAll(async () => {
      ns = createNetworkNamespace('part');
      server = await startPostgres({ listenAddresses: [ns.hostAddress], allowNetworks: [ns.subnet] });
      admin = new pg.Pool({ connectionString: server.adminUrl.replace(/\/postgres$/, '/vigil'), max: 2 });
      admin.on('error', () => undefined);
      const overVeth = server.url.replace('127.0.0.1', ns.hostAddress);
      members.push(
        ...(await startMembers([
          { name: 'near-1', database: server.url, password: server.password },
          { name: 'near-2', database: server.url, password: server.password },
          { name: 'far', database: overVeth, password: server.password, prefix: ns.exec([]) },
        ])),
      );
    }, 240_000);

    afterAll(async () => {
      for (const member of members) await member.agent.kill();
      ns?.remove();
      await admin?.end();
      await server?.stop();
    });

    it('notices the cut, lets the others forward, and catches up exactly once after it', async () => {
      const [near1, near2, far] = members as [FleetMember, FleetMember, FleetMember];
      const perAgent = async (member: FleetMember): Promise<number> =>
        (await fleetContents(admin)).perAgent.get(member.agentId) ?? 0;
      const writer = keepWriting(
        members.map((m) => m.watched),
        100,
      );
      try {
        for (const member of members) {
          await waitFor(
            () => perAgent(member),
            (n) => n > 0,
            60_000,
            `records of ${member.name} forwarded`,
          );
        }

        ns.cut();
        const cutAt = Date.now();
        const nearBefore = await Promise.all([perAgent(near1), perAgent(near2)]);
        const farBefore = await perAgent(far);
        // The status command must answer while the member is cut off, and say so.
        const noticed = await waitFor(
          () => fleetStatus(far),
          (s) => s.state === 'unreachable',
          45_000,
          'the cut-off member reporting unreachable',
        );
        const noticedAfterMs = Date.now() - cutAt;
        const later = await waitFor(
          () => fleetStatus(far),
          (s) => s.backlog > noticed.backlog,
          40_000,
          'the backlog growing',
        );
        expect(later.state).toBe('unreachable');
        // The others were never cut off: they kept forwarding all along.
        await waitFor(
          () => Promise.all([perAgent(near1), perAgent(near2)]),
          ([n1, n2]) => n1! > nearBefore[0]! && n2! > nearBefore[1]!,
          40_000,
          'the other members forwarding during the cut',
        );
        for (const near of [near1, near2]) expect((await fleetStatus(near)).state).toBe('connected');
        expect(await perAgent(far)).toBeLessThanOrEqual(farBefore + 500);
        process.stderr.write(`fleet partition: the cut-off member said unreachable after ${noticedAfterMs} ms\n`);

        ns.reconnect();
        const reconnectedAt = Date.now();
        await waitFor(
          () => fleetStatus(far),
          (s) => s.state === 'connected' && s.backlog < later.backlog,
          120_000,
          'the member forwarding again after the link came back',
        );
        process.stderr.write(
          `fleet partition: forwarding again ${Date.now() - reconnectedAt} ms after the link came back\n`,
        );
      } finally {
        ns.reconnect();
        await writer.stop();
      }

      const { fleet, local } = await settledFleet(admin, members, 120_000);
      const union = [...local.values()].flat().sort();
      expect(new Set(union).size).toBe(union.length);
      expect(fleet.count).toBe(union.length);
      expect(fleet.rids).toEqual(union);
      for (const member of members) expect(fleet.perAgent.get(member.agentId)).toBe(local.get(member)!.length);
    }, 420_000);
  },
);
