/**
 * Worker thread that builds the JSON of record slices (RECORD_JSON_SQL) on its own read-only
 * connection, so a page of an enumeration is built on two cores at once and the agent's event
 * loop spends less time in SQLite. Answers each job with UTF-8 bytes (transferred, not copied).
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { recordsJson } from './raw-record.js';
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
const statements = new Map<string, Database.Statement>();

function connection(): Database.Database {
  const current = fileIdentity(file);
  if (db && !sameFile(current, id)) {
    db.close();
    db = null;
  }
  if (!db) {
    db = new Database(file, { readonly: true, fileMustExist: true, timeout: 250 });
    id = current;
    statements.clear();
  }
  return db;
}

function prepare(sql: string): Database.Statement {
  let statement = statements.get(sql);
  if (!statement) statements.set(sql, (statement = connection().prepare(sql)));
  return statement;
}

port.on('message', (job: RecordJsonJob) => {
  try {
    connection();
    const json = job.seqs.length === 0 ? Buffer.alloc(0) : recordsJson(job.seqs, prepare);
    const bytes = new Uint8Array(json.buffer, json.byteOffset, json.byteLength);
    // Transfer only a buffer of its own (small Buffers share Node's pool and cannot move).
    const own = json.byteOffset === 0 && json.byteLength === json.buffer.byteLength ? bytes : new Uint8Array(bytes);
    port.postMessage({ id: job.id, bytes: own } satisfies RecordJsonReply, [own.buffer as ArrayBuffer]);
  } catch (error) {
    db?.close();
    db = null;
    statements.clear();
    port.postMessage({ id: job.id, error: (error as Error).message } satisfies RecordJsonReply);
  }
});
