/**
 * Fleet ingest (docs/fleet.md "Sizing", docs/benchmarks.md "Fleet ingest"): 10 agent processes,
 * each forwarding a backlog of its own SQLite audit store through RecordForwarder (the pacing cap
 * lifted to measure the capacity), against PostgreSQL's own COPY of the same rows into the same
 * table: `vigil_records` as the fleet schema makes it (day partitions, the unique key, the seq,
 * time and agent indexes and the trigram GIN indexes). Also measured: a COPY into a bare table
 * without index or constraint, and (VIGIL_BENCH_COPY_PER_AGENT=1) the same COPY split over one
 * session per agent.
 *
 * Each side of each round gets a fresh database, migrated like a fleet's; rounds alternate which
 * side goes first; medians are reported. Also reported, per record: the CPU time of the agent
 * processes and of PostgreSQL (the postmaster's own and its children's, exited backends
 * included), and for the forwarders the inserts lock's wait and hold per batch (the hold is
 * measured from the server's grant to the commit's answer; one machine, one clock). One PostgreSQL for all (test/helpers/postgres-server.ts)
 * with durable settings: fsync, full_page_writes and synchronous_commit on (see SETTINGS).
 * Prints one JSON object.
 *
 *   npx tsx bench/fleet-forward.ts
 *     VIGIL_BENCH_RECORDS  records in total (1,000,000), VIGIL_BENCH_AGENTS (10),
 *     VIGIL_BENCH_ROUNDS (3), VIGIL_BENCH_BATCH (the forwarder's batch size, its default if unset),
 *     VIGIL_BENCH_COPY_PER_AGENT=1 (also the COPY in one session per agent)
 */
import { execFile, fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { openFleetPool, writeFleetPassword } from '../agent/fleet/fleet-connection.js';
import { migrateFleet } from '../agent/fleet/pg-schema.js';
import { postgresBinDir, startPostgres, type PostgresServer } from '../test/helpers/postgres-server.js';

const run = promisify(execFile);
const AGENT_SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fleet-forward-agent.ts');
const RECORDS = Number(process.env['VIGIL_BENCH_RECORDS'] ?? 1_000_000);
const AGENTS = Number(process.env['VIGIL_BENCH_AGENTS'] ?? 10);
const ROUNDS = Number(process.env['VIGIL_BENCH_ROUNDS'] ?? 3);
const PER_AGENT = Math.floor(RECORDS / AGENTS);
/** The COPY split over one session per agent: as fast as one session here (GIN's pending list is one). */
const PER_AGENT_COPY = process.env['VIGIL_BENCH_COPY_PER_AGENT'] === '1';

/** A small dedicated server's settings rather than the test cluster's (fsync off, 32 MB). */
const SETTINGS: Record<string, string> = {
  fsync: 'on',
  full_page_writes: 'on',
  synchronous_commit: 'on',
  shared_buffers: '512MB',
  max_wal_size: '4GB',
  maintenance_work_mem: '256MB',
};

const COLUMNS =
  'agent_id, agent_seq, rid, when_ms, who, action, what, location, object_type, data_source, plan_name, plan_id, item_name, workstation, details, chain, day, json';

/** utime+stime (and, with `children`, cutime+cstime) of a process, in µs. */
function processCpuMicros(pid: number, children: boolean): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]) + (children ? Number(fields[13]) + Number(fields[14]) : 0);
  return (ticks * 1e6) / CLOCK_TICKS;
}
const CLOCK_TICKS = 100;

/** PostgreSQL's CPU time so far: the postmaster, its exited backends (reaped: cutime) and its live children. */
function postgresCpuMicros(postmaster: number): number {
  let total = processCpuMicros(postmaster, true);
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = fs.readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ');
      if (Number(fields[1]) === postmaster) total += processCpuMicros(Number(entry), false);
    } catch {
      // ended meanwhile: its time is in the postmaster's cutime
    }
  }
  return total;
}

interface Measured {
  perSecond: number;
  /** PostgreSQL's CPU µs per record. */
  postgresMicros: number;
  /** The agent processes' CPU µs per record (forwarding only). */
  agentMicros?: number;
  /** Per batch: reading it from SQLite, waiting for the inserts lock, holding it (ms, mean). */
  readMs?: number;
  lockWaitMs?: number;
  lockHeldMs?: number;
}

interface AgentDone {
  records: number;
  cpuMicros: number;
  batches: number;
  readMs: number;
  lockWaitMs: number;
  lockHeldMs: number;
}

function child(args: string[]): ChildProcess {
  return fork(AGENT_SCRIPT, args, { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

function exited(proc: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    proc.once('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`agent process ended with ${code ?? signal}`)),
    );
  });
}

/** Fills the agents' stores, two processes at a time (one per core). */
async function fillStores(scratch: string): Promise<string[]> {
  const files = Array.from({ length: AGENTS }, (_, i) => path.join(scratch, `agent-${i}.db`));
  const queue = files.map((file, i) => () => exited(child(['fill', file, String(PER_AGENT), String(i)])));
  const worker = async (): Promise<void> => {
    for (let job = queue.shift(); job; job = queue.shift()) await job();
  };
  await Promise.all([worker(), worker()]);
  return files;
}

async function withAdmin<T>(server: PostgresServer, database: string, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: server.adminUrl.replace(/\/postgres$/, `/${database}`) });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A fresh database as a fleet's first member makes it; returns its URL (no password). */
async function freshFleetDatabase(server: PostgresServer, name: string, scratch: string): Promise<string> {
  await withAdmin(server, 'postgres', async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${name}`);
    await c.query(`CREATE DATABASE ${name} OWNER vigil`);
  });
  await withAdmin(server, name, (c) => c.query('CREATE EXTENSION pg_trgm'));
  const url = server.url.replace(/\/vigil$/, `/${name}`);
  const pool = openFleetPool({ database: url }, scratch, { max: 1 });
  await migrateFleet(pool);
  await pool.end();
  // Every side starts from a checkpoint, so none pays for another's dirty buffers.
  await withAdmin(server, 'postgres', (c) => c.query('CHECKPOINT'));
  return url;
}

async function dropDatabase(server: PostgresServer, name: string): Promise<void> {
  await withAdmin(server, 'postgres', (c) => c.query(`DROP DATABASE ${name}`));
}

async function countRecords(server: PostgresServer, name: string, table = 'vigil_records'): Promise<number> {
  return withAdmin(server, name, async (c) => (await c.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n);
}

/** 10 agent processes forwarding their stores at once; records/s from `go` to the last one done. */
async function forwardRound(
  server: PostgresServer,
  postmaster: number,
  stores: string[],
  scratch: string,
  name: string,
): Promise<Measured> {
  const url = await freshFleetDatabase(server, name, scratch);
  const agents = stores.map((store, i) => child(['forward', store, url, scratch, `AGENT-BENCH${i}`]));
  const ends = agents.map(exited);
  await Promise.all(agents.map((a) => new Promise((resolve) => a.once('message', resolve))));
  const done = agents.map((a) => new Promise<AgentDone>((resolve) => a.once('message', resolve)));
  const cpuBefore = postgresCpuMicros(postmaster);
  const started = performance.now();
  for (const a of agents) a.send('go');
  const reports = await Promise.all(done);
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(ends);
  const stored = await countRecords(server, name);
  const postgresMicros = (postgresCpuMicros(postmaster) - cpuBefore) / stored;
  if (stored !== PER_AGENT * AGENTS) throw new Error(`forwarded ${stored} records, expected ${PER_AGENT * AGENTS}`);
  await dropDatabase(server, name);
  const sum = (pick: (r: AgentDone) => number): number => reports.reduce((total, r) => total + pick(r), 0);
  const batches = sum((r) => r.batches);
  return {
    perSecond: Math.round(stored / seconds),
    postgresMicros: Math.round(postgresMicros),
    agentMicros: Math.round(sum((r) => r.cpuMicros) / stored),
    readMs: Number((sum((r) => r.readMs) / batches).toFixed(1)),
    lockWaitMs: Number((sum((r) => r.lockWaitMs) / batches).toFixed(1)),
    lockHeldMs: Number((sum((r) => r.lockHeldMs) / batches).toFixed(1)),
  };
}

function psqlCopy(url: string, table: string, csv: string): Promise<unknown> {
  return run(path.join(postgresBinDir(), 'psql'), [
    url,
    '-v',
    'ON_ERROR_STOP=1',
    '-c',
    `\\copy ${table} (${COLUMNS}) FROM '${csv}' CSV`,
  ]);
}

/**
 * psql's COPY of every agent's rows into the fleet table of a fresh database: one session for
 * all rows (`sessions` 1), or one session per agent at once.
 */
async function copyRound(
  server: PostgresServer,
  postmaster: number,
  csvs: string[],
  scratch: string,
  name: string,
  sessions: 'one' | 'per-agent',
  bare = false,
): Promise<Measured> {
  await freshFleetDatabase(server, name, scratch);
  const adminUrl = server.adminUrl.replace(/\/postgres$/, `/${name}`);
  const table = bare ? 'bare_copy' : 'vigil_records';
  if (bare) {
    await withAdmin(server, name, (c) =>
      c.query(
        `CREATE TABLE bare_copy (LIKE vigil_records INCLUDING DEFAULTS INCLUDING IDENTITY); ALTER TABLE bare_copy OWNER TO vigil`,
      ),
    );
  }
  const cpuBefore = postgresCpuMicros(postmaster);
  const started = performance.now();
  if (sessions === 'one') await psqlCopy(adminUrl, table, path.join(scratch, 'all.csv'));
  else await Promise.all(csvs.map((csv) => psqlCopy(adminUrl, table, csv)));
  const seconds = (performance.now() - started) / 1000;
  const postgresMicros = (postgresCpuMicros(postmaster) - cpuBefore) / (PER_AGENT * AGENTS);
  const stored = await countRecords(server, name, table);
  if (stored !== PER_AGENT * AGENTS) throw new Error(`copied ${stored} records, expected ${PER_AGENT * AGENTS}`);
  await dropDatabase(server, name);
  return { perSecond: Math.round(stored / seconds), postgresMicros: Math.round(postgresMicros) };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : Math.round((sorted[mid - 1]! + sorted[mid]!) / 2);
};

async function main(): Promise<void> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-fleet-bench-'));
  const server = await startPostgres();
  try {
    await withAdmin(server, 'postgres', async (c) => {
      for (const [key, value] of Object.entries(SETTINGS)) await c.query(`ALTER SYSTEM SET ${key} = '${value}'`);
    });
    await server.restart();
    const settings = await withAdmin(server, 'postgres', async (c) => {
      const shown: Record<string, string> = {};
      for (const key of Object.keys(SETTINGS)) shown[key] = (await c.query(`SHOW ${key}`)).rows[0][key];
      shown['server_version'] = (await c.query('SHOW server_version')).rows[0].server_version;
      return shown;
    });
    const postmaster = await withAdmin(server, 'postgres', async (c) => {
      const backend = (await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
      return Number(fs.readFileSync(`/proc/${backend}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
    });
    writeFleetPassword(scratch, server.password);
    const fillStarted = performance.now();
    const stores = await fillStores(scratch);
    const csvs = stores.map((store) => `${store}.csv`);
    fs.writeFileSync(path.join(scratch, 'all.csv'), Buffer.concat(csvs.map((csv) => fs.readFileSync(csv))));
    const fillSeconds = (performance.now() - fillStarted) / 1000;
    const sides = {
      forwarded: [] as Measured[],
      copyOneSession: [] as Measured[],
      copyPerAgent: [] as Measured[],
      bareCopy: [] as Measured[],
    };
    const loads: number[] = [];
    const steps: Array<[keyof typeof sides, (round: number) => Promise<Measured>]> = [
      ['forwarded', (r) => forwardRound(server, postmaster, stores, scratch, `fwd_${r}`)],
      ['copyOneSession', (r) => copyRound(server, postmaster, csvs, scratch, `copy_${r}`, 'one')],
      ['copyPerAgent', (r) => copyRound(server, postmaster, csvs, scratch, `copyn_${r}`, 'per-agent')],
      ['bareCopy', (r) => copyRound(server, postmaster, csvs, scratch, `bare_${r}`, 'one', true)],
    ];
    const measured = PER_AGENT_COPY ? steps : steps.filter(([side]) => side !== 'copyPerAgent');
    for (let round = 0; round < ROUNDS; round++) {
      // Rotate the order, so no side always runs first (or after the same one).
      const order = measured.map((_, i) => measured[(i + round) % measured.length]!);
      for (const [side, measure] of order) {
        loads.push(os.loadavg()[0]!);
        const result = await measure(round);
        sides[side].push(result);
        process.stderr.write(
          `round ${round + 1} ${side}: ${JSON.stringify(result)} (load ${os.loadavg()[0]!.toFixed(1)})\n`,
        );
      }
    }
    const rates = (side: Measured[]): number[] => side.map((m) => m.perSecond);
    const middle = (side: Measured[], pick: (m: Measured) => number | undefined): number =>
      median(side.map((m) => (pick(m) ?? 0) * 10)) / 10;
    const forwarded = median(rates(sides.forwarded));
    const ratio = (base: Measured[]): number => Number((forwarded / median(rates(base))).toFixed(2));
    // Each round's forwarding against the same round's COPY (the same load, minutes apart).
    const roundRatios = sides.forwarded.map((f, i) => f.perSecond / sides.copyOneSession[i]!.perSecond);
    process.stdout.write(
      JSON.stringify({
        agents: AGENTS,
        records: PER_AGENT * AGENTS,
        rounds: ROUNDS,
        batchSize: process.env['VIGIL_BENCH_BATCH'] ? Number(process.env['VIGIL_BENCH_BATCH']) : 'default',
        forwardedPerSecond: forwarded,
        copyOneSessionPerSecond: median(rates(sides.copyOneSession)),
        ...(PER_AGENT_COPY
          ? {
              copyPerAgentPerSecond: median(rates(sides.copyPerAgent)),
              forwardedVsCopyPerAgent: ratio(sides.copyPerAgent),
            }
          : {}),
        bareCopyPerSecond: median(rates(sides.bareCopy)),
        forwardedVsCopy: ratio(sides.copyOneSession),
        forwardedVsCopyPerRoundMedian: median(roundRatios.map((r) => r * 100)) / 100,
        forwardedVsBareCopy: ratio(sides.bareCopy),
        cpuMicrosPerRecord: {
          forwardingAgents: middle(sides.forwarded, (m) => m.agentMicros),
          forwardingPostgres: middle(sides.forwarded, (m) => m.postgresMicros),
          copyPostgres: middle(sides.copyOneSession, (m) => m.postgresMicros),
          bareCopyPostgres: middle(sides.bareCopy, (m) => m.postgresMicros),
        },
        perBatchMs: {
          readFromSqlite: middle(sides.forwarded, (m) => m.readMs),
          lockWait: middle(sides.forwarded, (m) => m.lockWaitMs),
          lockHeld: middle(sides.forwarded, (m) => m.lockHeldMs),
        },
        perRound: sides,
        fillSeconds: Math.round(fillSeconds),
        loadAverage: {
          min: Math.min(...loads),
          max: Math.max(...loads),
          median: median(loads.map((l) => l * 100)) / 100,
        },
        cpus: os.cpus().length,
        postgres: settings,
      }) + '\n',
    );
  } finally {
    await server.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
