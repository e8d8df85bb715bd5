/**
 * Worker thread of `vigil verify` (verify-store.ts): checks the links of one `seq` range of the
 * audit database per request, through its own read-only connection (verify-range.ts).
 */
import Database from 'better-sqlite3';
import { serveRequests } from '../util/worker-channel.js';
import { checkRange, type RangeJob, type RangeResult } from './verify-range.js';

serveRequests<RangeJob, RangeResult>((job) => {
  const db = new Database(job.file, { readonly: true, fileMustExist: true });
  try {
    return db.transaction(() => checkRange(db, job))();
  } finally {
    db.close();
  }
});
