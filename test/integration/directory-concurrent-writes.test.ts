/**
 * Many writes at once, with polls running while they are in flight, each recorded exactly once:
 * - with the accesslog, where concurrent writes reach the log out of `reqStart` order (an
 *   operation is stamped when it starts and logged when it ends; agent/directory/accesslog-cursor.ts);
 * - by the snapshot comparison, which lists versions and reads only the changed objects, in
 *   batches (agent/directory/snapshot-changes.ts).
 */
import { Attribute, Change, Client } from 'ldapts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { EDITOR_DN, EDITOR_PASSWORD, PEOPLE, SlapdServer, bulkPerson, slapdMissing } from '../helpers/slapd-server.js';
import { addTestDomain, changesPolicyXml, directoryRecords, nextPoll, waitFor } from '../helpers/directory.js';

const missing = slapdMissing();
const PEOPLE_COUNT = 600;

describe.skipIf(missing !== null).each([
  { accesslog: true, who: EDITOR_DN },
  { accesslog: false, who: 'unknown' },
])('directory monitoring under concurrent writes (accesslog: $accesslog)', ({ accesslog, who }) => {
  let slapd: SlapdServer;
  let agent: TestAgent;
  let domainId: string;

  beforeAll(async () => {
    slapd = await SlapdServer.create({ accesslog, bulkPeople: PEOPLE_COUNT });
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

  it('records each of 600 modifies, deletions and renames sent at once exactly once, polls running meanwhile', async () => {
    const client = new Client({ url: slapd.url, timeout: 60_000 });
    await client.bind(EDITOR_DN, EDITOR_PASSWORD);
    const expected: Array<{ what: string; action: string }> = [];
    const operations: Array<Promise<void>> = [];
    for (let i = 0; i < PEOPLE_COUNT; i++) {
      const { dn } = bulkPerson(i);
      if (i % 6 === 0) {
        operations.push(client.del(dn));
        expected.push({ what: dn, action: 'Removed' });
      } else if (i % 6 === 1) {
        const newDn = `uid=renamed-${i},${PEOPLE}`;
        operations.push(client.modifyDN(dn, newDn));
        expected.push({ what: newDn, action: 'Renamed' });
      } else {
        const title = new Attribute({ type: 'title', values: [`Lead ${i}`] });
        operations.push(client.modify(dn, new Change({ operation: 'replace', modification: title })));
        expected.push({ what: dn, action: 'Modified' });
      }
    }
    let done = false;
    const writes = Promise.all(operations).finally(() => (done = true));
    // Poll again and again while the writes are in flight, so polls see them partly done.
    while (!done) await nextPoll(agent, domainId);
    await writes;
    await client.unbind();
    await waitFor(`${PEOPLE_COUNT} records`, () => directoryRecords(agent.store.db).length >= PEOPLE_COUNT, 30_000);
    await nextPoll(agent, domainId);
    const records = directoryRecords(agent.store.db);
    const byWhat = (a: { what: string }, b: { what: string }): number => (a.what < b.what ? -1 : 1);
    expect(records.map((r) => ({ what: r.what, action: r.action })).sort(byWhat)).toEqual(expected.sort(byWhat));
    expect(records.every((r) => r.who === who)).toBe(true);
  }, 120_000);
});
