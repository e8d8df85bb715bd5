/**
 * Domain outputs (docs/directory.md "Domain outputs") against a real slapd and a real rsyslog:
 * the editor's changes land in `<domain>_Log_YYYYMMDD.tsv` with the log file columns filled from
 * the directory record, in a JSON log file whose filter keeps only additions, and in rsyslog over
 * TCP; the file is listed and downloaded through the agent API and read in the console's log
 * viewer; a disabled output, or the outputs of a disabled domain, write nothing; after the agent
 * stopped, `vigil verify --logs` passes on the domain's files and names a flipped byte.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogFileView, LogLinesResponse, OutputView } from '../../shared/console-api.js';
import { utcDay } from '../../agent/outputs/log-file-names.js';
import { runVigil } from '../helpers/cli.js';
import { consoleRequest, withToken } from '../helpers/console-client.js';
import { call, listOf } from '../helpers/resource-client.js';
import { createRsyslog, type Rsyslog } from '../helpers/rsyslog.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { EDITOR_DN, PEOPLE, SlapdServer, person, slapdMissing } from '../helpers/slapd-server.js';
import { addTestDomain, changesPolicyXml, directoryRecords, nextPoll, waitFor } from '../helpers/directory.js';

const missing = slapdMissing();
const MH = ['modifyHost', 'accessActivityData'] as const;
const AAD = ['accessActivityData'] as const;

interface Report {
  ok: boolean;
  verified: Array<{ file: string; from: number; to: number }>;
  problems: Array<{ file: string; line?: number; kind: string }>;
}

describe.skipIf(missing !== null)('domain outputs', () => {
  let slapd: SlapdServer;
  let receiver: Rsyslog;
  let agent: TestAgent;
  let dataDir: string;
  let domainId: string;
  const ids = { tsv: '', json: '', syslog: '', disabled: '' };
  let tsvName = '';
  let jsonName = '';
  const logFile = (name: string): string => path.join(dataDir, 'logs', name);
  const linesOf = (name: string): string[] =>
    fs.existsSync(logFile(name)) ? fs.readFileSync(logFile(name), 'utf8').split('\n').slice(0, -1) : [];

  async function createOutput(body: Record<string, unknown>): Promise<string> {
    const res = await call(agent, MH, 'POST', `/api/v1/domains/${domainId}/outputs`, { body });
    expect(res.status, res.text).toBe(201);
    return res.json!['id'] as string;
  }

  beforeAll(async () => {
    slapd = await SlapdServer.create();
    receiver = await createRsyslog();
    await receiver.start();
    dataDir = makeTempDir();
    agent = await startTestAgent({ dataDir });
    domainId = await addTestDomain(agent, slapd);
    ids.tsv = await createOutput({ type: 'LogFile' });
    ids.json = await createOutput({
      type: 'LogFile',
      logFile: { format: 'Json', fileName: 'example-additions' },
      fileFilter: { operations: ['Added'] },
    });
    ids.syslog = await createOutput({
      type: 'Syslog',
      syslog: {
        server: `127.0.0.1:${receiver.ports.tcp}`,
        protocol: 'TCP',
        template: 'Action="{Action}" What="{What}" Who="{Who}" ObjectType="{ObjectType}" Plan="{MonitoringPlan}"',
      },
    });
    ids.disabled = await createOutput({ type: 'LogFile', isEnabled: false, logFile: { fileName: 'not-written' } });
    await agent.resources.policies.create(
      domainId,
      { xml: changesPolicyXml('People', `<Context>${PEOPLE}</Context>`) },
      'test',
    );
    await agent.activity.directory.ready();
    await agent.activity.outputs.settled();
    await nextPoll(agent, domainId); // the baseline
    tsvName = `example.test_Log_${utcDay(Date.now())}.tsv`;
    jsonName = `example-additions_Log_${utcDay(Date.now())}.json`;
  }, 60_000);

  afterAll(async () => {
    await agent?.stop();
    await receiver?.stop();
    await slapd?.dispose();
  });

  it("writes the editor's changes to <domain>_Log_YYYYMMDD.tsv, one line per record, columns from the record", async () => {
    await slapd.editor.add(`uid=alice,${PEOPLE}`, person('alice', 'a-password'));
    await slapd.editor.replace(`uid=alice,${PEOPLE}`, { sn: ['Liddell'] });
    await slapd.editor.rename(`uid=alice,${PEOPLE}`, `uid=alicia,${PEOPLE}`);
    await slapd.editor.remove(`uid=alicia,${PEOPLE}`);
    await waitFor('four lines', () => linesOf(tsvName).length >= 4);
    await nextPoll(agent, domainId);
    const records = directoryRecords(agent.store.db);
    expect(records.map((r) => r.action)).toEqual(['Added', 'Modified', 'Renamed', 'Removed']);
    const columns = linesOf(tsvName).map((line) => line.split('\t'));
    // Time, Host (the LDAP server), User ID, Operation, Object Type, Path, Rename Path, Process or IP, User Name
    expect(columns.map((c) => c.slice(1))).toEqual([
      ['127.0.0.1', '', 'Add', 'inetOrgPerson', `uid=alice,${PEOPLE}`, '', '', EDITOR_DN],
      ['127.0.0.1', '', 'Upd', 'inetOrgPerson', `uid=alice,${PEOPLE}`, '', '', EDITOR_DN],
      ['127.0.0.1', '', 'Ren', 'inetOrgPerson', `uid=alice,${PEOPLE}`, `uid=alicia,${PEOPLE}`, '', EDITOR_DN],
      ['127.0.0.1', '', 'Del', 'inetOrgPerson', `uid=alicia,${PEOPLE}`, '', '', EDITOR_DN],
    ]);
    // The time column is the change's time (the record's When, which keeps whole seconds).
    const whens = agent.store.db
      .prepare("SELECT when_ms FROM activity_records WHERE data_source = 'LDAP Directory' ORDER BY seq")
      .all() as Array<{ when_ms: number }>;
    columns.forEach((c, i) => {
      expect(c[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(c[0]!.slice(0, 19)).toBe(new Date(whens[i]!.when_ms).toISOString().slice(0, 19));
    });
    expect(fs.readFileSync(logFile(tsvName), 'utf8')).not.toContain('a-password');
    expect(fs.existsSync(logFile(`${tsvName}.sig`))).toBe(true);
  });

  it('applies the output filter: the JSON output holds the addition only, as the audit API shows it', () => {
    const lines = linesOf(jsonName).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      Action: 'Added',
      What: `uid=alice,${PEOPLE}`,
      Who: EDITOR_DN,
      DataSource: 'LDAP Directory',
      MonitoringPlan: { Name: 'example.test', ID: domainId },
      Item: { Name: 'People' },
    });
  });

  it('sends each record to rsyslog over TCP', async () => {
    const lines = await waitFor('four syslog messages', () => {
      const seen = receiver.lines('tcp');
      return seen.length >= 4 ? seen : null;
    });
    expect(lines).toHaveLength(4);
    const parsed = lines.map((line) => {
      const [, app, , msgId, , ...msg] = line.split('|');
      return { app, msgId, msg: msg.join('|') };
    });
    expect(parsed.map((p) => p.msgId)).toEqual(['Added', 'Modified', 'Renamed', 'Removed']);
    expect(parsed[0]).toEqual({
      app: 'Vigil',
      msgId: 'Added',
      msg: `Action="Added" What="uid=alice,${PEOPLE}" Who="${EDITOR_DN}" ObjectType="inetOrgPerson" Plan="example.test"`,
    });
    expect(agent.activity.status.output(ids.syslog)?.stats).toMatchObject({ reportedCount: 4, droppedCount: 0 });
  });

  it('lists and downloads the file through the agent API, with the output and the activity range', async () => {
    const listed = listOf(await call(agent, ['read'], 'GET', `/api/v1/logs/${ids.tsv}`));
    expect(listed.map((f) => f['id'])).toEqual([tsvName]);
    expect(listed[0]).toMatchObject({ outputId: ids.tsv, type: 'Tsv', isZip: false });
    expect(listed[0]!['activityFrom']).toBe(linesOf(tsvName)[0]!.split('\t')[0]);
    const download = await call(agent, AAD, 'GET', `/api/v1/logs/get/${tsvName}`);
    expect(download.status).toBe(200);
    expect(download.text).toBe(fs.readFileSync(logFile(tsvName), 'utf8'));
    // A second output may not write the same files: 409 naming the field and the output holding them.
    const clash = await call(agent, MH, 'POST', `/api/v1/domains/${domainId}/outputs`, {
      body: { type: 'LogFile', logFile: { fileName: 'example.test' } },
    });
    expect(clash.status, clash.text).toBe(409);
    expect(clash.json).toMatchObject({ error: 'conflict', field: 'logFile.fileName', holderId: ids.tsv });
    const output = await call(agent, ['read'], 'GET', `/api/v1/domains/${domainId}/outputs/${ids.tsv}`);
    expect(output.json).toMatchObject({
      status: { type: 'OK', summary: 'Writing log files' },
      stats: { reportedCount: 4, filesCount: 1 },
    });
  });

  it("offers the domain's outputs in the console and shows the file in its log file list and viewer", async () => {
    const get = (p: string) => consoleRequest(agent, { path: p, headers: withToken(agent) });
    const outputs = JSON.parse((await get('/api/outputs')).text) as OutputView[];
    expect(outputs.find((o) => o.id === ids.tsv)).toMatchObject({
      hostId: null,
      domainId,
      ownerName: agent.settings.current.domains.find((d) => d.id === domainId)!.name,
      type: 'LogFile',
      enabled: true,
      reportedCount: 4,
    });
    const files = JSON.parse((await get(`/api/log-files?outputId=${ids.tsv}`)).text) as LogFileView[];
    expect(files).toEqual([expect.objectContaining({ id: tsvName, outputId: ids.tsv, current: true })]);
    const res = await get(`/api/log-files/${encodeURIComponent(tsvName)}/lines?from=0&count=10`);
    expect(res.status, res.text).toBe(200);
    const lines = JSON.parse(res.text) as LogLinesResponse;
    expect(lines.lines.map((l) => l.text)).toEqual(linesOf(tsvName));
  });

  it('writes nothing for a disabled output, nor for the outputs of a disabled domain', async () => {
    expect(fs.readdirSync(path.join(dataDir, 'logs')).filter((n) => n.startsWith('not-written'))).toEqual([]);
    const disabled = await call(agent, ['read'], 'GET', `/api/v1/domains/${domainId}/outputs/${ids.disabled}`);
    expect(disabled.json!['status']).toMatchObject({ summary: 'Disabled' });

    await agent.resources.domains.setEnabled(domainId, false, 'test');
    await agent.activity.outputs.settled();
    await agent.activity.directory.ready();
    expect(agent.activity.outputs.logFileOutput(ids.tsv)).toBeUndefined();
    expect(agent.activity.status.output(ids.tsv)?.status.summary).toBe('Disabled');
    const before = linesOf(tsvName).length;
    await slapd.editor.add(`uid=bob,${PEOPLE}`, person('bob'));
    await new Promise((resolve) => setTimeout(resolve, 2_500)); // two polling intervals of the domain
    expect(linesOf(tsvName)).toHaveLength(before);
    expect(receiver.lines('tcp')).toHaveLength(4);

    // Enabled again: a fresh baseline, then new changes are written again.
    await agent.resources.domains.setEnabled(domainId, true, 'test');
    await agent.activity.outputs.settled();
    await agent.activity.directory.ready();
    await nextPoll(agent, domainId);
    await slapd.editor.add(`uid=carol,${PEOPLE}`, person('carol'));
    await waitFor('the new line', () => linesOf(tsvName).length === before + 1);
    expect(linesOf(tsvName).at(-1)).toContain(`uid=carol,${PEOPLE}`);
  }, 30_000);

  it('`vigil verify --logs` passes on the domain files after the agent stopped, and names a flipped byte', async () => {
    await agent.stop();
    const logs = path.join(dataDir, 'logs');
    const run = await runVigil(['verify', '--data-dir', dataDir, '--logs', logs], { timeoutMs: 60_000 });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as Report;
    const count = linesOf(tsvName).length;
    expect(report.problems).toEqual([]);
    expect(report.verified).toContainEqual({ file: tsvName, from: 1, to: count });
    expect(report.verified).toContainEqual({ file: jsonName, from: 1, to: 2 }); // alice and carol

    // One byte of the second line changed ("Upd" becomes "Uxd").
    const bytes = fs.readFileSync(logFile(tsvName));
    const second = bytes.indexOf('\n') + 1;
    const at = bytes.indexOf('\tUpd\t', second) + 2;
    bytes[at] = 'x'.charCodeAt(0);
    fs.writeFileSync(logFile(tsvName), bytes);
    const tampered = await runVigil(['verify', '--data-dir', dataDir, '--logs', logs], { timeoutMs: 60_000 });
    expect(tampered.code, tampered.stdout + tampered.stderr).toBe(1);
    expect((JSON.parse(tampered.stdout) as Report).problems).toEqual([
      expect.objectContaining({ file: tsvName, line: 2, kind: 'changed' }),
    ]);
  }, 120_000);
});
