/**
 * Directory monitoring where the directory keeps no readable accesslog (docs/directory.md): the
 * changes are found by comparing snapshots, `Who` is `unknown`, and a change made while the agent
 * is stopped is recorded once at its next start. A change reaches the audit API within two
 * polling intervals. A wrong password and a server that does not speak LDAP are the domain's
 * status in the agent API, with no crash and no secret in it.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuditFixture, type AuditFixture } from '../helpers/audit-fixture.js';
import { call } from '../helpers/resource-client.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { PEOPLE, READER_DN, SlapdServer, person, slapdMissing } from '../helpers/slapd-server.js';
import { addTestDomain, changesPolicyXml, detail, directoryRecords, nextPoll, waitFor } from '../helpers/directory.js';

const missing = slapdMissing();

describe.skipIf(missing !== null)('directory monitoring without an accesslog', () => {
  let slapd: SlapdServer;
  let agent: TestAgent;
  let dataDir: string;
  let domainId: string;
  const lastSeq = (): number => directoryRecords(agent.store.db).at(-1)?.seq ?? 0;
  const after = (seq: number) => directoryRecords(agent.store.db).filter((r) => r.seq > seq);

  beforeAll(async () => {
    slapd = await SlapdServer.create({ accesslog: false });
    await slapd.editor.add(`uid=existing,${PEOPLE}`, person('existing'));
    dataDir = makeTempDir();
    agent = await startTestAgent({ dataDir });
    domainId = await addTestDomain(agent, slapd);
    await agent.resources.policies.create(domainId, { xml: changesPolicyXml('Everything', '') }, 'test');
    await agent.activity.directory.ready();
  }, 30_000);

  afterAll(async () => {
    await agent?.stop();
    await slapd?.dispose();
  });

  it('takes a baseline, then records additions, modifications, renames and removals with Who unknown', async () => {
    await nextPoll(agent, domainId);
    expect(directoryRecords(agent.store.db)).toEqual([]);
    expect(agent.activity.domainStatus.get(domainId)?.details).toMatch(/comparing snapshots/);
    await slapd.editor.add(`uid=carol,${PEOPLE}`, person('carol'));
    await waitFor('the addition', () => after(0).length >= 1);
    await slapd.editor.replace(`uid=carol,${PEOPLE}`, { sn: ['Jones'] });
    await waitFor('the modification', () => after(0).length >= 2);
    await slapd.editor.rename(`uid=carol,${PEOPLE}`, `uid=caroline,${PEOPLE}`);
    await waitFor('the rename', () => after(0).length >= 3);
    await slapd.editor.remove(`uid=caroline,${PEOPLE}`);
    await waitFor('the removal', () => after(0).length >= 4);
    await nextPoll(agent, domainId);
    const records = after(0);
    expect(records.map((r) => [r.action, r.what, r.who, r.objectType])).toEqual([
      ['Added', `uid=carol,${PEOPLE}`, 'unknown', 'inetOrgPerson'],
      ['Modified', `uid=carol,${PEOPLE}`, 'unknown', 'inetOrgPerson'],
      ['Renamed', `uid=caroline,${PEOPLE}`, 'unknown', 'inetOrgPerson'],
      ['Removed', `uid=caroline,${PEOPLE}`, 'unknown', 'inetOrgPerson'],
    ]);
    expect(detail(records[1]!, 'sn')).toEqual({ PropertyName: 'sn', Before: 'CAROL', After: 'Jones' });
    expect(records.every((r) => r.item === 'Everything' && r.dataSource === 'LDAP Directory')).toBe(true);
  }, 30_000);

  it('records a change made while the agent was stopped once, at its next start', async () => {
    const since = lastSeq();
    await agent.stop();
    await slapd.editor.add(`uid=dave,${PEOPLE}`, person('dave'));
    agent = await startTestAgent({ dataDir });
    await agent.activity.directory.ready();
    await nextPoll(agent, domainId);
    expect(after(since).map((r) => `${r.action} ${r.what}`)).toEqual([`Added uid=dave,${PEOPLE}`]);
  }, 30_000);
});

describe.skipIf(missing !== null)('a change reaches the audit API within two polling intervals', () => {
  let slapd: SlapdServer;
  let fx: AuditFixture;

  beforeAll(async () => {
    slapd = await SlapdServer.create();
    fx = await startAuditFixture();
    const domainId = await addTestDomain(fx.agent, slapd);
    await fx.agent.resources.policies.create(
      domainId,
      { xml: changesPolicyXml('People', `<Context>${PEOPLE}</Context>`) },
      'test',
    );
    await fx.agent.activity.directory.ready();
  }, 30_000);

  afterAll(async () => {
    await fx?.stop();
    await slapd?.dispose();
  });

  it('is found by a search for its DN less than 2 s (interval 1 s) after the change', async () => {
    const what = `uid=erin,${PEOPLE}`;
    await slapd.editor.add(what, person('erin'));
    const changedAt = Date.now();
    let found: Array<Record<string, unknown>> = [];
    while (found.length === 0 && Date.now() - changedAt < 2_000) {
      const res = await fx.reader.postJson('activity_records/search', { FilterList: { What: { Equals: what } } });
      expect(res.status).toBe(200);
      found = (JSON.parse(res.body) as { ActivityRecordList: Array<Record<string, unknown>> }).ActivityRecordList;
      if (found.length === 0) await new Promise((r) => setTimeout(r, 50));
    }
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ Action: 'Added', DataSource: 'LDAP Directory', Item: { Name: 'People' } });
  });
});

describe.skipIf(missing !== null)('domain status when the directory cannot be read', () => {
  let slapd: SlapdServer;
  let agent: TestAgent;
  let notLdap: net.Server;
  const accepted: net.Socket[] = [];

  beforeAll(async () => {
    slapd = await SlapdServer.create();
    agent = await startTestAgent({ activity: { directoryTimeoutMs: 1000 } });
    notLdap = net.createServer((socket) => {
      accepted.push(socket);
      socket.on('error', () => undefined);
      socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    });
    await new Promise<void>((resolve) => notLdap.listen(0, '127.0.0.1', resolve));
  }, 30_000);

  afterAll(async () => {
    await agent?.stop();
    await slapd?.dispose();
    for (const socket of accepted) socket.destroy();
    await new Promise((resolve) => notLdap?.close(resolve));
  });

  async function statusOf(id: string): Promise<Record<string, string>> {
    const res = await call(agent, ['read'], 'GET', `/api/v1/domains/${id}`);
    expect(res.status, res.text).toBe(200);
    return res.json!['status'] as Record<string, string>;
  }

  it('says the bind was refused when the password is wrong, and never shows the password', async () => {
    const id = await addTestDomain(agent, slapd, { name: 'wrong.test', password: 'not-the-password' });
    await agent.resources.policies.create(id, { xml: changesPolicyXml('All', '') }, 'test');
    await agent.activity.directory.ready();
    const status = await waitFor(
      'an Error status',
      () => agent.activity.domainStatus.get(id)?.type === 'Error' && agent.activity.domainStatus.get(id),
    );
    expect(status.summary).toBe('The directory refused the bind');
    expect(status.details).toContain(READER_DN);
    const shown = await statusOf(id);
    expect(shown['type']).toBe('Error');
    expect(JSON.stringify(shown)).not.toContain('not-the-password');
  });

  it('says a server does not answer as LDAP, and keeps running', async () => {
    const port = (notLdap.address() as net.AddressInfo).port;
    const domain = await agent.resources.domains.add(
      {
        name: 'http.test',
        ldapServer: `ldap://127.0.0.1:${port}`,
        userName: READER_DN,
        password: 'x',
        pollingIntervalSeconds: 1,
        tls: 'none',
      },
      'test',
    );
    await agent.resources.policies.create(domain.id, { xml: changesPolicyXml('All', '') }, 'test');
    await agent.activity.directory.ready();
    const status = await waitFor('a failure status', () => {
      const s = agent.activity.domainStatus.get(domain.id);
      return s && s.type !== 'OK' ? s : null;
    });
    expect(status.summary).toMatch(/cannot be reached|does not answer as an LDAP server/);
    expect((await statusOf(domain.id))['type']).toBe(status.type);
  });
});
