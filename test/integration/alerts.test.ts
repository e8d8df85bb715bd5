/**
 * Alerts on mass changes (docs/alerts.md) in a real agent: 600 files removed in a watched folder
 * raise exactly one alert record, which reaches the store, the live feed and a syslog receiver
 * (rsyslogd); two actors removing 300 each raise none; acknowledging in the console ends the
 * burst so the next one fires again; open alerts survive a restart; rule changes in the console
 * name the wrong field and are self-audited.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ActivityRecord } from '../../shared/activity-record.js';
import { formatWhen } from '../../shared/activity-record.js';
import type { AlertView } from '../../shared/console-api.js';
import { rowToRecord, type RecordRow } from '../../agent/store/audit-store.js';
import type { PipelineItem } from '../../agent/pipeline/pipeline-item.js';
import type { OutputSettings } from '../../agent/config/monitoring-schema.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { monitorFolders, records, TEST_TIMINGS, waitFor } from '../helpers/activity.js';
import { consoleRequest, withToken } from '../helpers/console-client.js';
import { createRsyslog, type Rsyslog } from '../helpers/rsyslog.js';
import { startAuditFixture, type AuditFixture } from '../helpers/audit-fixture.js';

let agent: TestAgent | null = null;
let receiver: Rsyslog | null = null;
let fixture: AuditFixture | null = null;
afterEach(async () => {
  await agent?.stop();
  await receiver?.stop();
  await fixture?.stop();
  agent = null;
  receiver = null;
  fixture = null;
});

function alertRecords(a: TestAgent): ActivityRecord[] {
  const rows = a.store.db
    .prepare("SELECT * FROM activity_records WHERE object_type = 'Alert' AND action = 'Activated' ORDER BY seq")
    .all() as RecordRow[];
  return rows.map(rowToRecord);
}

function detail(record: ActivityRecord, name: string): string | undefined {
  return record.DetailList?.find((d) => d.PropertyName === name)?.After;
}

/** `n` Removed records by `who`, as a source would submit them, one second apart at most. */
function removals(who: string, n: number, prefix = who): PipelineItem[] {
  const now = Date.now();
  return Array.from({ length: n }, (_, i) => ({
    record: {
      Who: who,
      Action: 'Removed',
      What: `/data/${prefix}/${i}.txt`,
      When: formatWhen(new Date(now)),
      Where: 'ws1',
      ObjectType: 'File',
      DataSource: 'File System',
    },
    timeMs: now,
  }));
}

async function console_(a: TestAgent, method: string, url: string, body?: unknown) {
  return consoleRequest(a, { method, path: url, headers: withToken(a), body });
}

async function settle(a: TestAgent): Promise<void> {
  await a.activity.pipeline.flush();
  await a.activity.alerts.flush();
  await a.activity.changeRecorder.flush();
}

function syslogOutput(hostId: string, port: number): OutputSettings {
  return {
    id: 'siem',
    hostId,
    type: 'Syslog',
    isEnabled: true,
    comment: '',
    syslog: {
      server: `127.0.0.1:${port}`,
      protocol: 'UDP',
      separator: 'Rfc5425',
      template: 'Action="{Action}" ObjectType="{ObjectType}" What="{What}" Who="{Who}"',
      hostNameVerification: true,
    },
    // Only Added passes the file filter: the alert still arrives, whatever the filter says.
    fileFilter: {
      operations: ['Added'],
      includePaths: [],
      excludePaths: [],
      excludeExtensions: [],
      excludeAccounts: [],
    },
  };
}

describe('alerts on mass changes', () => {
  it('fires exactly once when 600 files are removed as one user within a minute: store, live feed, syslog, console', async () => {
    receiver = await createRsyslog();
    await receiver.start();
    agent = await startTestAgent({ activity: TEST_TIMINGS });
    const watched = makeTempDir('vigil-watched-');
    const hostId = await monitorFolders(agent, [watched]);
    await agent.settings.update((draft) => {
      draft.outputs.push(syslogOutput(hostId, receiver!.ports.udp));
    });
    await agent.activity.outputs.settled();
    const files = Array.from({ length: 600 }, (_, i) => path.join(watched, `doc-${String(i).padStart(3, '0')}.txt`));
    for (const file of files) fs.writeFileSync(file, 'x');
    await waitFor(
      () => records(agent!.store.db).filter((r) => r.action === 'Added').length,
      (n) => n >= 600,
      30_000,
      '600 Added records',
    );
    const fed: ActivityRecord[] = [];
    agent.activity.feed.subscribe((batch) => fed.push(...batch.filter((r) => r.ObjectType === 'Alert')));

    const started = Date.now();
    for (const file of files) fs.rmSync(file);
    const removed = await waitFor(
      () => records(agent!.store.db).filter((r) => r.action === 'Removed'),
      (rows) => rows.length >= 600,
      30_000,
      '600 Removed records',
    );
    expect(Date.now() - started).toBeLessThan(60_000);
    const [alert] = await waitFor(
      () => alertRecords(agent!),
      (list) => list.length > 0,
      10_000,
      'the alert record',
    );
    await settle(agent);
    await new Promise((resolve) => setTimeout(resolve, 500)); // time for a wrong second alert
    expect(alertRecords(agent)).toHaveLength(1);
    expect(alert).toMatchObject({
      Who: removed[0]!.who,
      Action: 'Activated',
      ObjectType: 'Alert',
      What: 'Mass deletion',
      DataSource: 'Vigil Agent',
    });
    expect(detail(alert!, 'Count')).toBe('501');
    expect(detail(alert!, 'WindowSeconds')).toBe('60');
    const paths = detail(alert!, 'FirstPaths')!.split('; ');
    expect(paths).toHaveLength(10);
    for (const p of paths) expect(files).toContain(p);

    expect(fed.map((r) => r.RID)).toEqual([alert!.RID]);
    const lines = await waitFor(
      () => receiver!.lines('udp').filter((l) => l.split('|')[3] === 'Activated'),
      (l) => l.length > 0,
      10_000,
      'the syslog message',
    );
    expect(lines).toHaveLength(1);
    const escapedWho = alert!.Who.replace(/\\/g, '\\\\'); // the template escapes a backslash
    expect(lines[0]).toContain(`Action="Activated" ObjectType="Alert" What="Mass deletion" Who="${escapedWho}"`);

    const open = await console_(agent, 'GET', '/api/alerts');
    const views = open.json as unknown as AlertView[];
    expect(views).toHaveLength(1);
    expect(views[0]).toMatchObject({ rule: 'Mass deletion', who: alert!.Who, count: 501, windowSeconds: 60 });
  }, 90_000); // 1,200 file events through the watcher, then rsyslog

  it('does not fire for two users removing 300 each; after acknowledgement a new burst fires again', async () => {
    const dataDir = makeTempDir();
    agent = await startTestAgent({ dataDir });
    const write = (items: PipelineItem[]) => agent!.activity.pipeline.write(items);
    await write([...removals('HOST\\alice', 300), ...removals('HOST\\bob', 300)]);
    await settle(agent);
    expect(alertRecords(agent)).toEqual([]);

    await write(removals('HOST\\carol', 600));
    await settle(agent);
    await write(removals('HOST\\carol', 600, 'carol-more')); // the same burst: no second alert
    await settle(agent);
    expect(alertRecords(agent).map((r) => r.Who)).toEqual(['HOST\\carol']);

    const [open] = (await console_(agent, 'GET', '/api/alerts')).json as unknown as AlertView[];
    expect(open).toMatchObject({ rule: 'Mass deletion', who: 'HOST\\carol', count: 501 });
    const ack = await console_(agent, 'POST', `/api/alerts/${open!.id}/acknowledge`);
    expect(ack.status).toBe(200);
    expect((await console_(agent, 'GET', '/api/alerts')).json).toEqual([]);
    expect((await console_(agent, 'POST', `/api/alerts/${open!.id}/acknowledge`)).status).toBe(404);

    await write(removals('HOST\\carol', 501, 'carol-again'));
    await settle(agent);
    expect(alertRecords(agent).map((r) => r.Who)).toEqual(['HOST\\carol', 'HOST\\carol']);
    const selfAudit = agent.store.db
      .prepare("SELECT * FROM activity_records WHERE object_type = 'Alert' AND action = 'Modified'")
      .all() as RecordRow[];
    expect(selfAudit.map(rowToRecord)).toEqual([
      expect.objectContaining({
        Who: 'console',
        What: 'Mass deletion',
        DetailList: expect.arrayContaining([
          { PropertyName: 'State', Before: 'Unacknowledged', After: 'Acknowledged' },
        ]) as unknown,
      }),
    ]);

    // The open alert survives a restart; acknowledging all empties the list.
    await agent.stop();
    agent = await startTestAgent({ dataDir });
    const reopened = (await console_(agent, 'GET', '/api/alerts')).json as unknown as AlertView[];
    expect(reopened.map((a) => a.who)).toEqual(['HOST\\carol']);
    expect((await console_(agent, 'POST', '/api/alerts/acknowledge')).json).toEqual({ acknowledged: 1 });
    expect((await console_(agent, 'GET', '/api/alerts')).json).toEqual([]);
  }, 60_000); // two agent starts

  it('counts records written through the audit API like any other', async () => {
    fixture = await startAuditFixture();
    const when = formatWhen(new Date());
    const body = (who: string, n: number) =>
      Array.from({ length: n }, (_, i) => ({
        Who: who,
        Action: 'Removed',
        What: `\\\\fs1\\share\\${i}.txt`,
        When: when,
        Where: 'fs1',
        ObjectType: 'File',
      }));
    const two = await fixture.writer.postJson('activity_records/', [
      ...body('CORP\\ann', 300),
      ...body('CORP\\ben', 300),
    ]);
    expect(two.status, two.body).toBe(200);
    const one = await fixture.writer.postJson('activity_records/', body('CORP\\cid', 600));
    expect(one.status, one.body).toBe(200);
    await settle(fixture.agent);
    expect(alertRecords(fixture.agent).map((r) => `${r.Who} ${r.What} ${r.Where}`)).toEqual([
      'CORP\\cid Mass deletion fs1',
    ]);
  }, 90_000); // the audit fixture starts inside the test: three password hashes on a busy machine

  it('manages rules in the console: errors name the field, every change is self-audited and applies at once', async () => {
    agent = await startTestAgent();
    const rules = await console_(agent, 'GET', '/api/alert-rules');
    expect((rules.json as unknown as Array<{ name: string }>).map((r) => r.name)).toEqual([
      'Mass deletion',
      'Mass modification',
    ]);
    const bad = await console_(agent, 'POST', '/api/alert-rules', {
      name: 'Renames',
      actions: ['Renamed'],
      threshold: 0,
      windowSeconds: 10,
    });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ field: 'threshold', error_description: 'the threshold must be at least 1' });
    const badAction = await console_(agent, 'POST', '/api/alert-rules', {
      name: 'Renames',
      actions: ['Deleted'],
      threshold: 5,
      windowSeconds: 10,
    });
    expect(badAction.json).toMatchObject({ field: 'actions[0]' });

    const added = await console_(agent, 'POST', '/api/alert-rules', {
      name: 'Renames',
      actions: ['Renamed'],
      threshold: 5,
      windowSeconds: 10,
    });
    expect(added.status).toBe(201);
    expect(added.json).toEqual({
      name: 'Renames',
      actions: ['Renamed'],
      threshold: 5,
      windowSeconds: 10,
      per: 'actor',
      enabled: true,
    });
    const taken = await console_(agent, 'POST', '/api/alert-rules', added.json);
    expect(taken).toMatchObject({ status: 409, json: { field: 'name' } });

    const changed = await console_(agent, 'PUT', '/api/alert-rules/Renames', {
      ...added.json,
      threshold: 3,
      per: 'host',
    });
    expect(changed.json).toMatchObject({ threshold: 3, per: 'host' });
    expect(agent.settings.current.alerts.find((r) => r.name === 'Renames')).toMatchObject({ threshold: 3 });
    const renames = Array.from({ length: 4 }, (_, i) => ({
      ...removals('bob', 1, `r${i}`)[0]!,
      record: { ...removals('bob', 1, `r${i}`)[0]!.record, Action: 'Renamed' },
    }));
    await agent.activity.pipeline.write(renames);
    await settle(agent);
    expect(alertRecords(agent).map((r) => r.What)).toEqual(['Renames']);

    expect((await console_(agent, 'DELETE', '/api/alert-rules/Renames')).json).toEqual({
      name: 'Renames',
      removed: true,
    });
    expect((await console_(agent, 'DELETE', '/api/alert-rules/Renames')).status).toBe(404);
    await settle(agent);
    const audited = agent.store.db
      .prepare("SELECT * FROM activity_records WHERE object_type = 'Alert rule' ORDER BY seq")
      .all() as RecordRow[];
    expect(audited.map(rowToRecord).map((r) => `${r.Who} ${r.Action} ${r.What}`)).toEqual([
      'console Added Renames',
      'console Modified Renames',
      'console Removed Renames',
    ]);
    expect(audited.map(rowToRecord)[1]!.DetailList).toEqual(
      expect.arrayContaining([
        { PropertyName: 'threshold', Before: '5', After: '3' },
        { PropertyName: 'per', Before: 'actor', After: 'host' },
      ]),
    );
  });
});
