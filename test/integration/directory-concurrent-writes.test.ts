/**
 * Concurrent writes reach slapd's accesslog out of `reqStart` order (an operation is stamped when
 * it starts and logged when it ends): polls running while 600 modifies are in flight on one
 * connection must still record every one of them exactly once (agent/directory/accesslog-cursor.ts).
 */
import { Attribute, Change, Client } from 'ldapts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { EDITOR_DN, EDITOR_PASSWORD, PEOPLE, SlapdServer, bulkPerson, slapdMissing } from '../helpers/slapd-server.js';
import { addTestDomain, changesPolicyXml, directoryRecords, nextPoll, waitFor } from '../helpers/directory.js';

const missing = slapdMissing();
const WRITES = 600;

describe.skipIf(missing !== null)('directory monitoring under concurrent writes', () => {
  let slapd: SlapdServer;
  let agent: TestAgent;
  let domainId: string;

  beforeAll(async () => {
    slapd = await SlapdServer.create({ bulkPeople: WRITES });
    agent = await startTestAgent();
    domainId = await addTestDomain(agent, slapd);
    await agent.resources.policies.create(
      domainId,
      { xml: changesPolicyXml('People', `<Context>${PEOPLE}</Context>`) },
      'test',
    );
    await agent.activity.directory.ready();
    await nextPoll(agent, domainId); // the baseline
  }, 60_000);

  afterAll(async () => {
    await agent?.stop();
    await slapd?.dispose();
  });

  it('records each of 600 modifies sent at once exactly once, with polls running meanwhile', async () => {
    const client = new Client({ url: slapd.url, timeout: 60_000 });
    await client.bind(EDITOR_DN, EDITOR_PASSWORD);
    let done = false;
    const writes = Promise.all(
      Array.from({ length: WRITES }, (_, i) =>
        client.modify(
          bulkPerson(i).dn,
          new Change({ operation: 'replace', modification: new Attribute({ type: 'title', values: [`Lead ${i}`] }) }),
        ),
      ),
    ).finally(() => (done = true));
    // Poll again and again while the writes are in flight, so some poll sees a later write logged first.
    while (!done) await nextPoll(agent, domainId);
    await writes;
    await client.unbind();
    await waitFor(`${WRITES} records`, () => directoryRecords(agent.store.db).length >= WRITES, 30_000);
    await nextPoll(agent, domainId);
    const records = directoryRecords(agent.store.db);
    const dns = records.map((r) => r.what);
    expect(new Set(dns).size).toBe(records.length);
    expect(dns.sort()).toEqual(Array.from({ length: WRITES }, (_, i) => bulkPerson(i).dn).sort());
    expect(records.every((r) => r.action === 'Modified' && r.who === EDITOR_DN)).toBe(true);
  }, 120_000);
});
