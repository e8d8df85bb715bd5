/**
 * Builds the data set of the fleet audit API benchmark (bench/fleet-audit-api.bench.ts runs this
 * in a child process): the same N records in an agent's SQLite audit store (with its substring
 * index) and in a fleet PostgreSQL (vigil_records, migrated by migrateFleet, with its real
 * indexes). The data set is kept in a cache folder between runs; `<cache>/build.json` says what
 * was built and how long it took.
 *
 * Records: 5 agents, 40 hosts, 500 accounts, 40 days ending an hour before the build, file paths
 * under /home and C:\Users, 30 % with a detail, a mix of actions; the selective searches of the
 * benchmark look for a rare account (1 in 100,000 records), a rare file name (1 in 50,000), one
 * account's records and its moves, and one hour.
 *
 * PostgreSQL: its own cluster in `<cache>/pg` (shared_buffers a quarter of the memory, as a
 * dedicated fleet database server would be given, not the test clusters' 32 MB;
 * VIGIL_BENCH_PG_SHARED_BUFFERS sets another, such as 1GB, at each start). Day partitions exist
 * for every day of the data, as on a fleet that has run for 40 days (migrateFleet creates each
 * day's partition ahead of it).
 * The rows go in by COPY with the secondary indexes dropped, which are then created again from
 * their own definitions (pg_indexes), so the indexes measured are the schema's.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { silentLogger } from '../dist/agent/log/logger.js';
import { AuditStore } from '../dist/agent/store/audit-store.js';
import { SearchIndex } from '../dist/agent/store/search-index.js';
import { migrateFleet, utcDay } from '../dist/agent/fleet/pg-schema.js';
import { RECORD_JSON_SQL } from '../dist/agent/store/raw-record.js';
import type { NewActivityRecord } from '../shared/activity-record.js';
import { postgresBinDir } from '../test/helpers/postgres-server.js';

const run = promisify(execFile);
const DAY_MS = 86_400_000;
export const DAYS = 40;
export const AGENTS = 5;
export const RARE_WHO = 'zebediah.quux';
export const RARE_WHAT = 'quarterly-ledger';
/** One record in RARE_WHO_EVERY is RARE_WHO's, one in RARE_WHAT_EVERY names RARE_WHAT. */
export const RARE_WHO_EVERY = 100_000;
export const RARE_WHAT_EVERY = 50_000;
const BATCH = 5000;
/**
 * PostgreSQL's own advice for a dedicated server with 1 GB or more: a quarter of the memory
 * ("Resource Consumption", shared_buffers, in its documentation). docs/fleet.md "Sizing".
 */
const SHARED_BUFFERS = `${Math.max(128, Math.floor(os.totalmem() / 4 / 2 ** 20))}MB`;

export interface BuildInfo {
  records: number;
  /** The span of When, ms. */
  startMs: number;
  endMs: number;
  sqliteSeconds: number;
  sqliteIndexSeconds: number;
  sqliteMiB: number;
  sqliteIndexMiB: number;
  pgCopySeconds: number;
  pgIndexSeconds: number;
  pgMiB: number;
  pgPort: number;
}

export interface PgCluster {
  dir: string;
  port: number;
  password: string;
  /** `postgres://vigil@127.0.0.1:PORT/vigil` without the password. */
  url: string;
  adminUrl: string;
  stop(): Promise<void>;
}

function generator(startMs: number, spanMs: number, records: number): (i: number) => NewActivityRecord {
  let s = 11;
  const rnd = (): number => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const words = ['projects', 'docs', 'src', 'build', 'reports', 'photos', 'music', 'tmp', 'cache', 'notes', 'finance'];
  const exts = ['txt', 'docx', 'xlsx', 'pdf', 'ts', 'png', 'csv', 'md'];
  const actions = [
    'Modified',
    'Modified',
    'Modified',
    'Added',
    'Added',
    'Removed',
    'Renamed',
    'Moved',
    'Read',
    'Copied',
  ];
  return (i) => {
    const rareWho = i % RARE_WHO_EVERY === 4242;
    const account = rareWho ? RARE_WHO : `user${Math.floor(rnd() * 500)}`;
    const host = `WS${String(Math.floor(rnd() * 40)).padStart(3, '0')}`;
    const name = i % RARE_WHAT_EVERY === 777 ? `${RARE_WHAT}-${i}` : `file-${i}`;
    const ext = exts[Math.floor(rnd() * exts.length)]!;
    const dirs = `${words[Math.floor(rnd() * words.length)]}/${words[Math.floor(rnd() * words.length)]}`;
    const windows = rnd() < 0.4;
    const record: NewActivityRecord = {
      Who: windows ? `CORP\\${account}` : account,
      Action: actions[Math.floor(rnd() * actions.length)]!,
      What: windows
        ? `C:\\Users\\${account}\\${dirs.replace('/', '\\')}\\${name}.${ext}`
        : `/home/${account}/${dirs}/${name}.${ext}`,
      When: new Date(startMs + Math.floor((i * spanMs) / records)).toISOString(),
      Where: `${host}.corp.local`,
      ObjectType: rnd() < 0.9 ? 'File' : 'Folder',
      DataSource: 'File System',
      MonitoringPlan: { Name: 'Local files', ID: '{42F64379-163E-4A43-A9C5-4514C5A23798}' },
      Workstation: host,
    };
    if (rnd() < 0.3) record.DetailList = [{ PropertyName: 'Size', Before: String(i), After: String(i + 10) }];
    return record;
  };
}

const mib = (file: string): number => (fs.existsSync(file) ? fs.statSync(file).size / 2 ** 20 : 0);

async function buildSqlite(dir: string, records: number, startMs: number, spanMs: number) {
  fs.mkdirSync(dir, { recursive: true });
  const auditDb = path.join(dir, 'audit.db');
  const searchDb = path.join(dir, 'audit-search.db');
  const make = generator(startMs, spanMs, records);
  const started = performance.now();
  const store = AuditStore.open({ file: auditDb, synchronous: 'NORMAL' });
  const index = SearchIndex.start({ audit: auditDb, search: searchDb, log: silentLogger, pollMs: 50 });
  for (let i = 0; i < records; i += BATCH) {
    const batch: NewActivityRecord[] = [];
    for (let j = i; j < Math.min(records, i + BATCH); j++) batch.push(make(j));
    store.insertBatch(batch);
    if (i % 1_000_000 === 0) process.stderr.write(`sqlite: ${i} records\n`);
  }
  const sqliteSeconds = (performance.now() - started) / 1000;
  if (!(await index.waitUntil(records, 3_600_000))) throw new Error('the substring index did not catch up');
  const sqliteIndexSeconds = (performance.now() - started) / 1000;
  await index.stop();
  store.db.pragma('wal_checkpoint(TRUNCATE)');
  store.close();
  return { sqliteSeconds, sqliteIndexSeconds, sqliteMiB: mib(auditDb), sqliteIndexMiB: mib(searchDb) };
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts the cache's PostgreSQL cluster, creating it first when `create`. */
export async function startCluster(cache: string, create: boolean): Promise<PgCluster> {
  const bin = postgresBinDir();
  const dir = path.join(cache, 'pg');
  const data = path.join(dir, 'data');
  const secrets = path.join(cache, 'pg-secrets.json');
  const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
  const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
  const asPostgres = (binary: string, args: string[]) =>
    run('runuser', ['-u', 'postgres', '--', path.join(bin, binary), ...args], { cwd: dir, timeout: 120_000 });
  if (create) {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const secret = { password: randomBytes(12).toString('hex'), admin: randomBytes(12).toString('hex') };
    fs.writeFileSync(secrets, JSON.stringify(secret), { mode: 0o600 });
    fs.writeFileSync(path.join(dir, 'pwfile'), `${secret.admin}\n`, { mode: 0o600 });
    fs.chownSync(dir, uid, gid);
    fs.chownSync(path.join(dir, 'pwfile'), uid, gid);
    await asPostgres(
      'initdb',
      ['-D', data, '-U', 'postgres', '--pwfile', path.join(dir, 'pwfile')].concat([
        '--auth',
        'scram-sha-256',
        '-E',
        'UTF8',
        '--no-locale',
        '--no-instructions',
      ]),
    );
    fs.rmSync(path.join(dir, 'pwfile'));
  }
  const { password, admin } = JSON.parse(fs.readFileSync(secrets, 'utf8')) as { password: string; admin: string };
  const port = await freePort();
  fs.writeFileSync(
    path.join(dir, 'bench.conf'),
    [
      `listen_addresses = '127.0.0.1'`,
      `port = ${port}`,
      `unix_socket_directories = '${dir}'`,
      'fsync = off',
      'full_page_writes = off',
      `shared_buffers = ${process.env['VIGIL_BENCH_PG_SHARED_BUFFERS'] ?? SHARED_BUFFERS}`,
      'maintenance_work_mem = 1GB',
      'max_wal_size = 8GB',
      'max_parallel_maintenance_workers = 1',
      '',
    ].join('\n'),
  );
  fs.chownSync(path.join(dir, 'bench.conf'), uid, gid);
  const conf = path.join(data, 'postgresql.conf');
  if (!fs.readFileSync(conf, 'utf8').includes('bench.conf')) fs.appendFileSync(conf, `include '${dir}/bench.conf'\n`);
  await asPostgres('pg_ctl', ['start', '-D', data, '-w', '-t', '120', '-l', path.join(dir, 'server.log')]);
  const adminUrl = `postgres://postgres:${admin}@127.0.0.1:${port}/postgres`;
  if (create) {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    await client.query(`CREATE ROLE vigil LOGIN PASSWORD '${password}'`);
    await client.query('CREATE DATABASE vigil OWNER vigil');
    await client.end();
    const inside = new pg.Client({ connectionString: adminUrl.replace(/\/postgres$/, '/vigil') });
    await inside.connect();
    await inside.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    await inside.end();
  }
  return {
    dir,
    port,
    password,
    url: `postgres://vigil@127.0.0.1:${port}/vigil`,
    adminUrl,
    stop: async () => {
      await asPostgres('pg_ctl', ['stop', '-D', data, '-m', 'fast', '-w']);
    },
  };
}

/** The SQLite store's rows as CSV for COPY: 5 agents, each with its own agent_seq. */
async function copyRows(sqliteDb: string, cluster: PgCluster): Promise<void> {
  const db = new Database(sqliteDb, { readonly: true });
  const psql = spawn(
    path.join(postgresBinDir(), 'psql'),
    [
      cluster.adminUrl.replace(/\/postgres$/, '/vigil'),
      '-v',
      'ON_ERROR_STOP=1',
      '-c',
      `\\copy vigil_records (agent_id, agent_seq, rid, when_ms, who, action, what, location, object_type, data_source,
         plan_name, plan_id, item_name, workstation, details, chain, day, json) FROM STDIN CSV`.replace(/\s+/g, ' '),
    ],
    { stdio: ['pipe', 'ignore', 'inherit'] },
  );
  const exited = new Promise<number>((resolve) => psql.on('exit', (code) => resolve(code ?? 1)));
  const quote = (v: unknown): string => (v === null ? '' : `"${String(v).replace(/"/g, '""')}"`);
  const agentSeq = new Array<number>(AGENTS).fill(0);
  let lines: string[] = [];
  const flush = async (): Promise<void> => {
    if (!psql.stdin.write(lines.join(''))) await new Promise((resolve) => psql.stdin.once('drain', resolve));
    lines = [];
  };
  const rows = db
    .prepare(
      `SELECT seq, rid, when_ms, who, action, what, location, object_type, data_source, plan_name, plan_id,
              item_name, workstation, details, chain, ${RECORD_JSON_SQL} AS json FROM activity_records ORDER BY seq`,
    )
    .raw(true)
    .iterate() as Iterable<unknown[]>;
  for (const r of rows) {
    const host = Number(String(r[12]).slice(2));
    const agent = host % AGENTS;
    const chain = r[14] === null ? '' : `\\x${(r[14] as Buffer).toString('hex')}`;
    lines.push(
      [
        `bench-agent-${agent + 1}`,
        ++agentSeq[agent]!,
        ...r.slice(1, 14).map(quote),
        chain,
        utcDay(r[2] as number),
        quote(r[15]), // the JSON the member's forwarder sends (agent/fleet/forward-copy.ts)
      ].join(',') + '\n',
    );
    if (lines.length === 10_000) await flush();
  }
  await flush();
  psql.stdin.end();
  db.close();
  if ((await exited) !== 0) throw new Error('psql \\copy failed');
}

async function buildPostgres(cache: string, sqliteDb: string, startMs: number, endMs: number) {
  const cluster = await startCluster(cache, true);
  const admin = new pg.Pool({ connectionString: cluster.adminUrl.replace(/\/postgres$/, '/vigil'), max: 2 });
  try {
    await migrateFleet(admin, endMs);
    await admin.query('ALTER TABLE vigil_records OWNER TO vigil');
    for (const t of ['vigil_fleet_keys', 'vigil_agents', 'vigil_schema_migrations'])
      await admin.query(`ALTER TABLE ${t} OWNER TO vigil`);
    // A fleet that has run for the whole span has a partition for each of its days.
    for (let day = Math.floor(startMs / DAY_MS) * DAY_MS; day <= endMs; day += DAY_MS) {
      const name = `vigil_records_p${utcDay(day).replace(/-/g, '')}`;
      await admin.query(
        `CREATE TABLE IF NOT EXISTS ${name} PARTITION OF vigil_records
           FOR VALUES FROM ('${utcDay(day)}') TO ('${utcDay(day + DAY_MS)}')`,
      );
      await admin.query(`ALTER TABLE ${name} OWNER TO vigil`);
    }
    const { rows: indexes } = await admin.query<{ name: string; def: string }>(
      `SELECT indexname AS name, indexdef AS def FROM pg_indexes
        WHERE tablename = 'vigil_records' AND indexname NOT LIKE '%day_rid%'`,
    );
    for (const { name } of indexes) await admin.query(`DROP INDEX ${name}`);
    let started = performance.now();
    await copyRows(sqliteDb, cluster);
    const pgCopySeconds = (performance.now() - started) / 1000;
    started = performance.now();
    await admin.query("SET maintenance_work_mem = '1GB'");
    for (const { def } of indexes) {
      process.stderr.write(`postgres: ${def}\n`);
      await admin.query(def.replace(' ON ONLY ', ' ON '));
    }
    await admin.query('VACUUM ANALYZE vigil_records');
    const pgIndexSeconds = (performance.now() - started) / 1000;
    const size = await admin.query<{ bytes: string }>(
      `SELECT sum(pg_total_relation_size(inhrelid))::bigint AS bytes FROM pg_inherits
        WHERE inhparent = 'vigil_records'::regclass`,
    );
    return { pgCopySeconds, pgIndexSeconds, pgMiB: Number(size.rows[0]!.bytes) / 2 ** 20, pgPort: cluster.port };
  } finally {
    await admin.end();
    await cluster.stop();
  }
}

export async function build(cache: string, records: number): Promise<BuildInfo> {
  // Ends an hour before now: within the agent's retention, and no record from the future.
  const endMs = Math.floor((Date.now() - 3_600_000) / 1000) * 1000;
  const startMs = endMs - DAYS * DAY_MS;
  fs.mkdirSync(cache, { recursive: true });
  fs.chmodSync(cache, 0o755); // the postgres account reaches <cache>/pg
  const sqlite = await buildSqlite(path.join(cache, 'sqlite'), records, startMs, endMs - startMs);
  process.stderr.write(`sqlite built: ${JSON.stringify(sqlite)}\n`);
  const postgres = await buildPostgres(cache, path.join(cache, 'sqlite', 'audit.db'), startMs, endMs);
  const info: BuildInfo = { records, startMs, endMs, ...sqlite, ...postgres };
  fs.writeFileSync(path.join(cache, 'build.json'), JSON.stringify(info));
  return info;
}

if (process.argv[1] && path.resolve(process.argv[1]).endsWith('fleet-audit-build.ts')) {
  build(process.argv[2]!, Number(process.argv[3])).then(
    (info) => process.stdout.write(JSON.stringify(info) + '\n'),
    (error: Error) => {
      process.stderr.write(`${error.stack}\n`);
      process.exit(1);
    },
  );
}
