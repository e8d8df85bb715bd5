/**
 * Outputs through the agent API over real HTTPS: host outputs (create, read under the
 * host and under /outputs, merge-patch member by member, enable/disable taking effect in the
 * output manager, delete), domain outputs, and bad input named by field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { localHostType } from '../../agent/config/monitoring-schema.js';
import { outputViewSchema } from '../../agent/api/schemas/output-schemas.js';
import { statusSchema } from '../../agent/api/schemas/common-schemas.js';
import { waitFor } from '../helpers/activity.js';
import { call, conforms, listOf } from '../helpers/resource-client.js';
import { startTestAgent } from '../helpers/test-agent.js';

const MH = ['modifyHost'] as const;
let agent: TestAgent;
let hostId = '';
let domainId = '';

beforeAll(async () => {
  agent = await startTestAgent();
  const host = await call(agent, MH, 'POST', `/api/v1/agents/${agent.agentId}/hosts`, {
    body: { host: 'outputs-host', type: localHostType(), outputs: [] },
  });
  hostId = host.json!['id'] as string;
  domainId = (
    await agent.resources.domains.add({ name: 'corp.example.com', ldapServer: 'ldaps://dc1.corp.example.com' }, 'test')
  ).id;
});
afterAll(() => agent.stop());

async function createOutput(
  body: Record<string, unknown>,
  owner = `/api/v1/hosts/${hostId}`,
): Promise<Record<string, unknown>> {
  const response = await call(agent, MH, 'POST', `${owner}/outputs`, { body });
  expect(response.status, response.text).toBe(201);
  return conforms(outputViewSchema, response.json) as Record<string, unknown>;
}

describe('host outputs', () => {
  it('creates a LogFile output, shows it under the host and under /outputs', async () => {
    const output = await createOutput({
      type: 'LogFile',
      logFile: { format: 'Json', fileName: 'json-out', daysToRetain: 30 },
    });
    expect(output).toMatchObject({
      hostId,
      domainId: null,
      isEnabled: true,
      agentsIds: [agent.agentId],
      logFile: { format: 'Json', fileName: 'json-out', daysToRetain: 30, headerRow: false, zipClosedFiles: true },
      logsUrl: `https://127.0.0.1:${agent.ports.api}/api/v1/logs/${output['id'] as string}`,
    });
    expect(output['url']).toBe(
      `https://127.0.0.1:${agent.ports.api}/api/v1/hosts/${hostId}/outputs/${output['id'] as string}`,
    );
    const underHost = listOf(await call(agent, ['read'], 'GET', `/api/v1/hosts/${hostId}/outputs`));
    expect(underHost.map((o) => o['id'])).toContain(output['id']);
    const byId = await call(agent, ['read'], 'GET', `/api/v1/outputs/${output['id'] as string}`);
    expect(byId.json).toEqual(output);
    const all = listOf(await call(agent, ['read'], 'GET', '/api/v1/outputs'));
    expect(all.map((o) => o['id'])).toContain(output['id']);
    for (const o of all) conforms(outputViewSchema, o);
    await waitFor(
      () => agent.activity.outputs.logFileOutput(output['id'] as string),
      (o) => o !== undefined,
      10_000,
      'the output to run',
    );
  });

  it('merges logFile member by member; null removes a member', async () => {
    const output = await createOutput({ type: 'LogFile', logFile: { fileName: 'merged', headerRow: true } });
    const url = `/api/v1/hosts/${hostId}/outputs/${output['id'] as string}`;
    const patched = await call(agent, MH, 'PATCH', url, {
      body: { logFile: { daysToRetain: 60, fileName: null }, comment: 'c' },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json!['logFile']).toEqual({
      format: 'Tsv',
      daysToRetain: 60,
      headerRow: true,
      zipClosedFiles: true,
    });
    expect(patched.json!['comment']).toBe('c');
    const stored = agent.settings.current.outputs.find((o) => o.id === output['id']);
    expect(stored?.logFile).toEqual({ format: 'Tsv', daysToRetain: 60, headerRow: true, zipClosedFiles: true });
  });

  it('disabling stops the output; enabling starts it again', async () => {
    const output = await createOutput({ type: 'LogFile', logFile: { fileName: 'toggled' } });
    const id = output['id'] as string;
    const url = `/api/v1/hosts/${hostId}/outputs/${id}`;
    await waitFor(
      () => agent.activity.outputs.logFileOutput(id),
      (o) => o !== undefined,
      10_000,
      'running',
    );
    expect((await call(agent, MH, 'PATCH', url, { body: { isEnabled: false } })).json!['isEnabled']).toBe(false);
    await waitFor(
      () => agent.activity.outputs.logFileOutput(id),
      (o) => o === undefined,
      10_000,
      'stopped',
    );
    const status = await waitFor(
      async () => (await call(agent, ['read'], 'GET', url)).json!['status'] as { summary: string },
      (s) => s.summary === 'Disabled',
      10_000,
      'the Disabled status',
    );
    expect(status.summary).toBe('Disabled');
    await call(agent, MH, 'PATCH', url, { body: { isEnabled: true } });
    await waitFor(
      () => agent.activity.outputs.logFileOutput(id),
      (o) => o !== undefined,
      10_000,
      'running again',
    );
    const history = await call(agent, ['accessActivityData'], 'GET', `${url}/statusHistory`);
    expect(history.status).toBe(200);
    for (const item of listOf(history)) conforms(statusSchema, item);
    expect(listOf(history).map((s) => s['summary'])).toContain('Disabled');
  });

  it('turns a LogFile output into a Syslog output only with syslog options', async () => {
    const output = await createOutput({ type: 'LogFile', logFile: { fileName: 'retyped' } });
    const url = `/api/v1/hosts/${hostId}/outputs/${output['id'] as string}`;
    const missing = await call(agent, MH, 'PATCH', url, { body: { type: 'Syslog' } });
    expect(missing.status).toBe(400);
    expect(missing.json).toMatchObject({ field: 'syslog' });
    // Choosing a Syslog destination needs Access activity data too (docs/permissions.md).
    const done = await call(agent, [...MH, 'accessActivityData'], 'PATCH', url, {
      body: { type: 'Syslog', syslog: { server: '[::1]:6514', protocol: 'TCP', separator: 'Lf' }, logFile: null },
    });
    expect(done.status, done.text).toBe(200);
    expect(done.json).toMatchObject({
      type: 'Syslog',
      logsUrl: null,
      syslog: { server: '[::1]:6514', protocol: 'TCP' },
    });
    expect(done.json!['logFile']).toBeUndefined();
  });

  it.each([
    [{ type: 'Amqp' }, 'type', /cannot send to a Amqp output/],
    [{}, 'type'],
    [{ type: 'Syslog' }, 'syslog', /needs syslog options/],
    [{ type: 'Syslog', syslog: { server: 'no port' } }, 'syslog.server', /HOST:PORT/],
    [{ type: 'Syslog', syslog: { server: 'h:514', protocol: 'SCTP' } }, 'syslog.protocol'],
    [{ type: 'LogFile', logFile: { format: 'Csv' } }, 'logFile.format'],
    [{ type: 'LogFile', logFile: { fileName: '../escape' } }, 'logFile.fileName'],
    [{ type: 'LogFile', fileFilter: { operations: ['Deleted'] } }, 'fileFilter.operations[0]'],
    [{ type: 'LogFile', fileFilter: { excludeExtensions: ['a/b'] } }, 'fileFilter.excludeExtensions[0]'],
    [{ type: 'LogFile', logsUrl: 'x' }, 'logsUrl', /read-only/],
    [{ type: 'LogFile', agentIds: [] }, 'agentIds', /unknown field/],
  ])('refuses %j naming %s', async (body, field, message?: RegExp) => {
    const response = await call(agent, MH, 'POST', `/api/v1/hosts/${hostId}/outputs`, { body });
    expect(response.status, response.text).toBe(400);
    expect(response.json).toMatchObject({ error: 'invalid_request', field });
    if (message) expect(response.json!['error_description']).toMatch(message);
  });

  it('an output is found only under its own host; an unknown host is 404', async () => {
    const output = await createOutput({ type: 'LogFile', logFile: { fileName: 'mine' } });
    const other = agent.settings.current.hosts.find((h) => h.id !== hostId)!.id;
    expect(
      (await call(agent, ['read'], 'GET', `/api/v1/hosts/${other}/outputs/${output['id'] as string}`)).status,
    ).toBe(404);
    expect((await call(agent, MH, 'DELETE', `/api/v1/hosts/${other}/outputs/${output['id'] as string}`)).status).toBe(
      404,
    );
    expect(
      (await call(agent, MH, 'POST', '/api/v1/hosts/no-such-host/outputs', { body: { type: 'LogFile' } })).status,
    ).toBe(404);
    expect((await call(agent, ['read'], 'GET', '/api/v1/hosts/no-such-host/outputs')).status).toBe(404);
  });

  it('deletes an output: 204, gone from settings, lists and the output manager', async () => {
    const output = await createOutput({ type: 'LogFile', logFile: { fileName: 'deleted' } });
    const id = output['id'] as string;
    await waitFor(
      () => agent.activity.outputs.logFileOutput(id),
      (o) => o !== undefined,
      10_000,
      'running',
    );
    expect((await call(agent, MH, 'DELETE', `/api/v1/hosts/${hostId}/outputs/${id}`)).status).toBe(204);
    expect((await call(agent, ['read'], 'GET', `/api/v1/outputs/${id}`)).status).toBe(404);
    await waitFor(
      () => agent.activity.outputs.logFileOutput(id),
      (o) => o === undefined,
      10_000,
      'stopped',
    );
  });
});

describe('domain outputs', () => {
  it('creates, lists, changes and deletes outputs of a domain; a new one runs and lists no files yet', async () => {
    const output = await createOutput(
      { type: 'LogFile', logFile: { fileName: 'corp' } },
      `/api/v1/domains/${domainId}`,
    );
    const id = output['id'] as string;
    expect(output).toMatchObject({ hostId: null, hostUrl: null, domainId, statusHistoryUrl: null });
    expect(output['url']).toBe(`https://127.0.0.1:${agent.ports.api}/api/v1/domains/${domainId}/outputs/${id}`);
    // The output manager runs it (directory records reach it: directory-outputs.test.ts).
    await waitFor(
      () => agent.activity.outputs.logFileOutput(id),
      (o) => o !== undefined,
      10_000,
      'running',
    );
    const running = await call(agent, ['read'], 'GET', `/api/v1/domains/${domainId}/outputs/${id}`);
    expect(running.json!['status']).toMatchObject({ type: 'OK', summary: 'Writing log files' });
    const list = listOf(await call(agent, ['read'], 'GET', `/api/v1/domains/${domainId}/outputs`));
    expect(list.map((o) => o['id'])).toEqual([id]);
    const domain = await call(agent, ['read'], 'GET', `/api/v1/domains/${domainId}`);
    expect((domain.json!['outputs'] as Array<{ id: string }>).map((o) => o.id)).toEqual([id]);
    expect(listOf(await call(agent, ['read'], 'GET', '/api/v1/outputs')).map((o) => o['id'])).toContain(id);
    expect((await call(agent, ['read'], 'GET', `/api/v1/logs/${id}`)).text).toBe('[]');
    const url = `/api/v1/domains/${domainId}/outputs/${id}`;
    expect((await call(agent, MH, 'PATCH', url, { body: { isEnabled: false } })).json!['status']).toMatchObject({
      summary: 'Disabled',
    });
    // Not under a host, and not under another domain.
    expect((await call(agent, ['read'], 'GET', `/api/v1/hosts/${hostId}/outputs/${id}`)).status).toBe(404);
    expect((await call(agent, MH, 'DELETE', url)).status).toBe(204);
    expect(agent.settings.current.domainOutputs).toEqual([]);
  });

  it('an unknown domain is 404', async () => {
    expect((await call(agent, MH, 'POST', '/api/v1/domains/NOPE/outputs', { body: { type: 'LogFile' } })).status).toBe(
      404,
    );
  });
});
