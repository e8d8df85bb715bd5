/**
 * Ingest benchmark: records through the whole pipeline — normalise (file change →
 * activity record) → bounded queue → AuditStore (WAL, synchronous=FULL, whatever indexes its
 * migrations create) → LogFile output (TSV, flushed to disk inside each batch transaction) —
 * against a bare better-sqlite3 batched insert of the same rows into a table without
 * secondary indexes, measured in the same run. Limits: ≥ 100,000 records/s and ≥ 25 % of bare;
 * and the record chain (docs/integrity.md) at most 5 % of the pipeline's time without it,
 * from the chain computed alone over the same records right after each pipeline run.
 *
 *   npm run bench:pipeline            (RECORDS=300000 RUNS=3 to change the size)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SettingsStore } from '../agent/config/settings-store.js';
import { localHostType } from '../agent/config/monitoring-schema.js';
import { silentLogger } from '../agent/log/logger.js';
import { fileChangeToItem, type FileChange } from '../agent/monitor/file-change.js';
import { localAccount } from '../agent/monitor/local-account.js';
import { OutputManager } from '../agent/outputs/output-manager.js';
import { Pipeline } from '../agent/pipeline/pipeline.js';
import { AuditStore } from '../agent/store/audit-store.js';
import { OutputPositions } from '../agent/store/output-positions.js';
import { StatusRegistry } from '../agent/status/status-registry.js';
import { RidGenerator } from '../agent/store/rid.js';
import { SCHEMA_VERSION } from '../agent/store/audit-schema.js';
import { GENESIS, chainRows } from '../agent/store/record-chain.js';

const RECORDS = Number(process.env['RECORDS'] ?? 300_000);
const RUNS = Number(process.env['RUNS'] ?? 3);
const CHUNK = 5000; // what one watcher flush submits at most
const account = localAccount();
const host = { id: 'bench-host', host: 'bench' };

function changes(n: number): FileChange[] {
  const t = Date.now();
  return Array.from({ length: n }, (_, i) => ({
    action: 'Added',
    dir: false,
    path: `/home/user/Documents/project-${i % 500}/report-${i}.docx`,
    timeMs: t + Math.floor(i / 100),
    root: '/home/user/Documents',
  }));
}

async function pipelineRun(dir: string, input: FileChange[]): Promise<{ rate: number; longestCommitMs: number }> {
  const settingsFile = path.join(dir, 'settings.json');
  fs.writeFileSync(
    settingsFile,
    JSON.stringify({
      hosts: [{ id: host.id, host: host.host, type: localHostType(), includePaths: ['/home/user/Documents'] }],
      outputs: [{ id: 'bench-log', hostId: host.id, type: 'LogFile' }],
    }),
  );
  const settings = await SettingsStore.open(settingsFile);
  const store = AuditStore.open({ file: path.join(dir, 'audit.db') });
  const status = new StatusRegistry();
  const outputs = new OutputManager({
    settings,
    positions: new OutputPositions(store.db),
    status,
    log: silentLogger,
    logsDir: path.join(dir, 'logs'),
    hostname: account.hostname,
    userId: account.uid,
  });
  outputs.start();
  const pipeline = new Pipeline({ store, outputs, log: silentLogger });
  const started = process.hrtime.bigint();
  const submitted: Array<Promise<unknown>> = [];
  for (let i = 0; i < input.length; i += CHUNK) {
    const items = input.slice(i, i + CHUNK).map((change) => fileChangeToItem(change, host, account));
    submitted.push(pipeline.write(items));
    if (i % (CHUNK * 4) === 0) await new Promise((resolve) => setImmediate(resolve)); // let the writer run
  }
  await Promise.all(submitted);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const lines = fs
    .readdirSync(path.join(dir, 'logs'))
    .filter((f) => !f.endsWith('.sig')) // the sidecars (docs/integrity.md)
    .reduce((n, f) => n + fs.readFileSync(path.join(dir, 'logs', f), 'utf8').split('\n').length - 1, 0);
  if (store.count() !== input.length || lines !== input.length) {
    throw new Error(`lost records: store ${store.count()}, log lines ${lines}, expected ${input.length}`);
  }
  const { longestCommitMs } = pipeline.stats();
  await pipeline.stop();
  await outputs.stop();
  store.close();
  await settings.close();
  return { rate: input.length / seconds, longestCommitMs };
}

function bareRun(dir: string, input: FileChange[]): number {
  // The same rows, prepared the same way (RIDs, record times), into a table with only its rowid.
  const rids = new RidGenerator();
  const rows = input.map((c) => {
    const item = fileChangeToItem(c, host, account);
    const whenMs = Date.parse(item.record.When);
    const r = item.record;
    return [
      rids.next(whenMs),
      whenMs,
      r.Who,
      r.Action,
      r.What,
      r.Where,
      r.ObjectType,
      r.DataSource,
      r.MonitoringPlan?.Name ?? null,
      r.MonitoringPlan?.ID ?? null,
      r.Item?.Name ?? null,
      r.Workstation ?? null,
      null,
    ];
  });
  const db = new Database(path.join(dir, 'bare.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE t (seq INTEGER PRIMARY KEY, rid TEXT, when_ms INTEGER, who TEXT, action TEXT, what TEXT,
    location TEXT, object_type TEXT, data_source TEXT, plan_name TEXT, plan_id TEXT, item_name TEXT,
    workstation TEXT, details TEXT)`);
  const insert = db.prepare(
    'INSERT INTO t (rid, when_ms, who, action, what, location, object_type, data_source, plan_name, plan_id, item_name, workstation, details) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)',
  );
  const batch = db.transaction((slice: unknown[][]) => {
    for (const row of slice) insert.run(row);
  });
  const started = process.hrtime.bigint();
  for (let i = 0; i < rows.length; i += CHUNK) batch(rows.slice(i, i + CHUNK));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  db.close();
  return rows.length / seconds;
}

/**
 * The record chain alone over the same records, as AuditStore computes it inside the pipeline's
 * commit (chainRows over each 32-row slice of bound values), in seconds: the chain's share of
 * the pipeline measured in the same run, without a second build of the store that skips it.
 */
function chainAloneRun(input: FileChange[]): number {
  const rids = new RidGenerator();
  const args = new Array<unknown>(14 * 32);
  const records = input.map((c) => fileChangeToItem(c, host, account).record);
  const started = process.hrtime.bigint();
  let chain = GENESIS;
  for (let from = 0; from < records.length; from += 32) {
    const rows = Math.min(32, records.length - from);
    for (let i = 0; i < rows; i++) {
      const r = records[from + i]!;
      const whenMs = Date.parse(r.When);
      const o = i * 14;
      args[o] = rids.next(whenMs);
      args[o + 1] = whenMs;
      args[o + 2] = r.Who;
      args[o + 3] = r.Action;
      args[o + 4] = r.What;
      args[o + 5] = r.Where;
      args[o + 6] = r.ObjectType;
      args[o + 7] = r.DataSource;
      args[o + 8] = r.MonitoringPlan?.Name ?? null;
      args[o + 9] = r.MonitoringPlan?.ID ?? null;
      args[o + 10] = r.Item?.Name ?? null;
      args[o + 11] = r.Workstation ?? null;
      args[o + 12] = null;
      args[o + 13] = chain;
    }
    chain = chainRows(chain, args, rows, 14).subarray((rows - 1) * 32);
  }
  return Number(process.hrtime.bigint() - started) / 1e9;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const input = changes(RECORDS);
const pipelineRates: number[] = [];
const bareRates: number[] = [];
const longestCommits: number[] = [];
const chainShares: number[] = [];
const chainMicros: number[] = [];
for (let run = 0; run < RUNS; run++) {
  for (const kind of ['bare', 'pipeline'] as const) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `vigil-bench-${kind}-`));
    try {
      if (kind === 'bare') bareRates.push(bareRun(dir, input));
      else {
        const run = await pipelineRun(dir, input);
        pipelineRates.push(run.rate);
        longestCommits.push(run.longestCommitMs);
        // The chain alone, right after: its share of this run's pipeline time.
        const chainSeconds = chainAloneRun(input);
        const pipelineSeconds = input.length / run.rate;
        chainShares.push(chainSeconds / (pipelineSeconds - chainSeconds));
        chainMicros.push((chainSeconds * 1e6) / input.length);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
}
const pipelineRate = median(pipelineRates);
const bareRate = median(bareRates);
const ratio = pipelineRate / bareRate;
const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const verdict = (ok: boolean): string => (ok ? 'pass' : 'FAIL');
console.log(`### Ingest through the pipeline (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores, Node ${process.version})

${fmt(RECORDS)} file records per run, ${RUNS} runs, median; audit store schema version ${SCHEMA_VERSION}.

| what | records/s | limit | result |
|---|---|---|---|
| normalise → queue → AuditStore (WAL, FULL) → LogFile TSV (fdatasync per batch) | ${fmt(pipelineRate)} | ≥ 100,000 | ${verdict(pipelineRate >= 100_000)} |
| bare better-sqlite3, same rows, batches of ${CHUNK}, no secondary index (WAL, NORMAL) | ${fmt(bareRate)} | — | — |
| pipeline / bare | ${(ratio * 100).toFixed(1)} % | ≥ 25 % | ${verdict(ratio >= 0.25)} |
| the record chain's share: pipeline with it / without it − 1 (chainRows alone, same records, same run) | ${(median(chainShares) * 100).toFixed(1)} % (${median(chainMicros).toFixed(2)} µs/record) | ≤ 5 % | ${verdict(median(chainShares) <= 0.05)} |

Runs: pipeline ${pipelineRates.map(fmt).join(', ')}; bare ${bareRates.map(fmt).join(', ')}; chain share ${chainShares.map((x) => `${(x * 100).toFixed(1)} %`).join(', ')}.
Longest commit (event loop held, batches of ${CHUNK}): ${longestCommits.map((ms) => ms.toFixed(1)).join(', ')} ms.`);
if (pipelineRate < 100_000 || ratio < 0.25) process.exitCode = 1;
