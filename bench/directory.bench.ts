/**
 * Directory monitoring benchmark (docs/benchmarks.md, "Directory monitoring"). A real slapd with
 * VIGIL_BENCH_ENTRIES people (default 50,000, loaded with slapadd) and a real `vigil agent`
 * process per round, for both ways of reading changes: the accesslog (actor known) and the
 * snapshot comparison (a slapd without the accesslog overlay). Each round:
 * 1. baseline: the domain is enabled; time until its first poll is committed, the agent's
 *    resident memory (now and peak) and used heap before and after;
 * 2. idle: the agent's CPU per second over two polling intervals with nothing changing (each
 *    poll's own cost; in snapshot mode a read of the whole directory);
 * 3. changes: VIGIL_BENCH_CHANGES (default 1,000) modifies, deletions, renames and additions
 *    sent at once; the audit API is read every 200 ms until each has its record; per-change
 *    latency (record seen − server's answer) against 2 × the polling interval; the agent's CPU
 *    over that window, and net of the idle rate.
 * Rounds (VIGIL_BENCH_ROUNDS, default 3) alternate the two modes; medians over rounds. Progress
 * goes to stderr, the results as JSON to stdout. Exit code 1 when a change took longer than two
 * polling intervals or never appeared.
 * Environment: VIGIL_BENCH_ENTRIES, VIGIL_BENCH_CHANGES, VIGIL_BENCH_ROUNDS,
 * VIGIL_BENCH_POLL_SECONDS (default 5), VIGIL_BENCH_MODES (default accesslog,snapshot).
 * Needs the compiled agent (npx tsc -b) and Debian's slapd.
 */
import os from 'node:os';
import {
  EDITOR_DN,
  READER_DN,
  READER_PASSWORD,
  SlapdServer,
  slapdMissing,
  SUFFIX,
} from '../test/helpers/slapd-server.js';
import { startDirectoryAgent, type DirectoryAgent } from './directory-agent.js';
import { applyChanges } from './directory-workload.js';

type Mode = 'accesslog' | 'snapshot';

const ENTRIES = Number(process.env['VIGIL_BENCH_ENTRIES'] ?? 50_000);
const CHANGES = Number(process.env['VIGIL_BENCH_CHANGES'] ?? 1_000);
const ROUNDS = Number(process.env['VIGIL_BENCH_ROUNDS'] ?? 3);
const INTERVAL = Number(process.env['VIGIL_BENCH_POLL_SECONDS'] ?? 5);
const MODES = (process.env['VIGIL_BENCH_MODES'] ?? 'accesslog,snapshot').split(',') as Mode[];
const TAIL_MS = 200;
const POLICY = `<Context>ou=people,${SUFFIX}</Context><Class>inetOrgPerson</Class>`;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const load = (): number => Number(os.loadavg()[0]!.toFixed(2));
const mib = (bytes: number): number => Math.round((bytes / 2 ** 20) * 10) / 10;
const round2 = (n: number): number => Math.round(n * 100) / 100;
const percentile = (xs: number[], p: number): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)] ?? NaN;
};
const median = (xs: number[]): number => percentile(xs, 0.5);
const log = (line: string): void => void process.stderr.write(line + '\n');

interface RoundResult {
  mode: Mode;
  round: number;
  loadBefore: number;
  loadAfter: number;
  baseline: { seconds: number; rssBeforeMiB: number; rssAfterMiB: number; peakRssMiB: number };
  heap: { beforeMiB: number; afterBaselineMiB: number; afterChangesMiB: number };
  idleCpuPerSecond: number;
  changes: {
    applySeconds: number;
    appeared: number;
    missing: number;
    withActor: number;
    latencyMs: { p50: number; p95: number; max: number };
    goalMs: number;
    windowSeconds: number;
    cpuSeconds: number;
    cpuSecondsNetOfIdle: number;
  };
}

/** Reads the audit API every TAIL_MS for `ms`, noting when each directory record was first seen. */
async function tail(
  agent: DirectoryAgent,
  seen: Map<string, { at: number; who: string; action: string }>,
  until: () => boolean,
): Promise<void> {
  while (!until()) {
    const now = Date.now();
    for (const record of await agent.newRecords()) {
      if (record.DataSource !== 'LDAP Directory' || seen.has(record.What)) continue;
      seen.set(record.What, { at: now, who: record.Who, action: record.Action });
    }
    await sleep(TAIL_MS);
  }
}

async function runRound(slapd: SlapdServer, mode: Mode, round: number): Promise<RoundResult> {
  const loadBefore = load();
  const agent = await startDirectoryAgent({
    ldapServer: slapd.url,
    bindDn: READER_DN,
    password: READER_PASSWORD,
    baseDn: SUFFIX,
    pollingIntervalSeconds: INTERVAL,
    changes: POLICY,
  });
  try {
    await sleep(2_000); // start-up work (index worker, first checkpoints) settles
    await agent.newRecords(); // the self-audit of the set-up is skipped
    const rssBefore = agent.memory().rss;
    const heapBefore = await agent.heapUsed();
    const started = performance.now();
    await agent.enableAndWaitForBaseline();
    const baselineSeconds = (performance.now() - started) / 1000;
    const afterBaseline = agent.memory();
    const heapAfterBaseline = await agent.heapUsed();
    log(`  ${mode} round ${round}: baseline ${baselineSeconds.toFixed(2)} s, RSS ${mib(afterBaseline.rss)} MiB`);

    const seen = new Map<string, { at: number; who: string; action: string }>();
    const idleCpu = agent.cpuSeconds();
    const idleStart = performance.now();
    await tail(agent, seen, () => performance.now() - idleStart > 2 * INTERVAL * 1000);
    const idleCpuPerSecond = (agent.cpuSeconds() - idleCpu) / ((performance.now() - idleStart) / 1000);

    const cpuStart = agent.cpuSeconds();
    const windowStart = performance.now();
    let applied: Awaited<ReturnType<typeof applyChanges>> | null = null;
    const applying = applyChanges(slapd.url, round, CHANGES).then((a) => (applied = a));
    const deadline = (): boolean =>
      applied !== null && Date.now() > Math.max(...applied.map((c) => c.appliedAtMs)) + 10 * INTERVAL * 1000 + 60_000;
    await tail(agent, seen, () => (applied !== null && applied.every((c) => seen.has(c.what))) || deadline());
    const windowSeconds = (performance.now() - windowStart) / 1000;
    const cpuSeconds = agent.cpuSeconds() - cpuStart;
    const changes = await applying;
    const applySeconds =
      (Math.max(...changes.map((c) => c.appliedAtMs)) - Math.min(...changes.map((c) => c.appliedAtMs))) / 1000;
    const latencies: number[] = [];
    let withActor = 0;
    for (const change of changes) {
      const record = seen.get(change.what);
      if (!record || record.action !== change.action) continue;
      latencies.push(record.at - change.appliedAtMs);
      if (record.who === EDITOR_DN) withActor++;
    }
    const heapAfterChanges = await agent.heapUsed();
    const result: RoundResult = {
      mode,
      round,
      loadBefore,
      loadAfter: load(),
      baseline: {
        seconds: round2(baselineSeconds),
        rssBeforeMiB: mib(rssBefore),
        rssAfterMiB: mib(afterBaseline.rss),
        peakRssMiB: mib(afterBaseline.peakRss),
      },
      heap: {
        beforeMiB: mib(heapBefore),
        afterBaselineMiB: mib(heapAfterBaseline),
        afterChangesMiB: mib(heapAfterChanges),
      },
      idleCpuPerSecond: round2(idleCpuPerSecond),
      changes: {
        applySeconds: round2(applySeconds),
        appeared: latencies.length,
        missing: changes.length - latencies.length,
        withActor,
        latencyMs: { p50: median(latencies), p95: percentile(latencies, 0.95), max: Math.max(...latencies) },
        goalMs: 2 * INTERVAL * 1000,
        windowSeconds: round2(windowSeconds),
        cpuSeconds: round2(cpuSeconds),
        cpuSecondsNetOfIdle: round2(cpuSeconds - idleCpuPerSecond * windowSeconds),
      },
    };
    const c = result.changes;
    log(
      `  ${mode} round ${round}: ${c.appeared}/${changes.length} in the audit API, latency p50 ${c.latencyMs.p50} ms ` +
        `p95 ${c.latencyMs.p95} ms max ${c.latencyMs.max} ms (goal ${c.goalMs} ms); CPU ${c.cpuSeconds} s ` +
        `(${c.cpuSecondsNetOfIdle} s net of idle ${result.idleCpuPerSecond} s/s); load ${result.loadAfter}`,
    );
    return result;
  } finally {
    await agent.stop();
  }
}

function summary(results: RoundResult[]): Record<string, unknown> {
  const of = (f: (r: RoundResult) => number): number => median(results.map(f));
  return {
    rounds: results.length,
    baselineSeconds: of((r) => r.baseline.seconds),
    rssBeforeMiB: of((r) => r.baseline.rssBeforeMiB),
    rssAfterBaselineMiB: of((r) => r.baseline.rssAfterMiB),
    peakRssMiB: of((r) => r.baseline.peakRssMiB),
    heapBeforeMiB: of((r) => r.heap.beforeMiB),
    heapAfterBaselineMiB: of((r) => r.heap.afterBaselineMiB),
    idleCpuPerSecond: of((r) => r.idleCpuPerSecond),
    latencyP50Ms: of((r) => r.changes.latencyMs.p50),
    latencyP95Ms: of((r) => r.changes.latencyMs.p95),
    latencyMaxMs: Math.max(...results.map((r) => r.changes.latencyMs.max)),
    goalMs: 2 * INTERVAL * 1000,
    missing: results.reduce((n, r) => n + r.changes.missing, 0),
    withActor: of((r) => r.changes.withActor),
    cpuSecondsPer1000: of((r) => (r.changes.cpuSeconds * 1000) / CHANGES),
    cpuSecondsPer1000NetOfIdle: of((r) => (r.changes.cpuSecondsNetOfIdle * 1000) / CHANGES),
  };
}

async function main(): Promise<void> {
  const missing = slapdMissing();
  if (missing) throw new Error(missing);
  if (ENTRIES < ROUNDS * CHANGES)
    throw new Error(`VIGIL_BENCH_ENTRIES must be at least rounds × changes (${ROUNDS * CHANGES})`);
  log(
    `${ENTRIES} entries, ${CHANGES} changes × ${ROUNDS} rounds, polling every ${INTERVAL} s; load ${load()} on ${os.cpus().length} cores`,
  );
  const servers = new Map<Mode, SlapdServer>();
  const loadSeconds: Record<string, number> = {};
  try {
    for (const mode of MODES) {
      const started = performance.now();
      servers.set(mode, await SlapdServer.create({ accesslog: mode === 'accesslog', bulkPeople: ENTRIES }));
      loadSeconds[mode] = round2((performance.now() - started) / 1000);
      log(`slapd (${mode}): ${ENTRIES} entries loaded with slapadd in ${loadSeconds[mode]} s`);
    }
    const results: RoundResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of MODES) results.push(await runRound(servers.get(mode)!, mode, round));
    }
    const byMode = Object.fromEntries(MODES.map((m) => [m, summary(results.filter((r) => r.mode === m))]));
    const report = {
      entries: ENTRIES,
      changes: CHANGES,
      pollingIntervalSeconds: INTERVAL,
      cores: os.cpus().length,
      slapaddSeconds: loadSeconds,
      summary: byMode,
      rounds: results,
    };
    process.stdout.write(JSON.stringify(report, null, 2) + '\n');
    const missed = results.some((r) => r.changes.missing > 0 || r.changes.latencyMs.max > r.changes.goalMs);
    if (missed) log('GOAL MISSED: a change appeared later than two polling intervals, or not at all');
    process.exitCode = missed ? 1 : 0;
  } finally {
    for (const server of servers.values()) await server.dispose();
  }
}

main().catch((error: Error) => {
  log(error.stack ?? String(error));
  process.exit(2);
});
