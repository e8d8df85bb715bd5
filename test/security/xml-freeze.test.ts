/**
 * docs/security.md F2 over HTTP: its K×N documents (a root with K namespace
 * declarations over N children) sent to a running agent while the console is pinged every
 * 10 ms. Before the fix one 62 KB audit search stalled every listener 1.1 s and one 126 KB policy
 * 23 s (the agent is one thread); now each is refused with the right 400 while the console keeps
 * answering. The agent runs in its own process, so the test's own work (TLS, building bodies,
 * validating answers) is not what the pings measure.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, addUsersOffline, recordsNs, xmlError } from '../helpers/audit-fixture.js';
import { FORM_HEADERS, addClient, startAgentProcess, type AgentProcess } from '../helpers/agent-process.js';
import { makeTempDir } from '../helpers/temp-dir.js';

let agent: AgentProcess;
let policyToken: string;
const policiesPath = '/api/v1/domains/CORP/policies';
const READER = `reader:${PASSWORD}`;
const WRITER = `writer:${PASSWORD}`;
const XML = { 'Content-Type': 'application/xml; charset=UTF-8' };

const postPolicy = (body: string) =>
  agent.api({
    method: 'POST',
    path: policiesPath,
    headers: { Authorization: `Bearer ${policyToken}`, 'Content-Type': 'application/xml' },
    body,
  });

/**
 * The payload of docs/security.md F2: K ≈ bytes/28 declarations `xmlns:pNN="u"` on the root, then as many
 * children `<a/>` as fit in `bytes`.
 */
function kByN(bytes: number, root: string, rootNamespace = ''): string {
  const k = Math.floor(bytes / 28);
  let declarations = rootNamespace ? ` xmlns="${rootNamespace}"` : '';
  for (let i = 0; i < k; i++) declarations += ` xmlns:p${i.toString(36)}="u"`;
  const n = Math.floor((bytes - declarations.length - 2 * root.length - 5) / 4);
  return `<${root}${declarations}>${'<a/>'.repeat(n)}</${root}>`;
}

/** The limits a K×N document runs into first: declarations, or attributes on its root. */
const LIMIT_NAMED = /^0xC00CE577 .*more than \d+ (namespace declarations|attributes on one element)/;

/**
 * Pings the console's status every 10 ms from a worker thread while `work` runs, and returns the
 * worst latency seen. A thread of its own: the test's main thread is busy encrypting the large
 * bodies it sends, and that is not the agent's latency.
 */
const PINGER = `
const http = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
let running = true, worst = 0, failures = 0;
parentPort.on('message', () => { running = false; });
const ping = () => new Promise((resolve) => {
  const started = performance.now();
  const req = http.get({ host: '127.0.0.1', port: workerData.port, path: '/api/status',
    headers: { Authorization: 'Bearer ' + workerData.token } }, (res) => {
    res.resume();
    res.on('end', () => { if (res.statusCode !== 200) failures++; worst = Math.max(worst, performance.now() - started); resolve(); });
  });
  req.on('error', () => { failures++; resolve(); });
});
(async () => {
  while (running) { await ping(); await new Promise((r) => setTimeout(r, 10)); }
  parentPort.postMessage({ worst, failures });
})();
`;

async function worstPingWhile<T>(work: () => Promise<T>): Promise<{ result: T; worstMs: number }> {
  const token = fs.readFileSync(path.join(agent.dataDir, 'secrets', 'console-token'), 'utf8').trim();
  const pinger = new Worker(PINGER, { eval: true, workerData: { port: agent.ports.console, token } });
  const report = new Promise<{ worst: number; failures: number }>((resolve) => pinger.once('message', resolve));
  await new Promise((resolve) => setTimeout(resolve, 100)); // a few pings first
  try {
    const result = await work();
    await new Promise((resolve) => setTimeout(resolve, 50)); // and a few after
    pinger.postMessage('stop');
    const { worst, failures } = await report;
    expect(failures).toBe(0);
    return { result, worstMs: worst };
  } finally {
    await pinger.terminate();
  }
}

beforeAll(async () => {
  const dataDir = makeTempDir();
  fs.writeFileSync(
    path.join(dataDir, 'settings.json'),
    JSON.stringify({ domains: [{ id: 'CORP', name: 'corp.example.com', ldapServer: 'ldaps://dc1.corp.example.com' }] }),
  );
  await addUsersOffline(dataDir, [
    { name: 'reader', roles: ['reader'] },
    { name: 'writer', roles: ['contributor'] },
  ]);
  agent = await startAgentProcess({ dataDir });
  const client = await addClient(agent, ['policyChange']);
  const token = await agent.api({
    method: 'POST',
    path: '/api/v1/token',
    headers: {
      ...FORM_HEADERS,
      Authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
    },
    body: 'grant_type=client_credentials',
  });
  expect(token.status, token.text).toBe(200);
  policyToken = (JSON.parse(token.text) as { access_token: string }).access_token;
  // Log both audit users in first: scrypt is not what is timed.
  expect((await agent.audit({ path: 'activity_records/enum?count=1', auth: READER })).status).toBe(200);
  // A write over 64 KiB starts the parse worker; started here, its start-up is not timed either.
  const record = {
    Who: 'w',
    Action: 'Added',
    What: 'x'.repeat(70_000),
    When: '2026-11-20T10:00:00Z',
    Where: 'h',
    ObjectType: 'File',
  };
  const warm = await agent.audit({
    path: 'activity_records/?format=json',
    auth: WRITER,
    body: JSON.stringify([record]),
  });
  expect(warm.status, warm.text).toBe(200);
}, 60_000);
afterAll(() => agent?.stop());

describe('F2: K×N XML documents do not freeze the agent', () => {
  it('a 62 KB audit search from a reader: 400 XMLError naming the limit, console pings under 100 ms', async () => {
    const body = kByN(62 * 1024, 'ActivityRecordSearch', recordsNs());
    const { result, worstMs } = await worstPingWhile(() =>
      agent.audit({ path: 'activity_records/search', auth: READER, headers: XML, body }),
    );
    expect(result.status, result.text).toBe(400);
    const error = xmlError(result.text);
    expect(error.category).toBe('XMLError');
    expect(error.description).toMatch(LIMIT_NAMED);
    expect(worstMs).toBeLessThan(100);
  });

  it('a 126 KB policy from a Policy change client: 400 naming the xml field, console pings under 100 ms', async () => {
    const body = kByN(126 * 1024, 'Policy');
    const { result, worstMs } = await worstPingWhile(() => postPolicy(body));
    expect(result.status, result.text).toBe(400);
    const answer = JSON.parse(result.text) as Record<string, unknown>;
    expect(answer['field']).toBe('xml');
    expect(String(answer['error_description'])).toMatch(/more than \d+ (namespace declarations|attributes)/);
    expect(worstMs).toBeLessThan(100);
  });

  it('a policy over the size limit is refused before it is parsed', async () => {
    const res = await postPolicy(
      `<Policy><Name>big</Name><Description>${'x'.repeat(256 * 1024)}</Description></Policy>`,
    );
    expect(res.status, res.text).toBe(400);
    expect((JSON.parse(res.text) as Record<string, unknown>)['field']).toBe('xml');
  });

  it('a 4 MiB audit write from a contributor: 400 XMLError naming the limit within seconds (was the parse worker held to its 15 s timeout, then every pending write failed)', async () => {
    const body = kByN(4 * 1024 * 1024, 'ActivityRecordList', recordsNs());
    expect(body.length).toBeLessThanOrEqual(4 * 1024 * 1024);
    const started = performance.now();
    const { result, worstMs } = await worstPingWhile(() =>
      agent.audit({ path: 'activity_records/', auth: WRITER, headers: XML, body }),
    );
    expect(result.status, result.text).toBe(400);
    expect(xmlError(result.text).description).toMatch(LIMIT_NAMED);
    expect(performance.now() - started).toBeLessThan(5000);
    // Large writes are parsed on a worker thread; what the agent's own thread does is receive
    // 4 MiB over TLS, which on a machine shared with other work took up to 270 ms.
    expect(worstMs).toBeLessThan(500);
    // The agent still takes writes afterwards (the parse worker was not tied up or killed).
    const record = {
      Who: 'w',
      Action: 'Added',
      What: 'x',
      When: '2026-11-20T10:00:00Z',
      Where: 'h',
      ObjectType: 'File',
    };
    const ok = await agent.audit({
      path: 'activity_records/?format=json',
      auth: WRITER,
      body: JSON.stringify([record]),
    });
    expect(ok.status, ok.text).toBe(200);
  });
});
