/**
 * Log files in the console: list them per output, read ranges of lines (also of a
 * zipped day and filtered), follow today's file over Server-Sent Events, download with Range.
 * Ids are file names; anything else is not found, and so is a symbolic link (F18 in
 * docs/security.md).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import type { LogFileView, LogLinesResponse } from '../../shared/console-api.js';
import { zipLogFile } from '../../agent/outputs/log-file-io.js';
import { consoleRequest, withToken } from '../helpers/console-client.js';
import { SseReader } from '../helpers/sse-client.js';
import { startTestAgent } from '../helpers/test-agent.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { monitorFolders, TEST_TIMINGS, waitFor } from '../helpers/activity.js';

let agent: TestAgent;
let watched: string;
let today: LogFileView;

const get = (p: string): ReturnType<typeof consoleRequest> =>
  consoleRequest(agent, { path: p, headers: withToken(agent) });
const lines = async (id: string, query: string): Promise<LogLinesResponse> => {
  const response = await get(`/api/log-files/${encodeURIComponent(id)}/lines?${query}`);
  expect(response.status, response.text).toBe(200);
  return JSON.parse(response.text) as LogLinesResponse;
};
const fileLines = (id: string): string[] =>
  fs.readFileSync(path.join(agent.paths.logs, id), 'utf8').split('\n').slice(0, -1);

beforeAll(async () => {
  agent = await startTestAgent({ activity: TEST_TIMINGS });
  watched = makeTempDir('vigil-watched-');
  await monitorFolders(agent, [watched]);
  for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(watched, `file-${i}.txt`), 'x');
  fs.writeFileSync(path.join(watched, 'Quarterly REPORT.txt'), 'x');
  const list = await waitFor(
    async () => JSON.parse((await get('/api/log-files')).text) as LogFileView[],
    (l) => l.length === 1 && fileLines(l[0]!.id).length >= 31,
    15_000,
    "today's log file with 31 lines",
  );
  today = list[0]!;
});
afterAll(() => agent.stop());

describe('listing', () => {
  it("lists today's file of the output as the current one; another output has none", async () => {
    const outputId = agent.settings.current.outputs[0]!.id;
    expect(today).toMatchObject({ outputId, type: 'Tsv', isZip: false, current: true });
    expect(today.id).toMatch(/_Log_\d{8}\.tsv$/);
    const mine = JSON.parse((await get(`/api/log-files?outputId=${outputId}`)).text) as LogFileView[];
    expect(mine.map((f) => f.id)).toEqual([today.id]);
    expect(JSON.parse((await get('/api/log-files?outputId=other')).text)).toEqual([]);
  });
});

describe('reading lines', () => {
  it('returns any range of lines as they are in the file, numbered from 0', async () => {
    const expected = fileLines(today.id);
    const all = await lines(today.id, 'from=0&count=1000');
    expect(all.totalLines).toBe(expected.length);
    expect(all.lines.map((l) => l.text)).toEqual(expected);
    expect(all.lines.map((l) => l.n)).toEqual(expected.map((_, i) => i));
    const middle = await lines(today.id, 'from=5&count=3');
    expect(middle).toMatchObject({ from: 5, totalLines: expected.length, filter: null });
    expect(middle.lines).toEqual([5, 6, 7].map((n) => ({ n, text: expected[n] })));
    expect((await lines(today.id, `from=${expected.length + 10}&count=5`)).lines).toEqual([]);
  });

  it('filters lines by text, ignoring case; numbers stay those of the file', async () => {
    const expected = fileLines(today.id);
    const found = await lines(today.id, 'from=0&count=100&filter=quarterly%20report');
    const n = expected.findIndex((l) => l.includes('Quarterly REPORT.txt'));
    expect(found).toMatchObject({ totalLines: 1, filter: 'quarterly report' });
    expect(found.lines).toEqual([{ n, text: expected[n] }]);
    const many = await lines(today.id, 'from=2&count=3&filter=FILE-');
    expect(many.totalLines).toBe(30);
    expect(many.lines.map((l) => l.text)).toEqual(expected.filter((l) => l.includes('file-')).slice(2, 5));
  });

  it.each([
    ['from=-1', 'from'],
    ['count=5000', 'count'],
    ['count=abc', 'count'],
    [`filter=${'x'.repeat(201)}`, 'filter'],
  ])('refuses %s naming %s', async (query, field) => {
    const response = await get(`/api/log-files/${encodeURIComponent(today.id)}/lines?${query}`);
    expect(response.status).toBe(400);
    expect(response.json?.['field']).toBe(field);
  });

  it.each(['settings.json', '..%2Fsettings.json', '%2Fetc%2Fpasswd', 'host_Log_20260101.tsv', 'x_Log_2026.tsv'])(
    'answers 404 for %s (only log file names of the logs folder)',
    async (id) => {
      for (const suffix of ['lines', 'content', 'follow']) {
        const response = await get(`/api/log-files/${id}/${suffix}`);
        expect(response.status, `${id}/${suffix}`).toBe(404);
        expect(response.json?.['error']).toBe('not_found');
      }
    },
  );

  it('reads a zipped day the same way, and filters it', async () => {
    const base = today.id.replace(/_Log_\d{8}\.tsv$/, '');
    const day = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10).replace(/-/g, '');
    const name = `${base}_Log_${day}.tsv`;
    const content = Array.from(
      { length: 5000 },
      (_, i) => `2026-01-01T00:00:00Z\tline ${i}${i % 1000 === 7 ? ' needle' : ''}`,
    );
    fs.writeFileSync(path.join(agent.paths.logs, name), content.join('\n') + '\n');
    await zipLogFile(path.join(agent.paths.logs, name), { activityFrom: null, activityTo: null });
    const list = JSON.parse((await get('/api/log-files')).text) as LogFileView[];
    expect(list.find((f) => f.id === `${name}.zip`)).toMatchObject({ isZip: true, current: false });
    const page = await lines(`${name}.zip`, 'from=4990&count=20');
    expect(page.totalLines).toBe(5000);
    expect(page.lines.map((l) => l.text)).toEqual(content.slice(4990));
    const filtered = await lines(`${name}.zip`, 'from=0&count=10&filter=NEEDLE');
    expect(filtered.lines.map((l) => l.n)).toEqual([7, 1007, 2007, 3007, 4007]);
  });
});

describe('follow mode', () => {
  it("sends new lines of today's file as they are written", async () => {
    const before = fileLines(today.id).length;
    const stream = await SseReader.open(agent, `/api/log-files/${encodeURIComponent(today.id)}/follow?after=${before}`);
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
      fs.writeFileSync(path.join(watched, 'followed.txt'), 'x');
      const event = await stream.waitFor('lines', (d) =>
        (d as LogLinesResponse).lines.some((l) => l.text.includes('followed.txt')),
      );
      const data = event.data as LogLinesResponse;
      expect(data.from).toBe(before);
      expect(data.lines[0]!.n).toBe(before);
    } finally {
      stream.close();
    }
  });

  it('ends open streams when the agent stops', async () => {
    const other = await startTestAgent({ activity: TEST_TIMINGS });
    const stream = await SseReader.open(other, '/api/activity/feed', withToken(other));
    await stream.waitFor('ready');
    const started = Date.now();
    await other.stop();
    await stream.waitForEnd();
    expect(Date.now() - started).toBeLessThan(1500); // not the listener's 2 s grace
  });
});

describe('download', () => {
  it('streams the file as an attachment and honours Range', async () => {
    const id = encodeURIComponent(today.id);
    const expected = fs.readFileSync(path.join(agent.paths.logs, today.id), 'utf8');
    const whole = await get(`/api/log-files/${id}/content`);
    expect(whole.status).toBe(200);
    expect(whole.headers['content-disposition']).toBe(`attachment; filename="${today.id}"`);
    expect(whole.headers['content-type']).toMatch(/^text\/tab-separated-values/);
    expect(whole.text.startsWith(expected)).toBe(true); // the file may have grown since
    const part = await consoleRequest(agent, {
      path: `/api/log-files/${id}/content`,
      headers: withToken(agent, { Range: 'bytes=0-9' }),
    });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toMatch(/^bytes 0-9\/\d+$/);
    expect(part.text).toBe(expected.slice(0, 10));
    const beyond = await consoleRequest(agent, {
      path: `/api/log-files/${id}/content`,
      headers: withToken(agent, { Range: 'bytes=99999999-' }),
    });
    expect(beyond.status).toBe(416);
  });

  it('refuses a symbolic link named like a log file: 404, and the target is never served', async () => {
    const secret = path.join(makeTempDir('vigil-secret-'), 'secret.txt');
    fs.writeFileSync(secret, 'TOP SECRET CONTENT\n');
    const linkId = 'h_Log_20200101.tsv';
    fs.symlinkSync(secret, path.join(agent.paths.logs, linkId));
    try {
      for (const headers of [{}, { Range: 'bytes=0-9' }] as Array<Record<string, string>>) {
        const response = await consoleRequest(agent, {
          path: `/api/log-files/${linkId}/content`,
          headers: withToken(agent, headers),
        });
        expect(response.status).toBe(404);
        expect(response.json?.['error']).toBe('not_found');
        expect(response.text).not.toContain('TOP SECRET');
      }
    } finally {
      fs.unlinkSync(path.join(agent.paths.logs, linkId));
    }
  });

  it('never serves the target of a link swapped in after the name was checked', async () => {
    // A check by name and then an open by name leaves a window: the file can be a regular
    // file at the check and a symbolic link at the open. Another process swaps the two.
    const secret = path.join(makeTempDir('vigil-secret-'), 'secret.txt');
    fs.writeFileSync(secret, 'TOP SECRET CONTENT\n');
    const id = 'h_Log_20200102.tsv';
    const logs = agent.paths.logs;
    fs.writeFileSync(path.join(logs, '.swap-file'), 'an ordinary log line\n');
    fs.symlinkSync(secret, path.join(logs, '.swap-link'));
    const swapper = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('node:fs'); const [dir, id] = process.argv.slice(1);
         const at = (n) => dir + '/' + n;
         const end = Date.now() + 20000;
         while (Date.now() < end) for (const n of ['.swap-file', '.swap-link']) {
           fs.renameSync(at(n), at(id)); fs.renameSync(at(id), at(n));
         }`,
        logs,
        id,
      ],
      { stdio: 'ignore' },
    );
    try {
      const statuses = new Set<number>();
      for (let i = 0; i < 150; i++) {
        const response = await consoleRequest(agent, {
          path: `/api/log-files/${id}/content`,
          headers: withToken(agent),
        });
        statuses.add(response.status);
        expect(response.text, `request ${i}`).not.toContain('TOP SECRET');
      }
      expect([...statuses].every((status) => status === 200 || status === 404)).toBe(true);
    } finally {
      if (swapper.exitCode === null) {
        const exited = new Promise((resolve) => swapper.once('exit', resolve));
        swapper.kill();
        await exited;
      }
      for (const name of ['.swap-file', '.swap-link', id]) fs.rmSync(path.join(logs, name), { force: true });
    }
  });
});
