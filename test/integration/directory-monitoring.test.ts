/**
 * Directory monitoring against a real slapd with the accesslog overlay (docs/directory.md): the
 * editor account adds, modifies, renames, moves and deletes entries; each change selected by a
 * Changes policy becomes one record naming the editor, with one detail per changed attribute,
 * excluded attributes never shown and passwords as `(changed)`. The first poll is a baseline; a
 * change made while the agent is stopped is recorded once at its next start; a stopped slapd is
 * the domain's status and polling recovers by itself without recording anything twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/temp-dir.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { EDITOR_DN, GROUPS, PEOPLE, SUFFIX, SlapdServer, person, slapdMissing } from '../helpers/slapd-server.js';
import {
  addTestDomain,
  changesPolicyXml,
  detail,
  directoryRecords,
  nextPoll,
  waitFor,
  type DirectoryRecord,
} from '../helpers/directory.js';

const missing = slapdMissing();
const POLICY = 'People changes';

describe.skipIf(missing !== null)('directory monitoring with the accesslog', () => {
  let slapd: SlapdServer;
  let agent: TestAgent;
  let dataDir: string;
  let domainId: string;

  /** Records after `seq`, waiting until `count` of them are there (and one more poll for strays). */
  async function recordsAfter(seq: number, count: number): Promise<DirectoryRecord[]> {
    await waitFor(
      `${count} directory records`,
      () => directoryRecords(agent.store.db).filter((r) => r.seq > seq).length >= count,
    );
    await nextPoll(agent, domainId);
    return directoryRecords(agent.store.db).filter((r) => r.seq > seq);
  }
  const lastSeq = (): number => directoryRecords(agent.store.db).at(-1)?.seq ?? 0;

  beforeAll(async () => {
    slapd = await SlapdServer.create();
    await slapd.editor.add(`uid=existing,${PEOPLE}`, person('existing'));
    dataDir = makeTempDir();
    agent = await startTestAgent({ dataDir });
    domainId = await addTestDomain(agent, slapd);
    await agent.resources.policies.create(
      domainId,
      { xml: changesPolicyXml(POLICY, `<Context>${PEOPLE}</Context><ExcludeAttribute>description</ExcludeAttribute>`) },
      'test',
    );
    await agent.resources.policies.create(
      domainId,
      { xml: changesPolicyXml('Disabled groups', `<Context>${GROUPS}</Context>`, false) },
      'test',
    );
    await agent.activity.directory.ready();
  }, 30_000);

  afterAll(async () => {
    await agent?.stop();
    await slapd?.dispose();
  });

  it('takes a baseline on the first poll: nothing is recorded for entries already there', async () => {
    await nextPoll(agent, domainId);
    expect(directoryRecords(agent.store.db)).toEqual([]);
    const status = agent.activity.domainStatus.get(domainId);
    expect(status?.type, JSON.stringify(status)).toBe('OK');
    expect(status?.details).toMatch(/accesslog/);
  });

  it('records an addition by the editor with its attributes, the password as (changed)', async () => {
    const since = lastSeq();
    await slapd.editor.add(`uid=alice,${PEOPLE}`, { ...person('alice', 'first-password'), description: 'hidden' });
    const [added, ...more] = await recordsAfter(since, 1);
    expect(more).toEqual([]);
    expect(added).toMatchObject({
      action: 'Added',
      what: `uid=alice,${PEOPLE}`,
      who: EDITOR_DN,
      objectType: 'inetOrgPerson',
      dataSource: 'LDAP Directory',
      where: '127.0.0.1',
      plan: 'example.test',
      planId: domainId,
      item: POLICY,
    });
    expect(detail(added!, 'sn')).toEqual({ PropertyName: 'sn', After: 'ALICE' });
    expect(detail(added!, 'objectClass')?.After).toBe('top; person; organizationalPerson; inetOrgPerson');
    expect(detail(added!, 'userPassword')).toEqual({ PropertyName: 'userPassword', After: '(changed)' });
    expect(detail(added!, 'description')).toBeUndefined();
    expect(JSON.stringify(added)).not.toContain('first-password');
  });

  it('records a modification with Before and After; a change of excluded attributes alone gives no record', async () => {
    const since = lastSeq();
    await slapd.editor.replace(`uid=alice,${PEOPLE}`, { description: ['still hidden'] });
    await slapd.editor.replace(`uid=alice,${PEOPLE}`, {
      sn: ['Smith'],
      title: ['Engineer', 'Lead'],
      description: ['x'],
    });
    await slapd.editor.replace(`uid=alice,${PEOPLE}`, { userPassword: ['second-password'] });
    const records = await recordsAfter(since, 2);
    expect(records.map((r) => r.action)).toEqual(['Modified', 'Modified']);
    const [modified, password] = records;
    expect(modified!.who).toBe(EDITOR_DN);
    expect(modified!.objectType).toBe('inetOrgPerson');
    expect(modified!.details).toEqual([
      { PropertyName: 'sn', Before: 'ALICE', After: 'Smith' },
      { PropertyName: 'title', After: 'Engineer; Lead' },
    ]);
    expect(password!.details).toEqual([{ PropertyName: 'userPassword', Before: '(changed)', After: '(changed)' }]);
    expect(JSON.stringify(records)).not.toMatch(/password"|first-password|second-password/);
  });

  it('records a rename and a move with the new DN as What', async () => {
    await slapd.as(...adminCredentials(), (c) =>
      c.add(`ou=staff,${PEOPLE}`, { objectClass: 'organizationalUnit', ou: 'staff' }),
    );
    const since = lastSeq();
    await slapd.editor.rename(`uid=alice,${PEOPLE}`, `uid=alicia,${PEOPLE}`);
    await slapd.editor.rename(`uid=alicia,${PEOPLE}`, `uid=alicia,ou=staff,${PEOPLE}`);
    const records = (await recordsAfter(since, 3)).filter((r) => r.what.startsWith('uid=alicia'));
    expect(records.map((r) => [r.action, r.what, r.who])).toEqual([
      ['Renamed', `uid=alicia,${PEOPLE}`, EDITOR_DN],
      ['Moved', `uid=alicia,ou=staff,${PEOPLE}`, EDITOR_DN],
    ]);
    expect(detail(records[0]!, 'DN')).toEqual({
      PropertyName: 'DN',
      Before: `uid=alice,${PEOPLE}`,
      After: `uid=alicia,${PEOPLE}`,
    });
    expect(records.every((r) => r.objectType === 'inetOrgPerson')).toBe(true);
  });

  it('records a deletion with the values the entry had', async () => {
    const since = lastSeq();
    await slapd.editor.remove(`uid=alicia,ou=staff,${PEOPLE}`);
    const [removed, ...more] = await recordsAfter(since, 1);
    expect(more).toEqual([]);
    expect(removed).toMatchObject({
      action: 'Removed',
      what: `uid=alicia,ou=staff,${PEOPLE}`,
      who: EDITOR_DN,
      objectType: 'inetOrgPerson',
    });
    expect(detail(removed!, 'sn')).toEqual({ PropertyName: 'sn', Before: 'Smith' });
  });

  it('records nothing outside the policy’s context, nor for a disabled policy', async () => {
    const since = lastSeq();
    await slapd.editor.add(`cn=staff,${GROUPS}`, { objectClass: 'groupOfNames', cn: 'staff', member: EDITOR_DN });
    await slapd.editor.add(`uid=bob,${PEOPLE}`, person('bob'));
    const records = await recordsAfter(since, 1);
    expect(records.map((r) => `${r.action} ${r.what}`)).toEqual([`Added uid=bob,${PEOPLE}`]);
  });

  it('records a change made while the agent was stopped once, at its next start', async () => {
    const since = lastSeq();
    await agent.stop();
    await slapd.editor.replace(`uid=bob,${PEOPLE}`, { title: ['While away'] });
    agent = await startTestAgent({ dataDir });
    await agent.activity.directory.ready();
    const records = await recordsAfter(since, 1);
    expect(records.map((r) => [r.action, r.what, detail(r, 'title')?.After])).toEqual([
      ['Modified', `uid=bob,${PEOPLE}`, 'While away'],
    ]);
    await nextPoll(agent, domainId);
    expect(directoryRecords(agent.store.db).filter((r) => r.seq > since)).toHaveLength(1);
  }, 30_000);

  it('shows a stopped server in the domain status, recovers by itself, and records nothing twice', async () => {
    await slapd.stop();
    const down = await waitFor('a Warning status', () => {
      const status = agent.activity.domainStatus.get(domainId);
      return status?.type === 'Warning' ? status : null;
    });
    expect(down.summary).toMatch(/cannot be reached/);
    expect(down.details).toMatch(/127\.0\.0\.1/);
    const since = lastSeq();
    await slapd.start();
    await slapd.editor.replace(`uid=bob,${PEOPLE}`, { title: ['Back'] });
    await waitFor('an OK status', () => agent.activity.domainStatus.get(domainId)?.type === 'OK');
    const records = await recordsAfter(since, 1);
    expect(records.map((r) => [r.action, detail(r, 'title')?.After])).toEqual([['Modified', 'Back']]);
    const all = directoryRecords(agent.store.db);
    const keys = all.map((r) => JSON.stringify([r.action, r.what, r.details]));
    expect(new Set(keys).size).toBe(keys.length);
  }, 30_000);
});

function adminCredentials(): [string, string] {
  return [`cn=admin,${SUFFIX}`, 'admin-secret'];
}
