/**
 * The client side of the audit API benchmark, run as its own process so its CPU and memory
 * are not counted as the agent's. Input: one JSON argument; output: one JSON line.
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
}

const job = JSON.parse(process.argv[2]!) as Job;
const agent = new https.Agent({ keepAlive: true, ca: job.ca, maxSockets: 1 });

function request(path: string, body?: string): Promise<{ status: number; text: string }> {
  const url = new URL(path, job.url);
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
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

interface Page {
  ActivityRecordList: unknown[];
  ContinuationMark: string;
}

async function main(): Promise<void> {
  if (job.mode === 'search') {
    const latencies: number[] = [];
    let found = 0;
    for (let i = 0; i < (job.repeat ?? 1); i++) {
      const started = performance.now();
      const res = await request('activity_records/search?format=json', JSON.stringify(job.body));
      const page = JSON.parse(res.text) as Page;
      latencies.push(performance.now() - started);
      if (res.status !== 200) throw new Error(`search answered ${res.status}: ${res.text.slice(0, 200)}`);
      found = page.ActivityRecordList.length;
    }
    process.stdout.write(JSON.stringify({ latencies, found }) + '\n');
    return;
  }
  const started = performance.now();
  let total = 0;
  let pages = 0;
  let parsing = 0;
  let res = await request(`activity_records/enum?format=json&count=${job.count}`);
  for (;;) {
    if (res.status !== 200) throw new Error(`enum answered ${res.status}: ${res.text.slice(0, 200)}`);
    const parseStarted = performance.now();
    const page = JSON.parse(res.text) as Page;
    parsing += performance.now() - parseStarted;
    if (page.ActivityRecordList.length === 0) break;
    total += page.ActivityRecordList.length;
    pages += 1;
    res = await request(`activity_records/enum?format=json&count=${job.count}`, JSON.stringify(page.ContinuationMark));
  }
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(JSON.stringify({ total, pages, seconds, parseSeconds: parsing / 1000 }) + '\n');
}

main().then(
  () => agent.destroy(),
  (error: Error) => {
    process.stderr.write(`${error.stack}\n`);
    process.exit(1);
  },
);
