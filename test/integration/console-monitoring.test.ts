/**
 * The console's overview endpoints and the monitoring capability behind them (docs/tray.md):
 * status, pause and resume of file monitoring (nothing done during a pause is recorded), today's
 * count, issues that stop recording, and read-only hosts and outputs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import type { ConsoleStatus, HostView, MonitoringView, OutputView } from '../../shared/console-api.js';
import { consoleRequest, withToken } from '../helpers/console-client.js';
import { startTestAgent } from '../helpers/test-agent.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { actions, monitorFolders, records, TEST_TIMINGS, waitFor } from '../helpers/activity.js';

let agent: TestAgent;
let watched: string;

beforeAll(async () => {
  agent = await startTestAgent({ activity: TEST_TIMINGS, version: '9.8.7' });
  watched = makeTempDir('vigil-watched-');
  await monitorFolders(agent, [watched]);
});
afterAll(() => agent.stop());

const get = async <T>(p: string): Promise<T> => {
  const response = await consoleRequest(agent, { path: p, headers: withToken(agent) });
  expect(response.status, response.text).toBe(200);
  return JSON.parse(response.text) as T;
};
const setPaused = (paused: boolean): ReturnType<typeof consoleRequest> =>
  consoleRequest(agent, { method: 'PUT', path: '/api/monitoring', headers: withToken(agent), body: { paused } });

describe('GET /api/status', () => {
  it('says whether the agent is healthy, where clients connect, what to pin and what is monitored', async () => {
    const status = await get<ConsoleStatus>('/api/status');
    const urls = agent.urls();
    expect(status).toMatchObject({
      version: '9.8.7',
      certificateSha256: agent.identity.fingerprint256,
      apiUrl: urls.apiUrl,
      auditUrl: urls.auditUrl,
      consoleUrl: urls.consoleUrl,
      healthy: true,
      monitoring: { paused: false, issues: [] },
      counts: { clients: 0, auditUsers: 0, hosts: 1, enabledHosts: 1, outputs: 1 },
    });
    expect(status.monitoring.todayCount).toBe(agent.monitoring.todayCount());
    expect(status.counts.todayRecords).toBe(status.monitoring.todayCount);
    expect(status.hosts[0]).toMatchObject({ includePaths: [watched], enabled: true });
    expect(status.hosts[0]!.status?.summary).toBe('Monitoring 1 folder');
    expect(Date.parse(status.startedAt)).toBeLessThanOrEqual(Date.now());
  });
});

describe('pause and resume', () => {
  it('stops recording while paused and resumes from a fresh baseline; each switch is recorded', async () => {
    const p = (name: string): string => path.join(watched, name);
    fs.writeFileSync(p('before.txt'), 'x');
    await waitFor(
      () => actions(agent.store.db),
      (a) => a.includes(`Added ${p('before.txt')}`),
      15_000,
      'before.txt',
    );

    const paused = await setPaused(true);
    expect(paused.status).toBe(200);
    expect((paused.json as unknown as MonitoringView).paused).toBe(true);
    expect(agent.monitoring.paused).toBe(true);
    const host = (await get<HostView[]>('/api/hosts'))[0]!;
    expect(host.status?.summary).toBe('Monitoring is paused');
    fs.writeFileSync(p('during.txt'), 'x');

    expect(((await setPaused(false)).json as unknown as MonitoringView).paused).toBe(false);
    fs.writeFileSync(p('after.txt'), 'x');
    await waitFor(
      () => actions(agent.store.db),
      (a) => a.includes(`Added ${p('after.txt')}`),
      15_000,
      'after.txt',
    );
    // after.txt was seen, so the watcher had every chance to report during.txt: it must not.
    expect(actions(agent.store.db).filter((a) => a.includes('during.txt'))).toEqual([]);

    await agent.activity.changeRecorder.flush();
    const switches = records(agent.store.db, 'Vigil Agent').filter((r) => r.object_type === 'Monitoring');
    const state = (details: string): unknown =>
      (JSON.parse(details) as Array<{ PropertyName: string; After?: string }>).find((d) => d.PropertyName === 'State')
        ?.After;
    expect(switches.map((r) => [r.who, state(r.details!)])).toEqual([
      ['console', 'Paused'],
      ['console', 'Running'],
    ]);
  });

  it('refuses a body without a boolean paused, naming the field', async () => {
    const response = await consoleRequest(agent, {
      method: 'PUT',
      path: '/api/monitoring',
      headers: withToken(agent),
      body: { paused: 'yes' },
    });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ error: 'invalid_request', field: 'paused' });
  });
});

describe("today's count", () => {
  it('counts the records of today, including ones written after the last look', async () => {
    const before = (await get<MonitoringView>('/api/monitoring')).todayCount;
    fs.writeFileSync(path.join(watched, 'count-me.txt'), 'x');
    await waitFor(
      async () => (await get<MonitoringView>('/api/monitoring')).todayCount,
      (n) => n === before + 1,
      15_000,
      'the count to grow by one',
    );
    const today = agent.store.db
      .prepare('SELECT count(*) AS n FROM activity_records WHERE when_ms >= ?')
      .get(new Date(new Date().setHours(0, 0, 0, 0)).getTime()) as { n: number };
    expect(agent.monitoring.todayCount()).toBe(today.n);
  });
});

describe('issues', () => {
  it('reports log writing stopped by the free-space floor, and clears once writes fit again', async () => {
    const original = agent.settings.current.logStorage.minLocalFreeSpace;
    await agent.settings.update((draft) => {
      draft.logStorage.minLocalFreeSpace = 2 ** 52; // more than any disk has
    });
    try {
      fs.writeFileSync(path.join(watched, 'no-room.txt'), 'x');
      const status = await waitFor(
        () => get<ConsoleStatus>('/api/status'),
        (s) => s.monitoring.issues.length > 0,
        15_000,
        'an issue',
      );
      expect(status.healthy).toBe(false);
      expect(status.monitoring.issues[0]).toMatchObject({ code: 'disk_space' });
      expect(status.monitoring.issues[0]!.message).toMatch(/logStorage\.minLocalFreeSpace/);
      expect(agent.monitoring.issue()?.code).toBe('disk_space');
      const outputs = await get<OutputView[]>('/api/outputs');
      expect(outputs[0]!.status).toMatchObject({ type: 'Warning', summary: 'Log file writing stopped' });
      expect(outputs[0]!.droppedCount).toBeGreaterThan(0);
    } finally {
      await agent.settings.update((draft) => {
        draft.logStorage.minLocalFreeSpace = original;
      });
    }
    fs.writeFileSync(path.join(watched, 'room-again.txt'), 'x');
    await waitFor(
      () => get<ConsoleStatus>('/api/status'),
      (s) => s.healthy,
      15_000,
      'the issue to clear',
    );
  });
});

describe('GET /api/hosts and /api/outputs', () => {
  it('lists hosts and outputs from the settings with their runtime status and counters', async () => {
    const hosts = await get<HostView[]>('/api/hosts');
    const outputs = await get<OutputView[]>('/api/outputs');
    const settings = agent.settings.current;
    expect(hosts.map((h) => h.id)).toEqual(settings.hosts.map((h) => h.id));
    expect(hosts[0]!.receivedCount).toBeGreaterThan(0);
    expect(outputs).toHaveLength(1);
    expect(outputs[0]).toMatchObject({
      id: settings.outputs[0]!.id,
      hostId: hosts[0]!.id,
      domainId: null,
      ownerName: hosts[0]!.name,
      type: 'LogFile',
      enabled: true,
      description: 'TSV log files, kept 10 days, closed days zipped',
    });
    expect(outputs[0]!.reportedCount).toBeGreaterThan(0);
  });
});
