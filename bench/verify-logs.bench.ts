/**
 * Cost of log file tamper evidence (docs/integrity.md, "Log files"):
 * 1. writing: records stored and written to a TSV log file through LogFileOutput in batches of
 *    5,000, in the pipeline's transaction, with the sidecar entry of each batch (flushed with it);
 *    the sidecar's share is timed separately (its chain and line digests) in the same run;
 * 2. `vigil verify --data-dir --logs` (runVerification: the database and the log files) over
 *    the whole store, in records/s; the log files alone; and the database alone. From the
 *    compiled agent (dist/, built by `npx tsc -b`), as `vigil verify` runs.
 *
 * Verification runs ROUNDS times (default 3), the three kinds interleaved; medians of the rates
 * and of the CPU time per record (the whole process, worker threads included) are printed.
 *
 *     tsx bench/verify-logs.bench.ts [records, default 1000000]
 *     VIGIL_BENCH_DIR=DIR   keep the data there, and reuse it when DIR already holds it (no writing)
 *     ROUNDS=n
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { settingsSchema } from '../agent/config/settings-schema.js';
import { localHostType } from '../agent/config/monitoring-schema.js';
import { encodeDigests, nextLinesChain } from '../agent/integrity/log-sidecar-format.js';
import type { runVerification as RunVerification, VerificationJob } from '../agent/integrity/log-verification.js';
import { SigningKey } from '../agent/integrity/signing-key.js';
import { silentLogger } from '../agent/log/logger.js';
import { DiskGuard } from '../agent/outputs/disk-guard.js';
import { LogFileOutput } from '../agent/outputs/log-file-output.js';
import { tsvLine } from '../agent/outputs/log-line-format.js';
import type { StoredItem } from '../agent/pipeline/pipeline-item.js';
import { AuditStore } from '../agent/store/audit-store.js';
import { OutputPositions } from '../agent/store/output-positions.js';
import { GENESIS } from '../agent/store/record-chain.js';
import { StatusRegistry } from '../agent/status/status-registry.js';

const total = Number(process.argv[2] ?? 1_000_000);
const BATCH = 5_000;
const T0 = Date.UTC(2026, 10, 20, 8);

const ROUNDS = Number(process.env['ROUNDS'] ?? 3);
const keep = process.env['VIGIL_BENCH_DIR'];
const root = keep ?? fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-verify-logs-bench-'));
const reused = keep !== undefined && fs.existsSync(path.join(keep, 'audit.db'));
fs.mkdirSync(root, { recursive: true });
const dir = path.join(root, 'logs');
const key = await SigningKey.load(path.join(root, 'secrets'));
if (!reused) await write();

async function write(): Promise<void> {
  const store = AuditStore.open({ file: path.join(root, 'audit.db'), synchronous: 'NORMAL' });
  const settings = settingsSchema.parse({
    hosts: [{ id: 'h1', host: 'ws42', type: localHostType(), includePaths: [root] }],
    outputs: [{ id: 'o1', hostId: 'h1', type: 'LogFile', logFile: { headerRow: true, zipClosedFiles: false } }],
  });
  const output = new LogFileOutput({
    output: settings.outputs[0]!,
    host: settings.hosts[0]!,
    dir,
    positions: new OutputPositions(store.db),
    guard: new DiskGuard(
      dir,
      () => ({ maxLocalSize: 10 ** 12, minLocalFreeSpace: 0 }),
      () => 10 ** 13,
    ),
    status: new StatusRegistry(),
    log: silentLogger,
    userId: 1000,
    signer: key,
    now: () => T0,
  });
  output.recover();

  function batch(from: number): StoredItem[] {
    return Array.from({ length: BATCH }, (_, i) => {
      const what = `/home/alice/projects/report-${from + i}.docx`;
      const record = {
        Who: 'WS42\\alice',
        Action: 'Modified',
        What: what,
        When: new Date(T0 + from + i).toISOString(),
        Where: 'WS42',
        ObjectType: 'File',
        DataSource: 'File System',
      };
      return {
        record,
        timeMs: T0 + from + i,
        hostId: 'h1',
        file: { operation: 'Modified', objectType: 'File', path: what },
      } as StoredItem;
    });
  }

  let writeMs = 0;
  let sidecarMs = 0;
  let chain = GENESIS;
  for (let at = 0; at < total; at += BATCH) {
    const items = batch(at);
    let started = performance.now();
    store.transaction(() => {
      const stored = store.insertInTransaction(items.map((item) => item.record));
      output.write(items.map((item, i) => ({ ...item, stored: stored[i]! })));
    });
    output.committed();
    writeMs += performance.now() - started;
    // What the sidecar adds per batch: the chain over the batch's lines and their digests.
    const bytes = Buffer.from(
      items.map((item) => tsvLine({ ...item, stored: item.record } as StoredItem, 1000)).join(''),
    );
    started = performance.now();
    chain = nextLinesChain(chain, bytes);
    encodeDigests(bytes);
    sidecarMs += performance.now() - started;
  }
  output.sign(T0 + 1);
  await output.stop();
  store.close();
  console.log(
    JSON.stringify({
      records: total,
      writeRecordsPerSecond: Math.round(total / (writeMs / 1000)),
      sidecarShareOfWrite: `${((sidecarMs / (writeMs - sidecarMs)) * 100).toFixed(1)} % (chain and line digests)`,
      sidecarBytesPerLine: Number(
        (
          fs.statSync(
            path.join(
              dir,
              fs.readdirSync(dir).find((n) => n.endsWith('.sig'))!,
            ),
          ).size /
          (total + 1)
        ).toFixed(1),
      ),
    }),
  );
}

// Verification runs from the compiled agent (dist/, `npx tsc -b`) as `vigil verify` does: its
// worker threads started from the TypeScript sources would spend seconds compiling first.
const compiled = new URL('../dist/agent/integrity/log-verification.js', import.meta.url);
if (!fs.existsSync(compiled)) throw new Error('build the agent first (npx tsc -b): verify runs from dist/');
const { runVerification } = (await import(compiled.href)) as { runVerification: typeof RunVerification };
const job: VerificationJob = { auditDb: path.join(root, 'audit.db'), logs: dir, publicKeyPem: key.publicKeyPem };

interface Round {
  ms: number;
  /** CPU time of the whole process, all threads (workers included), in ms. */
  cpuMs: number;
  ok: boolean;
  records: number;
  logLines: number;
}
async function timed(which: VerificationJob): Promise<Round> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const report = await runVerification(which);
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return {
    ms,
    cpuMs: (used.user + used.system) / 1000,
    ok: report.ok,
    records: report.records,
    logLines: report.logLines,
  };
}
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
// Interleaved rounds (both, logs only, database only, again), medians: the three are measured
// under the same load.
const kinds: Record<'both' | 'logsOnly' | 'databaseOnly', VerificationJob> = {
  both: job,
  logsOnly: { ...job, auditDb: null },
  databaseOnly: { ...job, logs: null },
};
const rounds: Record<keyof typeof kinds, Round[]> = { both: [], logsOnly: [], databaseOnly: [] };
for (let round = 0; round < ROUNDS; round++)
  for (const kind of Object.keys(kinds) as Array<keyof typeof kinds>) rounds[kind].push(await timed(kinds[kind]));
const rate = (list: Round[], count: (r: Round) => number): number =>
  Math.round(median(list.map((r) => count(r) / (r.ms / 1000))));
const cpuPer = (list: Round[], count: (r: Round) => number): number =>
  Number(median(list.map((r) => (r.cpuMs * 1000) / count(r))).toFixed(3));
const records = (r: Round): number => r.records;
const lines = (r: Round): number => r.logLines;
console.log(
  JSON.stringify({
    ok: Object.values(rounds).every((list) => list.every((r) => r.ok)),
    rounds: ROUNDS,
    records: rounds.both[0]!.records,
    logLines: rounds.both[0]!.logLines,
    cores: os.availableParallelism(),
    loadAverage: os.loadavg().map((l) => Number(l.toFixed(2))),
    verifyWithLogsRecordsPerSecond: rate(rounds.both, records),
    verifyWithLogsCpuMicrosPerRecord: cpuPer(rounds.both, records),
    verifyLogsOnlyLinesPerSecond: rate(rounds.logsOnly, lines),
    verifyLogsOnlyCpuMicrosPerLine: cpuPer(rounds.logsOnly, lines),
    verifyDatabaseOnlyRecordsPerSecond: rate(rounds.databaseOnly, records),
    verifyDatabaseOnlyCpuMicrosPerRecord: cpuPer(rounds.databaseOnly, records),
    wallMs: Object.fromEntries(Object.entries(rounds).map(([k, list]) => [k, list.map((r) => Math.round(r.ms))])),
  }),
);
if (!keep) fs.rmSync(root, { recursive: true, force: true });
