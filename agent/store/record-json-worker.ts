/**
 * Worker thread that builds the JSON of record slices (RECORD_JSON_SQL) on its own read-only
 * connection, so a page of an enumeration is built on two cores at once and the agent's event
 * loop spends less time in SQLite. Answers each job with UTF-8 bytes (transferred, not copied).
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { RECORD_JSON_SQL } from './raw-record.js';
import { fileIdentity, sameFile } from './search-indexer.js';

export interface RecordJsonJob {
  id: number;
  seqs: number[];
}
export type RecordJsonReply = { id: number; bytes: Uint8Array } | { id: number; error: string };

const port = parentPort!;
const file = (workerData as { file: string }).file;
let db: Database.Database | null = null;
let id: ReturnType<typeof fileIdentity> = null;
let byRange: Database.Statement | null = null;
let byList: Database.Statement | null = null;

function connection(): { byRange: Database.Statement; byList: Database.Statement } {
  const current = fileIdentity(file);
  if (db && !sameFile(current, id)) {
    db.close();
    db = null;
  }
  if (!db) {
    db = new Database(file, { readonly: true, fileMustExist: true, timeout: 250 });
    id = current;
    const select = `SELECT CAST(group_concat(${RECORD_JSON_SQL}, ',' ORDER BY seq) AS BLOB) FROM activity_records`;
    byRange = db.prepare(`${select} WHERE seq >= ? AND seq <= ?`).pluck();
    byList = db.prepare(`${select} WHERE seq IN (SELECT value FROM json_each(?))`).pluck();
  }
  return { byRange: byRange!, byList: byList! };
}

port.on('message', (job: RecordJsonJob) => {
  try {
    const statements = connection();
    const first = job.seqs[0]!;
    const last = job.seqs[job.seqs.length - 1]!;
    const result =
      last - first + 1 === job.seqs.length
        ? statements.byRange.get(first, last)
        : statements.byList.get(JSON.stringify(job.seqs));
    const bytes = result instanceof Uint8Array ? result : new Uint8Array(0);
    port.postMessage({ id: job.id, bytes } satisfies RecordJsonReply, [bytes.buffer as ArrayBuffer]);
  } catch (error) {
    db?.close();
    db = null;
    port.postMessage({ id: job.id, error: (error as Error).message } satisfies RecordJsonReply);
  }
});
