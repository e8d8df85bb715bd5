/**
 * One agent of the fleet ingest benchmark (bench/fleet-forward.ts), in a process of its own:
 *
 *   tsx bench/fleet-forward-agent.ts fill STORE RECORDS TAG
 *     fills a new SQLite audit store with RECORDS workstation-like records through
 *     AuditStore.insertBatch (their hash chain included), then writes them as CSV (STORE.csv)
 *     in the column order of vigil_records, for the COPY baseline.
 *   tsx bench/fleet-forward-agent.ts forward STORE URL DATA_DIR AGENT_ID
 *     opens a RecordForwarder on STORE (the password in DATA_DIR), says `ready` over IPC, starts
 *     forwarding on `go` with the pacing cap lifted, and answers `done` once every record of STORE
 *     is in the fleet database, with its CPU time from `go` (all threads) and, summed over its
 *     batches, the time spent reading them from SQLite, waiting for the inserts lock and holding it.
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { silentLogger } from '../agent/log/logger.js';
import { AuditStore } from '../agent/store/audit-store.js';
import { RECORD_JSON_SQL } from '../agent/store/raw-record.js';
import { openFleetPool } from '../agent/fleet/fleet-connection.js';
import { utcDay } from '../agent/fleet/pg-schema.js';
import { RecordForwarder } from '../agent/fleet/record-forwarder.js';
import type { NewActivityRecord } from '../shared/activity-record.js';

/** A workstation's mix: 40 accounts, file paths of about 50 characters, a third with a detail. */
function generator(tag: string, records: number): (i: number) => NewActivityRecord {
  let s = 7 + Number(tag);
  const rnd = (): number => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const words = ['projects', 'docs', 'src', 'build', 'reports', 'photos', 'music', 'tmp', 'cache', 'notes'];
  const actions = ['Added', 'Modified', 'Removed', 'Renamed', 'Moved'];
  // The backlog of the last hours, today's day partition for most of it.
  const start = Date.now() - records * 20;
  return (i) => {
    const user = `user${Math.floor(rnd() * 40)}`;
    const record: NewActivityRecord = {
      Who: `CORP\\${user}`,
      Action: actions[Math.floor(rnd() * actions.length)]!,
      What: `/home/${user}/${words[Math.floor(rnd() * 10)]}/${words[Math.floor(rnd() * 10)]}/file-${i}.txt`,
      When: new Date(start + i * 20).toISOString(),
      Where: `ws-${tag}.corp.local`,
      ObjectType: rnd() < 0.9 ? 'File' : 'Folder',
      DataSource: 'File System',
      MonitoringPlan: { Name: 'Local files', ID: '{42F64379-163E-4A43-A9C5-4514C5A23798}' },
      Workstation: `WS-${tag}`,
    };
    if (rnd() < 0.3) record.DetailList = [{ PropertyName: 'Size', Before: String(i), After: String(i + 10) }];
    return record;
  };
}

/** A CSV field as COPY reads it: empty for NULL, otherwise quoted. */
function csvField(value: unknown): string {
  return value === null ? '' : `"${String(value).replace(/"/g, '""')}"`;
}

function fill(file: string, records: number, tag: string): void {
  const store = AuditStore.open({ file, synchronous: 'NORMAL' });
  const make = generator(tag, records);
  for (let done = 0; done < records; done += 1000) {
    const batch: NewActivityRecord[] = [];
    for (let i = done; i < Math.min(records, done + 1000); i++) batch.push(make(i));
    store.insertBatch(batch);
  }
  store.close();
  const db = new Database(file, { readonly: true });
  const out = fs.openSync(`${file}.csv`, 'w');
  let lines: string[] = [];
  const agentId = `AGENT-BENCH${tag}`;
  for (const r of db
    .prepare(`SELECT *, ${RECORD_JSON_SQL} AS json FROM activity_records ORDER BY seq`)
    .iterate() as Iterable<Record<string, unknown>>) {
    const chain = r['chain'] as Buffer | null;
    lines.push(
      [
        agentId,
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
        chain === null ? null : `\\x${chain.toString('hex')}`,
        utcDay(r['when_ms'] as number),
        r['json'], // what the forwarder sends with the columns (agent/fleet/forward-copy.ts)
      ]
        .map(csvField)
        .join(','),
    );
    if (lines.length === 10_000) {
      fs.writeSync(out, lines.join('\n') + '\n');
      lines = [];
    }
  }
  if (lines.length > 0) fs.writeSync(out, lines.join('\n') + '\n');
  fs.closeSync(out);
  db.close();
}

async function forward(file: string, url: string, dataDir: string, agentId: string): Promise<void> {
  const send = (message: object): void => void process.send!(message);
  const records = (
    new Database(file, { readonly: true }).prepare('SELECT max(seq) AS n FROM activity_records').get() as {
      n: number;
    }
  ).n;
  const pool = openFleetPool({ database: url }, dataDir, { max: 1 });
  let batches = 0;
  let readMs = 0;
  let lockWaitMs = 0;
  let lockHeldMs = 0;
  const forwarder = new RecordForwarder({
    auditDb: file,
    pool,
    database: url,
    agentId,
    log: silentLogger,
    pollMs: 5,
    pacing: { maxRecordsPerSecond: 1e9 },
    onBatch: (batch) => {
      batches += 1;
      readMs += batch.readMs;
      lockWaitMs += batch.lockWaitMs;
      lockHeldMs += batch.lockHeldMs;
    },
    ...(process.env['VIGIL_BENCH_BATCH'] ? { batchSize: Number(process.env['VIGIL_BENCH_BATCH']) } : {}),
  });
  await new Promise<void>((resolve) => {
    process.once('message', () => resolve());
    send({ ready: true });
  });
  const started = performance.now();
  const cpu = process.cpuUsage();
  await forwarder.start();
  await forwarder.waitForwarded(records, 1_800_000);
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  await forwarder.stop();
  await pool.end();
  send({ done: true, records, seconds, cpuMicros: used.user + used.system, batches, readMs, lockWaitMs, lockHeldMs });
}

const [mode, ...args] = process.argv.slice(2);
if (mode === 'fill') fill(args[0]!, Number(args[1]), args[2]!);
else if (mode === 'forward') await forward(args[0]!, args[1]!, args[2]!, args[3]!);
else throw new Error(`usage: fleet-forward-agent.ts fill|forward …`);
