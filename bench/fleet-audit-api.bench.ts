/**
 * Fleet audit API benchmark: the audit API over HTTPS on the same records in an agent's SQLite
 * store and in a fleet PostgreSQL (docs/fleet.md "Audit API on 10 million records").
 *
 *   npx tsc -b && npx tsx bench/fleet-audit-api.bench.ts
 *
 * The data set (bench/fleet-audit-build.ts) is built once and kept in a cache folder. Two agents
 * run in this process: one serving its own SQLite store, one a member of the fleet database
 * (its audit API serves the fleet's records). Clients run in child processes
 * (bench/fleet-audit-client.ts). For each selective search, rounds alternate the backends and
 * time the first page; both backends must answer the same records. Then the enumeration walks
 * pages of 10,000 with the continuation mark over the first VIGIL_BENCH_ENUM records, backends
 * alternating. Prints one JSON object (also written to <cache>/results.json); exit code 1 when a
 * goal is missed (first page p50 < 50 ms, enumeration ≥ 100,000 records/s).
 *
 * Environment: VIGIL_BENCH_RECORDS (10,000,000), VIGIL_BENCH_ENUM (min(records, 2,000,000)),
 * VIGIL_BENCH_ROUNDS (3), VIGIL_BENCH_ENUM_ROUNDS (as many), VIGIL_BENCH_CACHE (<tmp>/vigil-fleet-bench/n<records>).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { launchAgent } from '../dist/agent/agent.js';
import { dataPaths } from '../dist/agent/config/data-dir.js';
import { SettingsStore } from '../dist/agent/config/settings-store.js';
import { writeFleetPassword } from '../dist/agent/fleet/fleet-connection.js';
import { silentLogger } from '../dist/agent/log/logger.js';
import { AuditUserService } from '../dist/agent/users/audit-user-service.js';
import { RARE_WHAT, RARE_WHO, startCluster, type BuildInfo } from './fleet-audit-build.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RECORDS = Number(process.env['VIGIL_BENCH_RECORDS'] ?? 10_000_000);
const ENUM_RECORDS = Number(process.env['VIGIL_BENCH_ENUM'] ?? Math.min(RECORDS, 2_000_000));
const ROUNDS = Number(process.env['VIGIL_BENCH_ROUNDS'] ?? 3);
const ENUM_ROUNDS = Number(process.env['VIGIL_BENCH_ENUM_ROUNDS'] ?? ROUNDS);
const CACHE = process.env['VIGIL_BENCH_CACHE'] ?? path.join(os.tmpdir(), 'vigil-fleet-bench', `n${RECORDS}`);
const REPEAT = 7;
const ENUM_PAGE = 10_000;
const run = promisify(execFile);

type Backend = 'sqlite' | 'postgres';
const BACKENDS: readonly Backend[] = ['sqlite', 'postgres'];

const sorted = (xs: number[]): number[] => [...xs].sort((a, b) => a - b);
const pct = (xs: number[], p: number): number => sorted(xs)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const round = (n: number, digits = 1): number => Number(n.toFixed(digits));

async function tsx(script: string, args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', script), ...args], {
    cwd: ROOT,
    maxBuffer: 1 << 26,
  });
  return stdout;
}

async function ensureBuilt(): Promise<BuildInfo> {
  const file = path.join(CACHE, 'build.json');
  if (!fs.existsSync(file)) await tsx('fleet-audit-build.ts', [CACHE, String(RECORDS)]);
  const info = JSON.parse(fs.readFileSync(file, 'utf8')) as BuildInfo;
  if (info.records !== RECORDS) throw new Error(`${CACHE} holds ${info.records} records, not ${RECORDS}`);
  return info;
}

/** The audit API user `bench`, added before the agent starts (as `vigil user add` does offline). */
async function addBenchUser(dataDir: string): Promise<void> {
  const settings = await SettingsStore.open(dataPaths(dataDir).settings);
  const users = new AuditUserService(settings);
  if (!users.get('bench')) await users.add({ name: 'bench', roles: ['reader'], password: 'bench-password' });
  users.close();
  await settings.close();
}

/** Makes the data folder's agent a member of `database` before it starts (`vigil fleet join` offline). */
function joinOffline(dataDir: string, database: string, password: string): void {
  fs.mkdirSync(dataDir, { recursive: true });
  const settings = { fleet: { database, joinedAt: new Date().toISOString() } };
  fs.writeFileSync(path.join(dataDir, 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
  writeFleetPassword(dataDir, password);
}

/** The selective searches: a rare account, a rare file name, one account, its moves, one hour. */
function searches(info: BuildInfo): Record<string, unknown> {
  const hour = info.startMs + Math.floor((info.endMs - info.startMs) / 2 / 3_600_000) * 3_600_000;
  return {
    'Who Contains a rare account': { FilterList: { Who: { Contains: RARE_WHO.slice(0, 8) } } },
    'What Contains a rare file name': { FilterList: { What: { Contains: RARE_WHAT } } },
    'Who Equals one account': { FilterList: { Who: { Equals: 'CORP\\user417' } } },
    'Who Equals one account, Action Equals Moved': {
      FilterList: { Who: { Equals: 'CORP\\user417' }, Action: { Equals: 'Moved' } },
    },
    'When within one hour': {
      FilterList: { When: { From: new Date(hour).toISOString(), To: new Date(hour + 3_600_000).toISOString() } },
    },
    'What Contains a rare file name, When within the last 7 days': {
      FilterList: {
        What: { Contains: RARE_WHAT },
        When: { From: new Date(info.endMs - 7 * 86_400_000).toISOString() },
      },
    },
  };
}

async function main(): Promise<void> {
  const loadStart = os.loadavg();
  const info = await ensureBuilt();
  const cluster = await startCluster(CACHE, false);
  const fleetDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-fleet-bench-member-'));
  const sqliteDir = path.join(CACHE, 'sqlite');
  const stops: Array<() => Promise<void>> = [() => cluster.stop()];
  try {
    joinOffline(fleetDir, cluster.url, cluster.password);
    await addBenchUser(fleetDir);
    await addBenchUser(sqliteDir);
    const base: Partial<Record<Backend, Record<string, string>>> = {};
    for (const backend of BACKENDS) {
      const dataDir = backend === 'sqlite' ? sqliteDir : fleetDir;
      const launched = await launchAgent({ dataDir, ports: { api: 0, audit: 0, console: 0 }, log: silentLogger });
      stops.unshift(() => launched.running.stop());
      const { ports, identity } = { ...launched.running, ...launched.internals };
      if (backend === 'postgres' && launched.internals.fleet.current()?.state() !== 'connected')
        throw new Error(`the fleet member is not connected: ${launched.internals.fleet.problem()}`);
      if (backend === 'sqlite' && !(await launched.internals.audit.index.waitUntil(RECORDS, 300_000)))
        throw new Error('the substring index is behind');
      base[backend] = {
        url: `https://127.0.0.1:${ports.audit}/vigil/api/v1/`,
        ca: identity.certPem,
        auth: 'bench:bench-password',
      };
    }
    const client = async (backend: Backend, job: Record<string, unknown>): Promise<Record<string, unknown>> =>
      JSON.parse(await tsx('fleet-audit-client.ts', [JSON.stringify({ ...base[backend], ...job })])) as Record<
        string,
        unknown
      >;

    const results: Record<string, unknown> = {};
    for (const [name, body] of Object.entries(searches(info))) {
      const latencies: Record<Backend, number[]> = { sqlite: [], postgres: [] };
      const rids: Partial<Record<Backend, string[]>> = {};
      for (const backend of BACKENDS)
        rids[backend] = (await client(backend, { mode: 'search', body, repeat: 1 }))['rids'] as string[]; // warm
      if (JSON.stringify(rids.sqlite) !== JSON.stringify(rids.postgres))
        throw new Error(
          `${name}: the backends answer different records (${rids.sqlite?.length} / ${rids.postgres?.length})`,
        );
      for (let r = 0; r < ROUNDS; r++) {
        for (const backend of r % 2 === 0 ? BACKENDS : [...BACKENDS].reverse()) {
          const answer = await client(backend, { mode: 'search', body, repeat: REPEAT });
          latencies[backend].push(...(answer['latencies'] as number[]));
        }
      }
      results[name] = {
        firstPage: rids.sqlite!.length,
        ...Object.fromEntries(
          BACKENDS.map((b) => [b, { p50: round(pct(latencies[b], 0.5), 2), p95: round(pct(latencies[b], 0.95), 2) }]),
        ),
      };
      console.error(name, JSON.stringify(results[name]));
    }

    const rates: Record<Backend, number[]> = { sqlite: [], postgres: [] };
    for (let r = 0; r < ENUM_ROUNDS; r++) {
      for (const backend of r % 2 === 0 ? BACKENDS : [...BACKENDS].reverse()) {
        const e = await client(backend, { mode: 'enum', count: ENUM_PAGE, limit: ENUM_RECORDS });
        if ((e['total'] as number) < ENUM_RECORDS) throw new Error(`${backend}: enumeration ended at ${e['total']}`);
        rates[backend].push((e['total'] as number) / (e['seconds'] as number));
        console.error(`enum ${backend}: ${Math.round(rates[backend].at(-1)!)} records/s`);
      }
    }
    const enumeration = Object.fromEntries(
      BACKENDS.map((b) => [b, { median: Math.round(pct(rates[b], 0.5)), runs: rates[b].map(Math.round) }]),
    );
    // Each round ran both backends back to back: their ratio is what a loaded machine still measures.
    const ratios = rates.postgres.map((rate, r) => rate / rates.sqlite[r]!);
    const postgresToSqlite = { median: round(pct(ratios, 0.5), 2), runs: ratios.map((x) => round(x, 2)) };
    console.error(`enum postgres / sqlite, round by round: ${JSON.stringify(postgresToSqlite)}`);
    const goals = Object.fromEntries(
      BACKENDS.map((b) => [
        b,
        {
          searchP50Under50ms: Object.values(results).every((q) => (q as Record<Backend, { p50: number }>)[b].p50 < 50),
          enumAtLeast100k: enumeration[b]!.median >= 100_000,
        },
      ]),
    );
    const admin = new pg.Client({ connectionString: cluster.adminUrl.replace(/\/postgres$/, '/vigil') });
    await admin.connect();
    const version = (await admin.query<{ v: string }>('SHOW server_version')).rows[0]!.v;
    await admin.end();
    const report = {
      date: new Date().toISOString(),
      node: process.version,
      postgres: version,
      cores: os.cpus().length,
      loadAverage: { start: loadStart.map((l) => round(l, 2)), end: os.loadavg().map((l) => round(l, 2)) },
      records: RECORDS,
      build: info,
      searchMs: results,
      enumeration: { records: ENUM_RECORDS, pageSize: ENUM_PAGE, recordsPerSecond: enumeration, postgresToSqlite },
      goals,
    };
    fs.writeFileSync(path.join(CACHE, 'results.json'), JSON.stringify(report, null, 2));
    console.log(JSON.stringify(report, null, 2));
    if (Object.values(goals).some((g) => !g.searchP50Under50ms || !g.enumAtLeast100k)) process.exitCode = 1;
  } finally {
    for (const stop of stops) await stop().catch((error: Error) => console.error(error.message));
    fs.rmSync(fleetDir, { recursive: true, force: true });
  }
}

main().catch((error: Error) => {
  console.error(error.stack);
  process.exit(1);
});
