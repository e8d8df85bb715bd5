/**
 * The client side of the fleet audit API benchmark (bench/fleet-audit-api.bench.ts), run as its
 * own process so its CPU is not counted as the agents'. Input: one JSON argument; output: one
 * JSON line.
 * - `search`: the body posted `repeat` times; each first page's time, the records found and the
 *   first page's RIDs (the benchmark checks both backends answer the same records).
 * - `enum`: pages of `count` walked with the continuation mark until `limit` records or the end.
 */
import https from 'node:https';

interface Job {
  url: string; // https://127.0.0.1:PORT/vigil/api/v1/
  ca: string;
  auth: string;
  mode: 'search' | 'enum';
  body?: unknown;
  repeat?: number;
  count?: number;
  limit?: number;
}

interface Page {
  ActivityRecordList: Array<{ RID: string }>;
  ContinuationMark: string;
}

const job = JSON.parse(process.argv[2]!) as Job;
const agent = new https.Agent({ keepAlive: true, ca: job.ca, maxSockets: 1 });

function request(path: string, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      new URL(path, job.url),
      {
        method: body === undefined ? 'GET' : 'POST',
        agent,
        servername: 'localhost',
        headers: {
          Authorization: `Basic ${Buffer.from(job.auth).toString('base64')}`,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json; charset=UTF-8' }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function page(res: { status: number; text: string }, what: string): Page {
  if (res.status !== 200) throw new Error(`${what} answered ${res.status}: ${res.text.slice(0, 300)}`);
  return JSON.parse(res.text) as Page;
}

async function search(): Promise<unknown> {
  const latencies: number[] = [];
  let rids: string[] = [];
  for (let i = 0; i < (job.repeat ?? 1); i++) {
    const started = performance.now();
    const first = page(await request('activity_records/search?format=json', JSON.stringify(job.body)), 'search');
    latencies.push(performance.now() - started);
    rids = first.ActivityRecordList.map((r) => r.RID);
  }
  return { latencies, found: rids.length, rids };
}

async function enumerate(): Promise<unknown> {
  const limit = job.limit ?? Infinity;
  const started = performance.now();
  let total = 0;
  let res = await request(`activity_records/enum?format=json&count=${job.count}`);
  for (;;) {
    const current = page(res, 'enum');
    if (current.ActivityRecordList.length === 0) break;
    total += current.ActivityRecordList.length;
    if (total >= limit) break;
    const mark = JSON.stringify(current.ContinuationMark);
    res = await request(`activity_records/enum?format=json&count=${job.count}`, mark);
  }
  return { total, seconds: (performance.now() - started) / 1000 };
}

(job.mode === 'search' ? search() : enumerate()).then(
  (result) => {
    process.stdout.write(JSON.stringify(result) + '\n');
    agent.destroy();
  },
  (error: Error) => {
    process.stderr.write(`${error.stack}\n`);
    process.exit(1);
  },
);
