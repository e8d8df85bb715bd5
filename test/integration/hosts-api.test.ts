/**
 * Hosts through the agent API over real HTTPS: create under the local agent, read,
 * change with JSON Merge Patch (null resets), delete; bad input named by field; the monitoring
 * follows at once; every change is persisted (settings.json, a restart) and self-audited with
 * the client application as actor.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { localHostType } from '../../agent/config/monitoring-schema.js';
import { hostViewSchema } from '../../agent/api/schemas/host-schemas.js';
import { rowToRecord, type RecordRow } from '../../agent/store/audit-store.js';
import { waitFor } from '../helpers/activity.js';
import { call, conforms, listOf } from '../helpers/resource-client.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { startTestAgent } from '../helpers/test-agent.js';

const TYPE = localHostType();
const MH = ['modifyHost'] as const;

let agent: TestAgent;
let hostsPath = '';

beforeAll(async () => {
  agent = await startTestAgent();
  hostsPath = `/api/v1/agents/${agent.agentId}/hosts`;
});
afterAll(() => agent.stop());

async function createHost(body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await call(agent, MH, 'POST', hostsPath, { body });
  expect(response.status, response.text).toBe(201);
  return response.json!;
}

function expectInvalid(
  response: { status: number; json?: Record<string, unknown> | undefined; text: string },
  field: string,
  message?: RegExp,
): void {
  expect(response.status, response.text).toBe(400);
  expect(response.json).toMatchObject({ error: 'invalid_request', field });
  if (message) expect(response.json!['error_description']).toMatch(message);
}

describe('creating a host', () => {
  it('answers 201 with the host, its Location and a default TSV LogFile output', async () => {
    const folder = makeTempDir('vigil-watch-');
    const response = await call(agent, MH, 'POST', hostsPath, {
      body: { host: 'created-host', type: TYPE, includePaths: [folder], comment: 'made by a test' },
    });
    expect(response.status, response.text).toBe(201);
    const host = conforms(hostViewSchema, response.json);
    expect(response.headers['location']).toBe(host.url);
    expect(host.url).toBe(`https://127.0.0.1:${agent.ports.api}/api/v1/hosts/${host.id}`);
    expect(host).toMatchObject({
      host: 'created-host',
      type: TYPE,
      isEnabled: true,
      includePaths: [folder],
      excludePaths: [],
    });
    expect(host.outputs).toHaveLength(1);
    expect(host.outputs[0]).toMatchObject({
      type: 'LogFile',
      hostId: host.id,
      logFile: { format: 'Tsv', daysToRetain: 10 },
    });
    // Persisted (the settings file on disk), and the monitoring picked it up.
    const file = JSON.parse(fs.readFileSync(agent.settings.file, 'utf8')) as {
      hosts: Array<{ id: string; host: string }>;
    };
    expect(file.hosts.find((h) => h.id === host.id)?.host).toBe('created-host');
    await waitFor(
      () => agent.activity.monitor.source(host.id),
      (s) => s !== undefined,
      10_000,
      'the host to be monitored',
    );
    const self = await call(agent, ['read'], 'GET', new URL(host.url).pathname);
    expect(self.status).toBe(200);
    expect(self.json?.['id']).toBe(host.id);
  });

  it('takes the outputs given, or none with []', async () => {
    // A Syslog output needs Access activity data besides Modify host (docs/permissions.md).
    const response = await call(agent, [...MH, 'accessActivityData'], 'POST', hostsPath, {
      body: {
        host: 'two-outputs',
        type: TYPE,
        outputs: [
          { type: 'LogFile', logFile: { format: 'Json', daysToRetain: 30 } },
          { type: 'Syslog', syslog: { server: '127.0.0.1:5514', protocol: 'UDP' }, isEnabled: false },
        ],
      },
    });
    expect(response.status, response.text).toBe(201);
    const host = response.json!;
    expect((host['outputs'] as unknown[]).map((o) => (o as { type: string }).type)).toEqual(['LogFile', 'Syslog']);
    const none = await createHost({ host: 'no-outputs', type: TYPE, outputs: [] });
    expect(none['outputs']).toEqual([]);
  });

  it.each([
    [{ host: 'x', type: 'NetApp' }, 'type', /cannot monitor a NetApp host/],
    [{ host: 'x', type: 'SharePoint' }, 'type', /cannot monitor a SharePoint host/],
    [{ type: TYPE }, 'host', /expected string/i],
    [{ host: 'x', type: TYPE, includePaths: ['relative/folder'] }, 'includePaths[0]', /absolute/],
    [{ host: 'x', type: TYPE, includePaths: '/tmp' }, 'includePaths', /array/],
    [{ host: 'x', type: TYPE, rescanIntervalMinutes: -1 }, 'rescanIntervalMinutes', />=0|too small/i],
    [{ host: 'x', type: TYPE, isEnabled: 'yes' }, 'isEnabled', /boolean/],
    [{ host: 'x', type: TYPE, password: 'secret' }, 'password', /unknown field/],
    [{ host: 'x', type: TYPE, id: 'mine' }, 'id', /read-only/],
    [{ host: 'x', type: TYPE, outputs: [{ type: 'Amqp' }] }, 'outputs[0].type', /cannot send to a Amqp output/],
    [{ host: 'x', type: TYPE, outputs: [{ type: 'Syslog' }] }, 'outputs[0].syslog', /needs syslog options/],
    [
      { host: 'x', type: TYPE, outputs: [{ type: 'LogFile', logFile: { daysToRetain: 0 } }] },
      'outputs[0].logFile.daysToRetain',
      />=1|too small/i,
    ],
    [
      { host: 'x', type: TYPE, outputs: [{ type: 'LogFile' }, { type: 'LogFile' }] },
      'outputs[1].logFile.fileName',
      /already writes x_Log_/,
    ],
  ])('refuses %j naming %s', async (body, field, message) => {
    const before = agent.settings.current.hosts.length;
    expectInvalid(await call(agent, MH, 'POST', hostsPath, { body }), field, message);
    expect(agent.settings.current.hosts).toHaveLength(before);
  });

  // A client that meets a taken name can go straight to the resource holding it (docs/agent-api.md).
  it('refuses a second host of the same name, whatever the case: 409 conflict naming the field and the holder', async () => {
    const holder = await createHost({ host: 'Unique-Name', type: TYPE, outputs: [] });
    const response = await call(agent, MH, 'POST', hostsPath, { body: { host: 'unique-name', type: TYPE } });
    expect(response.status, response.text).toBe(409);
    expect(response.json).toMatchObject({ error: 'conflict', field: 'host', holderId: holder['id'] });
    expect(response.json!['error_description']).toMatch(/already exists/);
  });

  it("refuses an output whose log file prefix another output writes: 409 naming the field and that output's id", async () => {
    const holder = await createHost({ host: 'prefix-holder', type: TYPE, outputs: [{ type: 'LogFile' }] });
    const holderOutput = (holder['outputs'] as Array<Record<string, unknown>>)[0]!;
    const other = await createHost({ host: 'prefix-taker', type: TYPE, outputs: [] });
    const response = await call(agent, MH, 'POST', `/api/v1/hosts/${other['id'] as string}/outputs`, {
      body: { type: 'LogFile', logFile: { fileName: 'prefix-holder' } },
    });
    expect(response.status, response.text).toBe(409);
    expect(response.json).toMatchObject({
      error: 'conflict',
      field: 'logFile.fileName',
      holderId: holderOutput['id'],
    });
  });

  it('refuses bodies that are not a JSON object, or too large, or of another type', async () => {
    for (const raw of ['{"host":', '', '[]', '"text"', 'null']) {
      const response = await call(agent, MH, 'POST', hostsPath, { raw });
      expect({ raw, status: response.status, error: response.json?.['error'] }).toEqual({
        raw,
        status: 400,
        error: 'invalid_request',
      });
    }
    const xml = await call(agent, MH, 'POST', hostsPath, { raw: '<host/>', contentType: 'application/xml' });
    expect(xml.status).toBe(415);
    const big = await call(agent, MH, 'POST', hostsPath, {
      body: { host: 'big', type: TYPE, comment: 'x'.repeat(70_000) },
    });
    expect(big.status).toBe(413);
    const polluting = await call(agent, MH, 'POST', hostsPath, {
      raw: `{"host":"p","type":"${TYPE}","__proto__":{"polluted":true}}`,
    });
    expect(polluting.status).toBe(400);
    expect(polluting.json).toMatchObject({ field: '__proto__' });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    const deep = await call(agent, MH, 'POST', hostsPath, { raw: `${'{"a":'.repeat(40)}1${'}'.repeat(40)}` });
    expect(deep.status).toBe(400);
    expect(deep.json?.['error_description']).toMatch(/nested deeper/);
  });
});

describe('changing a host with a merge patch', () => {
  it('changes what the patch names, resets what it sets to null, keeps the rest', async () => {
    const host = await createHost({
      host: 'patched',
      type: TYPE,
      includePaths: ['/srv/a'],
      excludePaths: ['/srv/a/tmp'],
      rescanIntervalMinutes: 5,
      comment: 'before',
      outputs: [],
    });
    const url = new URL(host['url'] as string).pathname;
    const response = await call(agent, MH, 'PATCH', url, {
      body: { comment: 'after', excludePaths: null, rescanIntervalMinutes: null, includePaths: ['/srv/a', '/srv/b'] },
    });
    expect(response.status, response.text).toBe(200);
    expect(conforms(hostViewSchema, response.json)).toMatchObject({
      host: 'patched',
      comment: 'after',
      includePaths: ['/srv/a', '/srv/b'],
      excludePaths: [],
      rescanIntervalMinutes: 60,
      isEnabled: true,
    });
    // application/json is taken as a merge patch too.
    const asJson = await call(agent, MH, 'PATCH', url, { body: { comment: null }, contentType: 'application/json' });
    expect(asJson.json?.['comment']).toBe('');
    expect(agent.settings.current.hosts.find((h) => h.id === host['id'])?.comment).toBe('');
  });

  it('refuses patches that would make the host invalid, and changes nothing', async () => {
    const host = await createHost({ host: 'guarded', type: TYPE, outputs: [{ type: 'LogFile' }] });
    const url = new URL(host['url'] as string).pathname;
    const cases: Array<[unknown, string, RegExp?]> = [
      [{ host: null }, 'host'],
      [{ type: 'NetApp' }, 'type', /cannot monitor a NetApp host/],
      [{ includePaths: ['x'] }, 'includePaths[0]', /absolute/],
      [{ rescanIntervalMinutes: 'often' }, 'rescanIntervalMinutes'],
      [{ status: { type: 'OK' } }, 'status', /read-only/],
      [{ outputs: [] }, 'outputs', /read-only/],
      [{ nickname: 'x' }, 'nickname', /unknown field/],
    ];
    for (const [body, field, message] of cases) {
      expectInvalid(await call(agent, MH, 'PATCH', url, { body }), field, message);
    }
    const renamed = await call(agent, MH, 'PATCH', url, { body: { host: 'Patched' } });
    expect(renamed.status, renamed.text).toBe(409);
    expect(renamed.json).toMatchObject({ error: 'conflict', field: 'host' });
    expect(renamed.json!['error_description']).toMatch(/already exists/);
    expect(agent.settings.current.hosts.find((h) => h.id === host['id'])?.host).toBe('guarded');
    const form = await call(agent, MH, 'PATCH', url, {
      raw: 'comment=x',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(form.status).toBe(415);
    expect(form.headers['accept-patch']).toBe('application/merge-patch+json');
  });

  it('disabling stops the monitoring at once and enabling starts it again', async () => {
    const host = await createHost({
      host: 'toggled',
      type: TYPE,
      includePaths: [makeTempDir('vigil-watch-')],
      outputs: [],
    });
    const id = host['id'] as string;
    const url = new URL(host['url'] as string).pathname;
    await waitFor(
      () => agent.activity.monitor.source(id),
      (s) => s !== undefined,
      10_000,
      'monitoring',
    );
    expect((await call(agent, MH, 'PATCH', url, { body: { isEnabled: false } })).json?.['isEnabled']).toBe(false);
    await waitFor(
      () => agent.activity.monitor.source(id),
      (s) => s === undefined,
      10_000,
      'monitoring to stop',
    );
    const disabled = await waitFor(
      async () => (await call(agent, ['read'], 'GET', url)).json?.['status'] as { summary: string },
      (status) => status.summary === 'Monitoring is disabled',
      10_000,
      'the disabled status',
    );
    expect(disabled.summary).toBe('Monitoring is disabled');
    await call(agent, MH, 'PATCH', url, { body: { isEnabled: true } });
    await waitFor(
      () => agent.activity.monitor.source(id),
      (s) => s !== undefined,
      10_000,
      'monitoring again',
    );
    const history = await call(agent, ['read'], 'GET', `${url}/statusHistory`);
    expect(history.status).toBe(200);
    expect(listOf(history).map((s) => s['summary'])).toContain('Monitoring is disabled');
  });
});

describe('deleting a host', () => {
  it('answers 204, and the host and its outputs are gone', async () => {
    const host = await createHost({ host: 'doomed', type: TYPE });
    const output = (host['outputs'] as Array<{ id: string }>)[0]!.id;
    const url = new URL(host['url'] as string).pathname;
    const response = await call(agent, MH, 'DELETE', url);
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect((await call(agent, ['read'], 'GET', url)).status).toBe(404);
    expect((await call(agent, ['read'], 'GET', `/api/v1/outputs/${output}`)).status).toBe(404);
    expect((await call(agent, MH, 'DELETE', url)).status).toBe(404);
    expect(agent.settings.current.outputs.some((o) => o.id === output)).toBe(false);
  });

  it('works under the agent path too', async () => {
    const host = await createHost({ host: 'via-agent', type: TYPE, outputs: [] });
    const url = `${hostsPath}/${host['id'] as string}`;
    expect((await call(agent, ['read'], 'GET', url)).json?.['host']).toBe('via-agent');
    expect((await call(agent, MH, 'PATCH', url, { body: { comment: 'c' } })).json?.['comment']).toBe('c');
    expect((await call(agent, MH, 'DELETE', url)).status).toBe(204);
    expect((await call(agent, ['read'], 'GET', url)).status).toBe(404);
  });
});

describe('methods', () => {
  it('answers a method a path does not have with 405 and Allow', async () => {
    const id = agent.settings.current.hosts[0]!.id;
    const put = await call(agent, MH, 'PUT', `/api/v1/hosts/${id}`, { body: {} });
    expect(put.status).toBe(405);
    expect(put.headers['allow']).toBe('GET, HEAD, PATCH, DELETE');
    expect(put.json?.['error']).toBe('method_not_allowed');
    const post = await call(agent, MH, 'POST', '/api/v1/hosts', { body: {} });
    expect(post.status).toBe(405);
    expect(post.headers['allow']).toBe('GET, HEAD');
  });
});

describe('self-audit and restart', () => {
  it('records each change with the client application as actor, and keeps every change across a restart', async () => {
    const host = await createHost({ host: 'audited', type: TYPE, includePaths: ['/srv/x'], outputs: [] });
    const url = new URL(host['url'] as string).pathname;
    await call(agent, MH, 'PATCH', url, { body: { includePaths: ['/srv/x', '/srv/y'], comment: 'kept' } });
    await agent.activity.changeRecorder.flush();
    const rows = agent.store.db
      .prepare("SELECT * FROM activity_records WHERE data_source = 'Vigil Agent' AND what = 'audited' ORDER BY seq")
      .all() as RecordRow[];
    const records = rows.map(rowToRecord);
    expect(records.map((r) => r.Action)).toEqual(['Added', 'Modified']);
    expect(records[0]!.Who).toMatch(/^client:resources modifyHost \d+$/);
    expect(records[0]!.ObjectType).toBe('Host');
    expect(records[1]!.DetailList).toEqual([
      { PropertyName: 'Id', Before: host['id'], After: host['id'] },
      { PropertyName: 'includePaths', Before: '/srv/x', After: '/srv/x; /srv/y' },
      { PropertyName: 'comment', Before: '', After: 'kept' },
    ]);

    const dataDir = agent.dataDir;
    await agent.stop();
    agent = await startTestAgent({ dataDir });
    const again = await call(agent, ['read'], 'GET', url);
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ host: 'audited', includePaths: ['/srv/x', '/srv/y'], comment: 'kept' });
    expect(fs.existsSync(path.join(dataDir, 'settings.json'))).toBe(true);
  });
});
