/**
 * Log file sidecars in a running agent (docs/integrity.md, docs/agent-api.md, docs/console.md):
 * the sidecar of today's file downloads through the agent API and the console without being
 * listed as a log file of its own, and the console shows the last verification and runs one in
 * the background: intact at first, the changed line named after a byte of the log was flipped.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogFileView, VerificationState } from '../../shared/console-api.js';
import { monitorFolders, TEST_TIMINGS, waitFor } from '../helpers/activity.js';
import { consoleRequest, withToken } from '../helpers/console-client.js';
import { call, listOf } from '../helpers/resource-client.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';

let agent: TestAgent;
let logFile = '';

beforeAll(async () => {
  agent = await startTestAgent({ activity: TEST_TIMINGS });
  const watched = makeTempDir('vigil-sidecar-');
  await monitorFolders(agent, [watched]);
  for (let i = 0; i < 5; i++) fs.writeFileSync(path.join(watched, `file-${i}.txt`), `content ${i}`);
  logFile = await waitFor(
    () => fs.readdirSync(agent.paths.logs).find((name) => /_Log_\d{8}\.(tsv|json)$/.test(name)) ?? '',
    (name) => name !== '' && fs.readFileSync(path.join(agent.paths.logs, name), 'utf8').split('\n').length > 5,
    15_000,
    'log lines',
  );
});
afterAll(() => agent.stop());

async function consoleGet(pathname: string, method = 'GET'): Promise<{ status: number; text: string; type: string }> {
  const response = await consoleRequest(agent, { method, path: pathname, headers: withToken(agent) });
  return { status: response.status, text: response.text, type: String(response.headers['content-type']) };
}

describe('the sidecar of a log file', () => {
  it('downloads through the agent API as {fileId}.sig, and is not listed as a log file', async () => {
    const outputId = agent.settings.current.outputs[0]!.id;
    const listed = listOf(await call(agent, ['read'], 'GET', `/api/v1/logs/${outputId}`)).map((f) => f['id']);
    expect(listed).toEqual([logFile]);
    const response = await call(agent, ['accessActivityData'], 'GET', `/api/v1/logs/get/${logFile}.sig`);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    expect(JSON.parse(response.text.split('\n')[0]!)).toEqual({ sidecar: 'vigil-log', version: 1, file: logFile });
    // Reading it needs the same permission as the file (docs/agent-api.md: 401 for Read).
    expect((await call(agent, ['read'], 'GET', `/api/v1/logs/get/${logFile}.sig`)).status).toBe(401);
  });

  it('is offered beside its file in the console', async () => {
    const files = JSON.parse((await consoleGet('/api/log-files')).text) as LogFileView[];
    expect(files.map((f) => [f.id, f.sidecarId])).toEqual([[logFile, `${logFile}.sig`]]);
    const content = await consoleGet(`/api/log-files/${encodeURIComponent(`${logFile}.sig`)}/content`);
    expect(content.status).toBe(200);
    expect(content.text.split('\n')[0]).toContain('"sidecar":"vigil-log"');
  });
});

describe('the console verification', () => {
  async function verifyNow(): Promise<VerificationState> {
    const started = await consoleGet('/api/verification', 'POST');
    expect(started.status).toBe(202);
    return waitFor(
      async () => JSON.parse((await consoleGet('/api/verification')).text) as VerificationState,
      (state) => !state.running && state.last !== null && state.last.time !== before,
      30_000,
      'the verification',
    );
  }
  let before: string | undefined;

  it('shows no verification at first, with the public key to keep', async () => {
    const state = JSON.parse((await consoleGet('/api/verification')).text) as VerificationState;
    expect(state).toMatchObject({ last: null, running: false, failure: null });
    expect(state.publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(state.fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });

  it('runs one: the database and the log files are intact, and the outcome is kept in the data dir', async () => {
    const state = await verifyNow();
    expect(state.last).toMatchObject({ ok: true, problemCount: 0, logFiles: 1 });
    expect(state.last!.records).toBeGreaterThan(0);
    expect(state.last!.logLines).toBeGreaterThanOrEqual(5);
    const kept = JSON.parse(fs.readFileSync(path.join(agent.dataDir, 'last-verification.json'), 'utf8')) as unknown;
    expect(kept).toEqual(state.last);
    before = state.last!.time;
  });

  it('names the line of the log file whose byte was flipped', async () => {
    const file = path.join(agent.paths.logs, logFile);
    const bytes = fs.readFileSync(file);
    const second = bytes.indexOf(0x0a) + 1;
    const at = bytes.indexOf('file-', second);
    bytes[at] = bytes[at]! ^ 0x20;
    fs.writeFileSync(file, bytes);
    const state = await verifyNow();
    expect(state.last).toMatchObject({ ok: false, problemCount: 1 });
    expect(state.last!.problems).toEqual([expect.objectContaining({ file: logFile, line: 2, kind: 'changed' })]);
  });
});
