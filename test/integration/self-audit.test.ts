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
import { createLogger } from '../../agent/log/logger.js';
import { rowToRecord, type RecordRow } from '../../agent/store/audit-store.js';
import type { FeedChunk } from '../../agent/pipeline/live-feed.js';
import { startTestAgent } from '../helpers/test-agent.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { logLines, waitFor } from '../helpers/activity.js';
import { call } from '../helpers/resource-client.js';

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
      isEnabled: true,
      includePaths: [path.join(home, 'Desktop'), path.join(home, 'Documents')],
    });
    expect(outputs).toEqual([
      expect.objectContaining({
        hostId: hosts[0]!.id,
        type: 'LogFile',
        isEnabled: true,
        logFile: expect.objectContaining({ format: 'Tsv' }),
      }),
    ]);
    await agent.activity.changeRecorder.flush();
    const [record] = agentRecords(agent);
    expect(record).toMatchObject({ Who: 'agent', Action: 'Added', ObjectType: 'Host', DataSource: 'Vigil Agent' });
    expect(record!.DetailList).toEqual([
      { PropertyName: 'Id', After: hosts[0]!.id },
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
      id: 'output-1',
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
      DetailList: [
        { PropertyName: 'Id', Before: 'output-1', After: 'output-1' },
        { PropertyName: 'enabled', Before: 'true', After: 'false' },
      ],
    });
    expect(change.When).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const chunk = (await next).value as FeedChunk;
    expect(chunk.records.map((r) => r.RID)).toContain(change.RID);
    controller.abort();
    await stream.next();
    // Configuration changes are not file activity: they stay out of the hosts' log files.
    expect(logLines(agent.dataDir)).toEqual([]);
  });

  // A SIEM follows one resource across renames by the detail Id; What stays its (current) name.
  it("every configuration change carries the changed resource's id as the detail Id, across a rename", async () => {
    agent = await startTestAgent();
    const a = agent;
    const { resources } = a;
    const host = (await resources.hosts.create({ host: 'before-rename', type: localHostType() }, [], 'test')).host;
    await resources.hosts.update(host.id, (h) => ({ ...h, host: 'after-rename' }), 'test');
    const output = await resources.outputs.create({ hostId: host.id }, { type: 'LogFile' }, 'test');
    await resources.outputs.remove(output.id, 'test');
    const domain = await resources.domains.add({ name: 'corp.example', ldapServer: 'ldap://10.0.0.5' }, 'test');
    const policy = await resources.policies.create(domain.id, { name: 'p', xml: '<Policy/>' }, 'test');
    const peer = await resources.agents.register({ host: 'peer.example.test' }, 'test');
    const client = await a.auth.clients.add({ name: 'siem', permissions: ['read'] }, 'test');
    await a.audit.users.add({ name: 'auditor', roles: ['reader'], password: 'a long enough password 1' }, 'test');
    await resources.hosts.remove(host.id, 'test');
    await a.activity.changeRecorder.flush();

    const idOf = (record: { DetailList?: Array<{ PropertyName: string; Before?: string; After?: string }> }) => {
      const detail = record.DetailList?.find((d) => d.PropertyName === 'Id');
      return detail?.After ?? detail?.Before;
    };
    const trail = agentRecords(a).map((r) => ({ type: r.ObjectType, action: r.Action, what: r.What, id: idOf(r) }));
    expect(trail).toEqual(
      expect.arrayContaining([
        { type: 'Host', action: 'Added', what: 'before-rename', id: host.id },
        { type: 'Host', action: 'Modified', what: 'after-rename', id: host.id },
        { type: 'Host', action: 'Removed', what: 'after-rename', id: host.id },
        expect.objectContaining({ type: 'Output', action: 'Added', id: output.id }),
        expect.objectContaining({ type: 'Output', action: 'Removed', id: output.id }),
        expect.objectContaining({ type: 'Domain', action: 'Added', id: domain.id }),
        expect.objectContaining({ type: 'Policy', action: 'Added', id: policy.id }),
        expect.objectContaining({ type: 'Agent', action: 'Added', id: peer.id }),
        expect.objectContaining({ action: 'Added', what: 'siem', id: client.clientId }),
        expect.objectContaining({ type: 'Audit user', action: 'Added', id: 'auditor' }),
      ]),
    );
    for (const record of trail) expect(record.id, JSON.stringify(record)).toEqual(expect.any(String));
  });

  // An operator who installs on a machine without user folders must learn that nothing is
  // recorded, and how to change that, without reading code: from the log, the API and the console.
  it('a first run without user folders says plainly that no folder is watched, and how to add one', async () => {
    const lines: string[] = [];
    agent = await startTestAgent({
      firstRunHome: makeTempDir('vigil-empty-home-'),
      log: createLogger({ write: (line) => lines.push(line) }),
    });
    const host = agent.settings.current.hosts[0]!;
    expect(host.includePaths).toEqual([]);
    const firstRun = lines.find((l) => l.includes('first run'))!;
    expect(firstRun).toMatch(/WARN first run: no folder is watched, so no file activity is recorded/);
    expect(firstRun).toContain('Add folder');
    expect(firstRun).toContain('includePaths');

    const status = await waitFor(
      async () =>
        (await call(agent!, ['read'], 'GET', `/api/v1/hosts/${host.id}`)).json!['status'] as Record<string, string>,
      (s) => s['summary'] !== 'Starting',
      10_000,
      'the host status',
    );
    expect(status).toMatchObject({ type: 'Warning', summary: 'No folder is watched: nothing is recorded' });
    expect(status['details']).toContain('Add folder');
  });
});
