/**
 * Log files through the agent API over real HTTPS (docs/activity-pipeline.md): listing the files of
 * a LogFile output (Read, Access activity data), downloading one (Access activity data only):
 * streamed, attachment, one byte range (206, 416), If-Range, HEAD; ids that are not a log file
 * of this agent (traversal, separators, encodings, symbolic links) get 404 without any file
 * outside the logs folder being opened; an aborted download releases its file descriptor.
 */
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { localHostType } from '../../agent/config/monitoring-schema.js';
import { logFileViewSchema } from '../../agent/api/schemas/log-file-schemas.js';
import { utcDay } from '../../agent/outputs/log-file-names.js';
import { zipLogFile } from '../../agent/outputs/log-file-io.js';
import { waitFor } from '../helpers/activity.js';
import { call, conforms, listOf, tokenFor } from '../helpers/resource-client.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { startTestAgent } from '../helpers/test-agent.js';

const AAD = ['accessActivityData'] as const;
let agent: TestAgent;
let outputId = '';
let logsDir = '';
let today = '';
const BIG = 'dl_Log_20250101.tsv';
const ZIP = 'dl_Log_20250102.tsv.zip';
const LINK = 'dl_Log_20250103.tsv';

function tsvLines(count: number, day: string): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const second = String(i % 60).padStart(2, '0');
    lines.push(`${day}T10:00:${second}.000Z\thost\t1000\tAdd\tFILE\t/srv/data/file-${i}.txt\t\t\thost\\user`);
  }
  return `${lines.join('\n')}\n`;
}

beforeAll(async () => {
  agent = await startTestAgent();
  logsDir = agent.paths.logs;
  fs.mkdirSync(logsDir, { recursive: true });
  // Earlier days of the same output: a large plain file and a compressed one.
  fs.writeFileSync(path.join(logsDir, BIG), tsvLines(400_000, '2025-01-01'));
  fs.writeFileSync(path.join(logsDir, 'dl_Log_20250102.tsv'), tsvLines(10, '2025-01-02'));
  await zipLogFile(path.join(logsDir, 'dl_Log_20250102.tsv'), {
    activityFrom: '2025-01-02T10:00:00.000Z',
    activityTo: '2025-01-02T10:00:09.000Z',
  });

  const watched = makeTempDir('vigil-watch-');
  const created = await call(
    agent,
    ['modifyHost', 'accessActivityData'],
    'POST',
    `/api/v1/agents/${agent.agentId}/hosts`,
    {
      body: {
        host: 'download-host',
        type: localHostType(),
        includePaths: [watched],
        outputs: [
          { type: 'LogFile', logFile: { fileName: 'dl', zipClosedFiles: false, daysToRetain: 3650 } },
          { type: 'Syslog', syslog: { server: '127.0.0.1:5514' } },
        ],
      },
    },
  );
  expect(created.status, created.text).toBe(201);
  outputId = (created.json!['outputs'] as Array<{ id: string }>)[0]!.id;
  const hostId = created.json!['id'] as string;
  await waitFor(
    () => agent.activity.monitor.source(hostId),
    (s) => s !== undefined,
    10_000,
    'monitoring',
  );
  await agent.activity.monitor.ready();
  for (let i = 0; i < 3; i++) fs.writeFileSync(path.join(watched, `new-${i}.txt`), `content ${i}`);
  today = `dl_Log_${utcDay(Date.now())}.tsv`;
  await waitFor(
    () => (fs.existsSync(path.join(logsDir, today)) ? fs.readFileSync(path.join(logsDir, today), 'utf8') : ''),
    (text) => text.split('\n').length > 3,
    15_000,
    'log lines for the new files',
  );
  // A symbolic link dressed as a log file, pointing out of the folder.
  fs.symlinkSync(agent.settings.file, path.join(logsDir, LINK));
});
afterAll(() => agent.stop());

async function download(
  permissions: readonly ('accessActivityData' | 'read' | 'modifyHost')[],
  id: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  const token = await tokenFor(agent, permissions);
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port: agent.ports.api,
        method,
        path: `/api/v1/logs/get/${id}`,
        headers: { Authorization: `Bearer ${token}`, ...headers },
        ca: agent.identity.certPem,
        timeout: 20_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('listing', () => {
  it('lists the files of a LogFile output, newest first, for Read and Access activity data', async () => {
    for (const permissions of [['read'], ['accessActivityData']] as const) {
      const response = await call(agent, permissions, 'GET', `/api/v1/logs/${outputId}`);
      expect(response.status, response.text).toBe(200);
      const files = listOf(response).map((f) => conforms(logFileViewSchema, f));
      expect(files.map((f) => f.id)).toEqual([today, ZIP, BIG]);
      const big = files.find((f) => f.id === BIG)!;
      expect(big).toMatchObject({
        size: fs.statSync(path.join(logsDir, BIG)).size,
        localPath: path.join(logsDir, BIG),
        isZip: false,
        isArchived: false,
        type: 'Tsv',
        activityFrom: '2025-01-01T10:00:00.000Z',
        activityTo: '2025-01-01T10:00:39.000Z', // line 399,999: second 39
        outputId,
      });
      expect(big.contentUrl).toBe(`https://127.0.0.1:${agent.ports.api}/api/v1/logs/get/${BIG}`);
      expect(files.find((f) => f.id === ZIP)).toMatchObject({ isZip: true, activityFrom: '2025-01-02T10:00:00.000Z' });
    }
  });

  it('answers the query parameters', async () => {
    const url = `/api/v1/logs/${outputId}`;
    expect((await call(agent, ['read'], 'GET', `${url}?includeLocal=false`)).text).toBe('[]');
    expect(listOf(await call(agent, ['read'], 'GET', `${url}?includeLocal=TRUE&includeArchived=true`))).toHaveLength(3);
    for (const [query, field] of [
      ['includeLocal=1', 'includeLocal'],
      ['includeArchived=yes', 'includeArchived'],
      ['includeLocal=true&includeLocal=false', 'includeLocal'],
      ['includeArchive=true', 'includeArchive'],
    ]) {
      const response = await call(agent, ['read'], 'GET', `${url}?${query}`);
      expect({ query, status: response.status, field: response.json?.['field'] }).toEqual({
        query,
        status: 400,
        field,
      });
    }
  });

  it('lists nothing for a Syslog output; an unknown output is 404 for Read and 401 for Access activity data', async () => {
    const syslog = agent.settings.current.outputs.find((o) => o.type === 'Syslog')!.id;
    expect((await call(agent, ['read'], 'GET', `/api/v1/logs/${syslog}`)).text).toBe('[]');
    expect((await call(agent, ['read'], 'GET', '/api/v1/logs/no-such-output')).status).toBe(404);
    expect((await call(agent, AAD, 'GET', '/api/v1/logs/no-such-output')).status).toBe(401);
    expect((await call(agent, ['modifyHost'], 'GET', `/api/v1/logs/${outputId}`)).status).toBe(401);
  });
});

describe('statistics', () => {
  it('the host and its output count what the pipeline wrote', async () => {
    const host = await call(
      agent,
      ['read'],
      'GET',
      `/api/v1/hosts/${agent.settings.current.outputs.find((o) => o.id === outputId)!.hostId}`,
    );
    expect((host.json!['stats'] as { receivedCount: number }).receivedCount).toBeGreaterThanOrEqual(3);
    const output = await call(agent, ['read'], 'GET', `/api/v1/outputs/${outputId}`);
    const stats = output.json!['stats'] as {
      reportedCount: number;
      filesCount: number;
      filesSize: number;
      lastEventTime: string;
    };
    expect(stats.reportedCount).toBeGreaterThanOrEqual(3);
    expect(stats.filesCount).toBeGreaterThanOrEqual(1);
    expect(stats.filesSize).toBeGreaterThan(0);
    expect(stats.lastEventTime).toMatch(/^\d{4}-/);
  });
});

describe('downloading', () => {
  it('streams the whole file as an attachment to Access activity data', async () => {
    const response = await download(AAD, today);
    expect(response.status).toBe(200);
    expect(response.body.equals(fs.readFileSync(path.join(logsDir, today)))).toBe(true);
    expect(response.headers['content-disposition']).toBe(`attachment; filename="${today}"`);
    expect(response.headers['content-type']).toBe('text/tab-separated-values; charset=utf-8');
    expect(response.headers['accept-ranges']).toBe('bytes');
    expect(response.headers['content-length']).toBe(String(response.body.length));
    expect(response.headers['etag']).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    const zip = await download(AAD, ZIP);
    expect(zip.headers['content-type']).toBe('application/zip');
    expect(zip.body.subarray(0, 2).toString()).toBe('PK');
  });

  it('refuses Read and the other permissions with 401', async () => {
    for (const permissions of [['read'], ['modifyHost']] as const) {
      const response = await download(permissions, today);
      expect(response.status).toBe(401);
      expect(JSON.parse(response.body.toString())).toMatchObject({ error: 'insufficient_permission' });
    }
  });

  it('serves one byte range with 206, 416 for none in the file, the whole file for several', async () => {
    const whole = fs.readFileSync(path.join(logsDir, BIG));
    const size = whole.length;
    const first = await download(AAD, BIG, { Range: 'bytes=0-99' });
    expect(first.status).toBe(206);
    expect(first.headers['content-range']).toBe(`bytes 0-99/${size}`);
    expect(first.body.equals(whole.subarray(0, 100))).toBe(true);
    const middle = await download(AAD, BIG, { Range: `bytes=${size - 1000}-${size + 50}` });
    expect(middle.status).toBe(206);
    expect(middle.body.equals(whole.subarray(size - 1000))).toBe(true);
    const suffix = await download(AAD, BIG, { Range: 'bytes=-10' });
    expect(suffix.body.equals(whole.subarray(size - 10))).toBe(true);
    const beyond = await download(AAD, BIG, { Range: `bytes=${size}-` });
    expect(beyond.status).toBe(416);
    expect(beyond.headers['content-range']).toBe(`bytes */${size}`);
    expect(JSON.parse(beyond.body.toString())).toMatchObject({ error: 'range_not_satisfiable' });
    const several = await download(AAD, BIG, { Range: 'bytes=0-9, 20-29' });
    expect(several.status).toBe(200);
    expect(several.body.length).toBe(size);
  });

  it('applies If-Range only while the file is unchanged; HEAD has the headers and no body', async () => {
    const head = await download(AAD, BIG, {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    const size = fs.statSync(path.join(logsDir, BIG)).size;
    expect(head.headers['content-length']).toBe(String(size));
    const etag = head.headers['etag'] as string;
    expect((await download(AAD, BIG, { Range: 'bytes=0-9', 'If-Range': etag })).status).toBe(206);
    const stale = await download(AAD, BIG, { Range: 'bytes=0-9', 'If-Range': '"0-0"' });
    expect(stale.status).toBe(200);
    expect(stale.body.length).toBe(size);
    const partialHead = await download(AAD, BIG, { Range: 'bytes=0-9' }, 'HEAD');
    expect(partialHead.status).toBe(206);
    expect(partialHead.headers['content-length']).toBe('10');
  });

  it('does not hold the file in memory, and releases the descriptor when the client goes away', async () => {
    const token = await tokenFor(agent, AAD);
    const fds = (): number => fs.readdirSync('/proc/self/fd').length;
    const fdsBefore = fds();
    const memoryBefore = process.memoryUsage().arrayBuffers;
    const size = fs.statSync(path.join(logsDir, BIG)).size;
    expect(size).toBeGreaterThan(30 * 1024 * 1024);
    await new Promise<void>((resolve, reject) => {
      const req = https.get(
        {
          host: '127.0.0.1',
          port: agent.ports.api,
          path: `/api/v1/logs/get/${BIG}`,
          headers: { Authorization: `Bearer ${token}` },
          ca: agent.identity.certPem,
          agent: false,
        },
        (res) => {
          res.once('data', () => {
            res.pause(); // a slow client: the agent must wait, not read the file ahead into memory
            setTimeout(() => {
              const grown = process.memoryUsage().arrayBuffers - memoryBefore;
              try {
                expect(grown).toBeLessThan(size / 4);
                resolve();
              } catch (error) {
                reject(error as Error);
              } finally {
                req.destroy();
              }
            }, 400);
          });
        },
      );
      req.on('error', () => undefined);
    });
    await waitFor(fds, (n) => n <= fdsBefore, 5_000, 'the file descriptor to be closed');
  });
});

describe('ids that are not a log file of this agent', () => {
  const ATTEMPTS = [
    '..%2Fsettings.json',
    '..%2F..%2F..%2Fetc%2Fpasswd',
    '%2e%2e%2fsettings.json',
    '%2E%2E%5Csettings.json',
    '..%5C..%5Csettings.json',
    '%2Fetc%2Fpasswd',
    encodeURIComponent(path.join(logsDir || '/tmp', BIG)),
    'settings.json',
    '..',
    '.',
    '%252e%252e%252fsettings.json',
    `${BIG}%00.zip`,
    `${BIG}%2F..`,
    `dl_Log_20250101.tsv.`,
    'dl_Log_2025010.tsv',
    'dl_Log_20250199.TSV',
  ];

  /** Runs `request` and returns every path the agent opened meanwhile (it runs in this process). */
  async function opening(request: () => Promise<unknown>): Promise<string[]> {
    const opened: string[] = [];
    const spy = vi.spyOn(fs.promises, 'open').mockImplementation((...args: Parameters<typeof open>) => {
      opened.push(String(args[0]));
      return open(...args);
    });
    try {
      await request();
    } finally {
      spy.mockRestore();
    }
    return opened;
  }

  it('(control: a real download is seen opening its file)', async () => {
    expect(await opening(() => download(AAD, BIG, { Range: 'bytes=0-0' }))).toEqual([path.join(logsDir, BIG)]);
  });

  it.each(ATTEMPTS)('%s → 404 without opening anything', async (id) => {
    let status = 0;
    let body = '';
    const opened = await opening(async () => {
      const response = await download(AAD, id);
      status = response.status;
      body = response.body.toString();
    });
    expect(status).toBe(404);
    expect(JSON.parse(body)).toMatchObject({ error: 'not_found' });
    expect(opened).toEqual([]);
  });

  it('a symbolic link in the logs folder is neither listed nor followed', async () => {
    const response = await download(AAD, LINK);
    expect(response.status).toBe(404);
    expect(response.body.toString()).not.toContain('clients');
    const files = listOf(await call(agent, ['read'], 'GET', `/api/v1/logs/${outputId}`));
    expect(files.map((f) => f['id'])).not.toContain(LINK);
  });

  it('the paths the router never matches are 404 too', async () => {
    for (const raw of ['/api/v1/logs/get/../../settings.json', '/api/v1/logs/get/a/b', '/api/v1/logs/get/']) {
      const token = await tokenFor(agent, AAD);
      const status = await new Promise<number>((resolve, reject) => {
        https
          .get(
            {
              host: '127.0.0.1',
              port: agent.ports.api,
              path: raw,
              headers: { Authorization: `Bearer ${token}` },
              ca: agent.identity.certPem,
            },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          )
          .on('error', reject);
      });
      expect({ raw, status }).toEqual({ raw, status: 404 });
    }
  });
});

const open = fs.promises.open;
