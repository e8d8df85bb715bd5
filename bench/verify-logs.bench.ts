/**
 * Cost of log file tamper evidence (docs/integrity.md, "Log files"):
 * 1. writing: records stored and written to a TSV log file through LogFileOutput in batches of
 *    5,000, in the pipeline's transaction, with the sidecar entry of each batch (flushed with it);
 *    the sidecar's share is timed separately (its chain and line digests) in the same run;
 * 2. `vigil verify --data-dir --logs` (runVerification: the database and the log files) over
 *    the whole store, in records/s; the log files alone; and the database alone. From the
 *    compiled agent (dist/, built by `npx tsc -b`), as `vigil verify` runs.
 *
 *     tsx bench/verify-logs.bench.ts [records, default 1000000]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { settingsSchema } from '../agent/config/settings-schema.js';
import { localHostType } from '../agent/config/monitoring-schema.js';
import { encodeDigests, nextLinesChain } from '../agent/integrity/log-sidecar-format.js';
import type { runVerification as RunVerification } from '../agent/integrity/log-verification.js';
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

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-verify-logs-bench-'));
const dir = path.join(root, 'logs');
const store = AuditStore.open({ file: path.join(root, 'audit.db'), synchronous: 'NORMAL' });
const key = await SigningKey.load(path.join(root, 'secrets'));
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

// Verification runs from the compiled agent (dist/, `npx tsc -b`) as `vigil verify` does: its
// worker threads started from the TypeScript sources would spend seconds compiling first.
const compiled = new URL('../dist/agent/integrity/log-verification.js', import.meta.url);
if (!fs.existsSync(compiled)) throw new Error('build the agent first (npx tsc -b): verify runs from dist/');
const { runVerification } = (await import(compiled.href)) as { runVerification: typeof RunVerification };
const job = { auditDb: path.join(root, 'audit.db'), logs: dir, publicKeyPem: key.publicKeyPem };
let started = performance.now();
const both = await runVerification(job);
const bothMs = performance.now() - started;
started = performance.now();
const logsOnly = await runVerification({ ...job, auditDb: null });
const logsMs = performance.now() - started;
started = performance.now();
const databaseOnly = await runVerification({ ...job, logs: null });
const databaseMs = performance.now() - started;
console.log(
  JSON.stringify({
    ok: both.ok && logsOnly.ok && databaseOnly.ok,
    records: both.records,
    logLines: both.logLines,
    verifyWithDatabaseRecordsPerSecond: Math.round(both.records / (bothMs / 1000)),
    verifyLogsOnlyLinesPerSecond: Math.round(logsOnly.logLines / (logsMs / 1000)),
    verifyDatabaseOnlyRecordsPerSecond: Math.round(databaseOnly.records / (databaseMs / 1000)),
  }),
);
fs.rmSync(root, { recursive: true, force: true });
