/**
 * The audit API of fleet members (docs/audit-api.md "Fleet"), two agents on one real PostgreSQL:
 * each member serves every member's records, a mark issued by one continues on the other, a
 * write through one is found at once through the other; with PostgreSQL stopped every audit
 * request is a 500 ServerError and nothing is written while the agent API keeps answering, and
 * with PostgreSQL back the audit API works again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewActivityRecord } from '../../shared/activity-record.js';
import { apiRequest, bearer, enrolClient, obtainTokens } from '../helpers/api-client.js';
import { AuditClient } from '../helpers/audit-client.js';
import { addUsersOffline, PASSWORD } from '../helpers/audit-fixture.js';
import { FAST_FLEET, freshFleetDatabase, joinOffline } from '../helpers/fleet-audit-backend.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';

interface JsonPage {
  ActivityRecordList: Array<{ RID: string; Who: string; What: string }>;
  ContinuationMark?: string;
}

const records = (n: number, who: string): NewActivityRecord[] =>
  Array.from({ length: n }, (_, i) => ({
    Who: who,
    Action: 'Modified',
    What: `/srv/${who}/${i}.txt`,
    When: '2026-11-20T10:00:00Z',
    Where: 'fleet',
    ObjectType: 'File',
    DataSource: 'File System',
  }));

let server: PostgresServer;
const agents: TestAgent[] = [];
const clients: AuditClient[] = [];
let a: TestAgent;
let b: TestAgent;
let onA: AuditClient;
let onB: AuditClient;

async function member(database: string): Promise<TestAgent> {
  const dataDir = makeTempDir();
  fs.writeFileSync(path.join(dataDir, 'settings.json'), '{}\n');
  await addUsersOffline(dataDir, [{ name: 'auditor', roles: ['reader', 'contributor'] }]);
  joinOffline(dataDir, database, server.password);
  const agent = await startTestAgent({ dataDir, fleet: FAST_FLEET });
  agents.push(agent);
  return agent;
}

function client(agent: TestAgent): AuditClient {
  const made = new AuditClient(agent, `auditor:${PASSWORD}`);
  clients.push(made);
  return made;
}

/** Stores records on `agent` as its pipeline does and waits until the fleet database has them. */
async function record(agent: TestAgent, list: NewActivityRecord[]): Promise<string[]> {
  const stored = list.length > 0 ? agent.audit.store.insertBatch(list) : [];
  const newest = agent.audit.store.db.prepare('SELECT max(seq) FROM activity_records').pluck().get() as number;
  // A member that saw the database go away is unreachable until its next attempt: wait for that too.
  for (const deadline = Date.now() + 30_000; ;) {
    try {
      await agent.fleet.current()!.waitForwarded(newest, 30_000);
      break;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  return stored.map((r) => r.RID);
}

async function enumJson(on: AuditClient, count: number, mark?: string): Promise<JsonPage> {
  const res = mark
    ? await on.postJson(`activity_records/enum?count=${count}`, mark)
    : await on.request({ path: `activity_records/enum?format=json&count=${count}` });
  expect(res.status, res.body).toBe(200);
  return JSON.parse(res.body) as JsonPage;
}

const searchWho = (on: AuditClient, who: string): Promise<{ status: number; body: string }> =>
  on.postJson('activity_records/search', { FilterList: { Who: who } });

function expectServerError(res: { status: number; body: string }): void {
  expect(res.status, res.body).toBe(500);
  const error = (JSON.parse(res.body) as { ErrorList: Array<{ Category: string; Description: string }> }).ErrorList[0]!;
  expect(error.Category).toBe('ServerError');
  expect(error.Description).toMatch(/^0x[0-9A-F]{8} /);
}

beforeAll(async () => {
  server = await startPostgres();
  const database = await freshFleetDatabase(server);
  [a, b] = [await member(database), await member(database)];
  [onA, onB] = [client(a), client(b)];
}, 120_000);

afterAll(async () => {
  for (const c of clients) c.close();
  for (const agent of agents) await agent.stop();
  await server?.stop();
}, 60_000);

describe('two members, one fleet database', () => {
  let fromA: string[];
  let fromB: string[];

  it('each member enumerates every member’s records; a mark from one continues on the other', async () => {
    fromA = await record(a, records(30, 'HOST\\anna'));
    fromB = await record(b, records(20, 'HOST\\bert'));
    const first = await enumJson(onA, 25);
    expect(first.ActivityRecordList).toHaveLength(25);
    const rest = await enumJson(onB, 100, first.ContinuationMark);
    const seen = [...first.ActivityRecordList, ...rest.ActivityRecordList].map((r) => r.RID);
    expect(seen).toHaveLength(50);
    expect(new Set(seen)).toEqual(new Set([...fromA, ...fromB]));
    // And back: B's last mark, on A, holds nothing new.
    expect((await enumJson(onA, 100, rest.ContinuationMark)).ActivityRecordList).toEqual([]);
  });

  it('a search mark issued by one member pages on the other, in XML too', async () => {
    const first = await onB.postXml(
      'activity_records/search?count=7',
      `<ActivityRecordSearch xmlns="http://schemas.vigil.dev/api/v1/activity_records/">
         <FilterList><Who>anna</Who></FilterList></ActivityRecordSearch>`,
    );
    expect(first.status, first.body).toBe(200);
    const mark = /<ContinuationMark>([^<]+)<\/ContinuationMark>/.exec(first.body)![1]!;
    const rids = [...first.body.matchAll(/<RID>([^<]+)<\/RID>/g)].map((m) => m[1]!);
    const rest = await onA.postJson('activity_records/search?count=100', { ContinuationMark: mark });
    expect(rest.status, rest.body).toBe(200);
    rids.push(...(JSON.parse(rest.body) as JsonPage).ActivityRecordList.map((r) => r.RID));
    expect(rids).toEqual(fromA);
  });

  it('a write through one member is found at once through the other', async () => {
    const write = await onB.postJson('activity_records/', records(3, 'HOST\\carla'));
    expect(write.status, write.body).toBe(200);
    const found = await searchWho(onA, 'carla');
    expect(found.status, found.body).toBe(200);
    expect((JSON.parse(found.body) as JsonPage).ActivityRecordList.map((r) => r.What)).toEqual(
      records(3, 'HOST\\carla').map((r) => r.What),
    );
  });
});

describe('PostgreSQL stopped, then back', () => {
  it('search, enum and write answer 500 ServerError, nothing is written; the agent API answers', async () => {
    const tokens = await obtainTokens(a, await enrolClient(a, ['read']));
    const mark = (await enumJson(onA, 5)).ContinuationMark!;
    const before = a.audit.store.count();
    await server.pause();
    try {
      expectServerError(await searchWho(onA, 'anna'));
      expectServerError(await onA.request({ path: 'activity_records/enum?format=json' }));
      expectServerError(await onA.postJson('activity_records/enum', mark));
      expectServerError(await onA.postJson('activity_records/', records(2, 'HOST\\lost')));
      const xml = await onA.request({ path: 'activity_records/enum' });
      expect(xml.status).toBe(500);
      expect(xml.body).toContain('<Category>ServerError</Category>');
      expect(a.audit.store.count()).toBe(before);
      const agentApi = await apiRequest(a, { path: '/api/v1/agents', headers: bearer(tokens.access_token) });
      expect(agentApi.status, agentApi.text).toBe(200);
    } finally {
      await server.start();
    }
  });

  it('works again once PostgreSQL is back', async () => {
    // The member notices the database is back within its reconnect pacing.
    let write = await onA.postJson('activity_records/', records(1, 'HOST\\back'));
    for (const deadline = Date.now() + 20_000; write.status !== 200 && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      write = await onA.postJson('activity_records/', records(1, 'HOST\\back'));
    }
    expect(write.status, write.body).toBe(200);
    expect((JSON.parse((await searchWho(onB, 'back')).body) as JsonPage).ActivityRecordList).toHaveLength(1);
    // Enumeration on either member is the exact union of both agents' own stores.
    const local = (agent: TestAgent): string[] =>
      agent.audit.store.db.prepare('SELECT rid FROM activity_records').pluck().all() as string[];
    for (const agent of [a, b]) await record(agent, []);
    const all = [...local(a), ...local(b)];
    const seen = (await enumJson(onB, 10_000)).ActivityRecordList.map((r) => r.RID);
    expect(seen).toHaveLength(all.length);
    expect(new Set(seen)).toEqual(new Set(all));
  });
});
