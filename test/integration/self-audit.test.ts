/**
 * First run and self-audit: a fresh agent monitors the user folders of its home with a TSV log
 * output, records that it did so, and records configuration changes reported to it (DataSource
 * `Vigil Agent`, Who the actor, Before/After) in the store and on the live feed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { localHostType } from '../../agent/config/monitoring-schema.js';
import { rowToRecord, type RecordRow } from '../../agent/store/audit-store.js';
import type { FeedChunk } from '../../agent/pipeline/live-feed.js';
import { startTestAgent } from '../helpers/test-agent.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { logLines } from '../helpers/activity.js';

let agent: TestAgent | null = null;
afterEach(async () => {
  await agent?.stop();
  agent = null;
});

function agentRecords(a: TestAgent) {
  const rows = a.store.db
    .prepare("SELECT * FROM activity_records WHERE data_source = 'Vigil Agent' ORDER BY seq")
    .all() as RecordRow[];
  return rows.map(rowToRecord);
}

describe('first run and self-audit', () => {
  it('monitors the existing user folders of the home with a TSV log file output, and records it', async () => {
    const home = makeTempDir('vigil-home-');
    for (const name of ['Documents', 'Desktop']) fs.mkdirSync(path.join(home, name));
    fs.mkdirSync(path.join(home, '.cache')); // never a default: caches churn
    agent = await startTestAgent({ firstRunHome: home });
    const { hosts, outputs } = agent.settings.current;
    expect(hosts).toHaveLength(1);
    expect(hosts[0]).toMatchObject({
      type: localHostType(),
      enabled: true,
      includePaths: [path.join(home, 'Desktop'), path.join(home, 'Documents')],
    });
    expect(outputs).toEqual([
      expect.objectContaining({
        hostId: hosts[0]!.id,
        type: 'LogFile',
        enabled: true,
        logFile: expect.objectContaining({ format: 'Tsv' }),
      }),
    ]);
    await agent.activity.changeRecorder.flush();
    const [record] = agentRecords(agent);
    expect(record).toMatchObject({ Who: 'agent', Action: 'Added', ObjectType: 'Host', DataSource: 'Vigil Agent' });
    expect(record!.DetailList).toEqual([
      { PropertyName: 'includePaths', After: `${path.join(home, 'Desktop')}; ${path.join(home, 'Documents')}` },
    ]);

    // A restart is not a first run: nothing is added again.
    const dataDir = agent.dataDir;
    await agent.stop();
    agent = await startTestAgent({ dataDir, firstRunHome: home });
    expect(agent.settings.current.hosts).toHaveLength(1);
    expect(agentRecords(agent)).toHaveLength(1);
  });

  it('turns a reported configuration change into a record with Before and After, on the live feed too', async () => {
    agent = await startTestAgent();
    await agent.activity.changeRecorder.flush();
    const controller = new AbortController();
    const stream = agent.activity.feed.stream({ signal: controller.signal });
    const next = stream.next();
    agent.activity.changeRecorder.recordChange({
      actor: 'client:SIEM collector',
      action: 'Modified',
      objectType: 'Output',
      what: 'syslog to siem.example.com',
      details: [{ PropertyName: 'enabled', Before: 'true', After: 'false' }],
    });
    await agent.activity.changeRecorder.flush();
    const records = agentRecords(agent);
    const change = records.at(-1)!;
    expect(change).toMatchObject({
      Who: 'client:SIEM collector',
      Action: 'Modified',
      What: 'syslog to siem.example.com',
      ObjectType: 'Output',
      DataSource: 'Vigil Agent',
      DetailList: [{ PropertyName: 'enabled', Before: 'true', After: 'false' }],
    });
    expect(change.When).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const chunk = (await next).value as FeedChunk;
    expect(chunk.records.map((r) => r.RID)).toContain(change.RID);
    controller.abort();
    await stream.next();
    // Configuration changes are not file activity: they stay out of the hosts' log files.
    expect(logLines(agent.dataDir)).toEqual([]);
  });
});
