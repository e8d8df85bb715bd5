/**
 * Forwarding throughput into one PostgreSQL (docs/fleet.md "Sizing"): records/s forwarded by 1
 * agent and by 4 agents at once (each from its own SQLite audit store, through RecordForwarder,
 * the pacing cap lifted to measure the capacity), and a bare `COPY` of the same rows by psql into
 * a plain table, as the ceiling. Starts its own PostgreSQL (test/helpers/postgres-server.ts).
 * Prints one JSON object.
 *
 *   npx tsx bench/fleet-forward.ts          (VIGIL_BENCH_RECORDS=50000 per agent by default)
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { silentLogger } from '../agent/log/logger.js';
import { AuditStore } from '../agent/store/audit-store.js';
import { openFleetPool, writeFleetPassword } from '../agent/fleet/fleet-connection.js';
import { migrateFleet, utcDay } from '../agent/fleet/pg-schema.js';
import { RecordForwarder } from '../agent/fleet/record-forwarder.js';
import { postgresBinDir, startPostgres, urlWithPassword } from '../test/helpers/postgres-server.js';

const run = promisify(execFile);
const RECORDS = Number(process.env['VIGIL_BENCH_RECORDS'] ?? 50_000);

function makeStore(dir: string, tag: string): string {
  const store = AuditStore.open({ file: path.join(dir, `${tag}.db`), synchronous: 'NORMAL' });
  const now = Date.now();
  for (let done = 0; done < RECORDS; done += 1000) {
    store.insertBatch(
      Array.from({ length: Math.min(1000, RECORDS - done) }, (_, i) => ({
        Who: `DOMAIN\\user${(done + i) % 50}`,
        Action: 'Modified',
        What: `/home/user/projects/${tag}/src/module-${done + i}/index.ts`,
        When: new Date(now - (RECORDS - done - i)).toISOString(),
        Where: 'workstation-42',
        ObjectType: 'File',
        DataSource: 'File Servers',
        DetailList: [{ PropertyName: 'Size', Before: '100', After: String(done + i) }],
      })),
    );
  }
  store.close();
  return path.join(dir, `${tag}.db`);
}

async function forward(files: string[], url: string, dataDir: string): Promise<number> {
  const pools = files.map(() => openFleetPool({ database: url }, dataDir, { max: 1 }));
  const forwarders = files.map(
    (file, i) =>
      new RecordForwarder({
        auditDb: file,
        pool: pools[i]!,
        database: `${url}#${path.basename(file)}`,
        agentId: `AGENT-BENCH${path.basename(file, '.db')}`,
        log: silentLogger,
        pollMs: 5,
        pacing: { maxRecordsPerSecond: 1e9 },
      }),
  );
  const started = process.hrtime.bigint();
  await Promise.all(forwarders.map((f) => f.start()));
  await Promise.all(forwarders.map((f) => f.waitForwarded(RECORDS, 600_000)));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await Promise.all(forwarders.map((f) => f.stop()));
  await Promise.all(pools.map((p) => p.end()));
  return Math.round((files.length * RECORDS) / seconds);
}

/** The same rows as CSV, loaded by psql's \copy into a table with the same columns and no constraints. */
async function bareCopy(file: string, adminUrl: string, scratch: string): Promise<number> {
  const db = (await import('better-sqlite3')).default(file, { readonly: true });
  const csv = path.join(scratch, 'rows.csv');
  const quote = (v: unknown): string => (v === null ? '' : `"${String(v).replace(/"/g, '""')}"`);
  const lines: string[] = [];
  for (const r of db.prepare('SELECT * FROM activity_records ORDER BY seq').iterate() as Iterable<
    Record<string, unknown>
  >) {
    lines.push(
      [
        'AGENT-COPY',
        r['seq'],
        r['rid'],
        r['when_ms'],
        r['who'],
        r['action'],
        r['what'],
        r['location'],
        r['object_type'],
        r['data_source'],
        r['plan_name'],
        r['plan_id'],
        r['item_name'],
        r['workstation'],
        r['details'],
        `\\x${(r['chain'] as Buffer).toString('hex')}`,
        utcDay(r['when_ms'] as number),
      ]
        .map(quote)
        .join(','),
    );
  }
  db.close();
  fs.writeFileSync(csv, lines.join('\n') + '\n');
  fs.chmodSync(scratch, 0o755);
  fs.chmodSync(csv, 0o644);
  const vigilDb = adminUrl.replace(/\/postgres$/, '/vigil');
  const client = new pg.Client({ connectionString: vigilDb });
  await client.connect();
  await client.query(`CREATE TABLE bare_copy (agent_id text, agent_seq bigint, rid text, when_ms bigint, who text,
    action text, what text, location text, object_type text, data_source text, plan_name text, plan_id text,
    item_name text, workstation text, details text, chain bytea, day date)`);
  await client.end();
  const psql = path.join(postgresBinDir(), 'psql');
  const started = process.hrtime.bigint();
  await run(psql, [vigilDb, '-c', `\\copy bare_copy FROM '${csv}' CSV`]);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return Math.round(RECORDS / seconds);
}

async function main(): Promise<void> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-fleet-bench-'));
  const server = await startPostgres();
  try {
    writeFleetPassword(scratch, server.password);
    const setup = openFleetPool({ database: server.url }, scratch);
    await migrateFleet(setup);
    await setup.end();
    const stores = ['0', '1', '2', '3', '4'].map((tag) => makeStore(scratch, tag));
    const one = await forward([stores[0]!], server.url, scratch);
    const four = await forward(stores.slice(1), server.url, scratch);
    const copy = await bareCopy(stores[0]!, server.adminUrl, scratch);
    const check = new pg.Client({ connectionString: urlWithPassword(server.url, server.password) });
    await check.connect();
    const stored = (await check.query('SELECT count(*)::int AS n FROM vigil_records')).rows[0].n as number;
    await check.end();
    process.stdout.write(
      JSON.stringify({
        recordsPerAgent: RECORDS,
        oneAgentPerSecond: one,
        fourAgentsPerSecond: four,
        bareCopyPerSecond: copy,
        oneAgentVsCopy: Number((one / copy).toFixed(2)),
        fourAgentsVsCopy: Number((four / copy).toFixed(2)),
        storedOnce: stored === 5 * RECORDS,
        loadAverage: os.loadavg()[0],
        cpus: os.cpus().length,
      }) + '\n',
    );
  } finally {
    await server.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
