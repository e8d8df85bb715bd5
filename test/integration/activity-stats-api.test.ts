/**
 * The console's activity-at-a-glance API on a real agent (docs/console.md): the chart of the
 * last 24 hours counts the records the test wrote, in their 15-minute buckets, the same as the
 * console's search; later records are counted by the next request; a wrong range is refused
 * naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import type { NewActivityRecord } from '../../shared/activity-record.js';
import type { ActivitySearchResponse, ActivityStatsResponse } from '../../shared/console-api.js';
import { consoleRequest, withToken } from '../helpers/console-client.js';
import { startTestAgent } from '../helpers/test-agent.js';
import { TEST_TIMINGS } from '../helpers/activity.js';

let agent: TestAgent;
const now = Date.now();
const QUARTER = 900_000;

function records(n: number, who: string, action: string, whenMs: number): NewActivityRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    Who: who,
    Action: action,
    What: `/srv/stats/${who.split('\\')[1]}/f-${action}-${whenMs}-${i}.txt`,
    When: new Date(whenMs).toISOString(),
    Where: 'ws1',
    ObjectType: 'File',
    DataSource: 'File System',
    DetailList: [{ PropertyName: 'Process', Message: '/usr/bin/stats-test' }],
  }));
}

async function stats(range: string): Promise<{ status: number; body: unknown }> {
  const response = await consoleRequest(agent, {
    method: 'GET',
    path: `/api/activity/stats?range=${range}`,
    headers: withToken(agent),
  });
  return { status: response.status, body: JSON.parse(response.text) as unknown };
}

async function searchCount(from: string, to: string): Promise<number> {
  let total = 0;
  let page: ActivitySearchResponse['next'] = null;
  for (;;) {
    const response = await consoleRequest(agent, {
      method: 'POST',
      path: '/api/activity/search',
      headers: withToken(agent),
      body: { filterList: { When: { From: from, To: to } }, count: 500, ...(page ? { page } : {}) },
    });
    expect(response.status, response.text).toBe(200);
    const answer = JSON.parse(response.text) as ActivitySearchResponse;
    total += answer.records.length;
    if (answer.next === null) return total;
    page = answer.next;
  }
}

beforeAll(async () => {
  agent = await startTestAgent({ activity: TEST_TIMINGS });
  agent.store.insertBatch([
    ...records(30, 'CORP\\alice', 'Removed', now - 2 * QUARTER),
    ...records(12, 'CORP\\bob', 'Added', now - 2 * QUARTER),
    ...records(5, 'CORP\\bob', 'Modified', now - 30 * QUARTER),
    ...records(9, 'CORP\\carol', 'Added', now - 200 * QUARTER), // in the 7-day view only
  ]);
});
afterAll(async () => {
  await agent.stop();
});

describe('GET /api/activity/stats', () => {
  it('counts the records of each 15-minute bucket of the last 24 hours as the search does', async () => {
    const { status, body } = await stats('24h');
    expect(status).toBe(200);
    const day = body as ActivityStatsResponse;
    expect(day.buckets).toHaveLength(96);
    expect(day.bucketMinutes).toBe(15);
    const at = (ms: number) => day.buckets.find((b) => Date.parse(b.start) === ms - (ms % QUARTER))!;
    expect(at(now - 2 * QUARTER).counts).toMatchObject({ Removed: 30, Added: 12 });
    expect(at(now - 30 * QUARTER).counts).toMatchObject({ Modified: 5 });
    for (const bucket of day.buckets) {
      const total = Object.values(bucket.counts).reduce((a, b) => a + b, 0);
      if (total === 0) continue;
      const end = new Date(Date.parse(bucket.start) + QUARTER).toISOString();
      expect(await searchCount(bucket.start, end), bucket.start).toBe(total);
    }
    expect(day.topActors.slice(0, 2)).toEqual([
      { value: 'CORP\\alice', count: 30 },
      { value: 'CORP\\bob', count: 17 },
    ]);
    expect(day.topActors.map((e) => e.value)).not.toContain('CORP\\carol');
    expect(day.topFolders[0]).toEqual({ value: '/srv/stats/alice', count: 30 });
    expect(day.topProcesses).toEqual([{ value: '/usr/bin/stats-test', count: 47 }]);
  });

  it('counts hours over 7 days, and records written since the last request', async () => {
    const week = (await stats('7d')).body as ActivityStatsResponse;
    expect(week.buckets).toHaveLength(168);
    expect(week.bucketMinutes).toBe(60);
    expect(week.topActors.map((e) => e.value)).toContain('CORP\\carol');
    agent.store.insertBatch(records(4, 'CORP\\dave', 'Removed', now));
    const again = (await stats('7d')).body as ActivityStatsResponse;
    expect(again.topActors).toContainEqual({ value: 'CORP\\dave', count: 4 });
  });

  it('refuses a range other than 24h or 7d, naming the field', async () => {
    const { status, body } = await stats('1y');
    expect(status).toBe(400);
    expect(JSON.stringify(body)).toContain('range');
    expect(JSON.stringify(body)).toContain('24h');
  });
});
