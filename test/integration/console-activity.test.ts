/**
 * Activity in the console: search the audit store with the audit API's filters,
 * newest first and paged, and the live feed of committed records over Server-Sent Events.
 * The same FilterList must select the same records as the audit API's own search.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import type { ActivityRecord, NewActivityRecord } from '../../shared/activity-record.js';
import type { ActivitySearchResponse } from '../../shared/console-api.js';
import { consoleRequest, withToken } from '../helpers/console-client.js';
import { SseReader } from '../helpers/sse-client.js';
import { startTestAgent } from '../helpers/test-agent.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { monitorFolders, TEST_TIMINGS } from '../helpers/activity.js';
import { AuditClient } from '../helpers/audit-client.js';

let agent: TestAgent;
let audit: AuditClient;
const XSS = '<img src=x onerror=alert(1)>';

function seed(): NewActivityRecord[] {
  const out: NewActivityRecord[] = [];
  const people = ['CORP\\alice', 'CORP\\bob', 'CORP\\carol'];
  const actions = ['Added', 'Modified', 'Removed', 'Renamed'];
  for (let i = 0; i < 120; i++) {
    out.push({
      Who: people[i % 3]!,
      Action: actions[i % 4]!,
      What: i % 10 === 0 ? `/srv/share/${XSS}-${i}.txt` : `/srv/${i % 2 ? 'share' : 'home'}/doc-${i}.txt`,
      When: new Date(Date.UTC(2026, 0, 1 + (i % 20), 9, i % 60)).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      Where: 'ws1',
      ObjectType: 'File',
      DataSource: i % 7 === 0 ? 'Vigil API' : 'File System',
    });
  }
  return out;
}

beforeAll(async () => {
  agent = await startTestAgent({ activity: TEST_TIMINGS, auditStepMs: 0 });
  agent.store.insertBatch(seed());
  await agent.audit.users.add({ name: 'reader', roles: ['reader'], password: 'reader password' });
  await agent.audit.users.add({ name: 'writer', roles: ['contributor'], password: 'writer password' });
  audit = new AuditClient(agent, 'reader:reader password');
  await agent.activity.changeRecorder.flush(); // the user's self-audit record is in before the tests look
});
afterAll(async () => {
  audit?.close();
  await agent.stop();
});

async function consoleSearch(body: Record<string, unknown>): Promise<ActivitySearchResponse> {
  const response = await consoleRequest(agent, {
    method: 'POST',
    path: '/api/activity/search',
    headers: withToken(agent),
    body,
  });
  expect(response.status, response.text).toBe(200);
  return JSON.parse(response.text) as ActivitySearchResponse;
}

/** Every page of a console search, following `next`. */
async function consoleAll(filterList: Record<string, unknown> | undefined, count: number): Promise<ActivityRecord[]> {
  const out: ActivityRecord[] = [];
  let page: ActivitySearchResponse['next'] = null;
  for (let i = 0; i < 1000; i++) {
    const answer = await consoleSearch({ ...(filterList ? { filterList } : {}), count, ...(page ? { page } : {}) });
    expect(answer.records.length).toBeLessThanOrEqual(count);
    out.push(...answer.records);
    if (answer.next === null) return out;
    page = answer.next;
  }
  throw new Error('the search did not end');
}

async function auditApiSearch(filterList: Record<string, unknown>): Promise<ActivityRecord[]> {
  const response = await audit.request({
    path: 'activity_records/search?format=json&count=10000',
    body: JSON.stringify({ FilterList: filterList }),
    contentType: 'application/json',
  });
  expect(response.status, response.body).toBe(200);
  return (JSON.parse(response.body) as { ActivityRecordList: ActivityRecord[] }).ActivityRecordList;
}

describe('activity search', () => {
  it('lists every record newest first, in pages that neither repeat nor skip', async () => {
    const all = agent.store.db.prepare('SELECT rid FROM activity_records ORDER BY seq DESC').pluck().all();
    const paged = await consoleAll(undefined, 7);
    expect(paged.map((r) => r.RID)).toEqual(all);
    const first = await consoleSearch({ count: 3 });
    expect(first.records.map((r) => r.RID)).toEqual(all.slice(0, 3));
    expect(first.next).not.toBeNull();
  });

  it.each([
    { Who: 'alice' },
    { Who: { Equals: 'CORP\\bob' }, Action: ['Added', 'Removed'] },
    { What: [{ StartsWith: '/srv/share' }, { DoesNotContain: 'doc-1' }] },
    { When: { From: '2026-01-05T00:00:00Z', To: '2026-01-10T00:00:00Z' }, DataSource: { NotEqualTo: 'Vigil API' } },
    { What: '<img' },
    { Who: 'nobody at all' },
  ])('selects what the audit API selects for %j', async (filterList) => {
    const expected = (await auditApiSearch(filterList)).map((r) => r.RID).reverse();
    const got = await consoleAll(filterList, 25);
    expect(got.map((r) => r.RID)).toEqual(expected);
  });

  it('gives the same answers once the substring index covers the records (index path, newest first)', async () => {
    const top = agent.store.db.prepare('SELECT max(seq) FROM activity_records').pluck().get() as number;
    agent.audit.index.poke();
    expect(await agent.audit.index.waitUntil(top, 20_000)).toBe(true);
    for (const filterList of [{ What: 'doc-1' }, { Who: { EndsWith: 'carol' }, What: { Contains: 'share' } }]) {
      const expected = (await auditApiSearch(filterList)).map((r) => r.RID).reverse();
      expect(expected.length).toBeGreaterThan(3);
      expect((await consoleAll(filterList, 3)).map((r) => r.RID)).toEqual(expected);
    }
  });

  it('returns attacker-controlled text as it was recorded', async () => {
    const found = await consoleSearch({ filterList: { What: 'onerror' }, count: 500 });
    expect(found.records.length).toBe(12);
    expect(found.records.every((r) => r.What.includes(XSS))).toBe(true);
  });

  it.each([
    [{ filterList: { Colour: 'red' } }, 'filterList.Colour', /unknown filter "Colour"/],
    [{ filterList: { Action: { Contains: 'Add' } } }, 'filterList.Action', /does not apply/],
    [{ filterList: { When: { From: 'yesterday' } } }, 'filterList.When.From', /not a date-time/],
    [{ count: 0 }, 'count', /count/],
    [{ count: 501 }, 'count', /count/],
    [{ page: { before: 'x' } }, 'page', /page/],
  ])('refuses %j naming %s', async (body, field, message) => {
    const response = await consoleRequest(agent, {
      method: 'POST',
      path: '/api/activity/search',
      headers: withToken(agent),
      body,
    });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ error: 'invalid_request', field });
    expect(response.json?.['error_description']).toMatch(message);
  });
});

describe('live feed', () => {
  it('streams committed records: file activity and configuration changes', async () => {
    const watched = makeTempDir('vigil-watched-');
    await monitorFolders(agent, [watched]);
    const feed = await SseReader.open(agent, '/api/activity/feed');
    try {
      expect(feed.status).toBe(200);
      expect(feed.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(feed.headers['cache-control']).toBe('no-store');
      await feed.waitFor('ready');
      const name = path.join(watched, `${XSS}.txt`);
      fs.writeFileSync(name, 'x');
      const event = await feed.waitFor('records', (d) => (d as ActivityRecord[]).some((r) => r.What === name));
      const record = (event.data as ActivityRecord[]).find((r) => r.What === name)!;
      expect(record).toMatchObject({ Action: 'Added', ObjectType: 'File', DataSource: 'File System' });
      expect(record.RID).toMatch(/^\d{17}[0-9A-F]{32}$/);

      await consoleRequest(agent, {
        method: 'PUT',
        path: '/api/monitoring',
        headers: withToken(agent),
        body: { paused: true },
      });
      await feed.waitFor('records', (d) =>
        (d as ActivityRecord[]).some((r) => r.ObjectType === 'Monitoring' && r.Who === 'console'),
      );
    } finally {
      feed.close();
      await agent.monitoring.resume('test');
    }
  });

  it('streams records written through the audit API, as stored, once committed', async () => {
    const feed = await SseReader.open(agent, '/api/activity/feed');
    const writer = new AuditClient(agent, 'writer:writer password');
    try {
      await feed.waitFor('ready');
      const response = await writer.postJson('activity_records/', [
        {
          Who: 'CORP\\siem',
          Action: 'Modified',
          What: 'feed-check',
          When: '2026-11-24T10:00:00+01:00',
          Where: 'srv',
          ObjectType: 'File',
        },
      ]);
      expect(response.status, response.body).toBe(200);
      const event = await feed.waitFor('records', (d) => (d as ActivityRecord[]).some((r) => r.What === 'feed-check'));
      const record = (event.data as ActivityRecord[]).find((r) => r.What === 'feed-check')!;
      expect(record).toMatchObject({ Who: 'CORP\\siem', DataSource: 'Vigil API', When: '2026-11-24T09:00:00Z' });
      expect(record.RID).toMatch(/^\d{17}[0-9A-F]{32}$/);
      // The same record as the audit API's search returns: what was committed, not the input.
      const [found] = await auditApiSearch({ What: 'feed-check' });
      expect(found?.RID).toBe(record.RID);
    } finally {
      writer.close();
      feed.close();
    }
  });
});
