/**
 * One verification as `vigil verify` runs it (docs/integrity.md): the audit database, then the
 * log files of a folder, in one report. Shared by the command and the console's "Verify now"
 * (which runs it in a worker thread: log-verification-worker.ts).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { verifyLogFolder } from './log-folder-check.js';
import type { VerifyReport } from './verify-report.js';
import { verifyStore } from './verify-store.js';

export interface VerificationJob {
  /** The audit database to check, or null for log files only. */
  auditDb: string | null;
  /** The folder of log files to check, or null for the database only. */
  logs: string | null;
  /** PEM of the public key; null: signatures cannot be checked (each is reported). */
  publicKeyPem: string | null;
}

export interface VerificationCounts {
  records: number;
  logFiles: number;
  logLines: number;
}

export async function runVerification(job: VerificationJob): Promise<VerifyReport & VerificationCounts> {
  const publicKey = job.publicKeyPem === null ? null : crypto.createPublicKey(job.publicKeyPem);
  const report: VerifyReport & VerificationCounts = {
    ok: true,
    verified: [],
    problems: [],
    records: 0,
    logFiles: 0,
    logLines: 0,
  };
  // The database (in worker threads once it is large: verify-store.ts) and the log files (on
  // this thread, streamed) at the same time: each waits on the other's I/O and CPU otherwise.
  const [store, logs] = await Promise.all([
    job.auditDb === null ? null : verifyStore(job.auditDb, publicKey),
    job.logs !== null && fs.existsSync(job.logs) ? verifyLogFolder(job.logs, publicKey) : null,
  ]);
  if (store !== null) {
    report.verified.push(...store.verified);
    report.problems.push(...store.problems);
    report.records = store.records;
  }
  if (logs !== null) {
    report.verified.push(...logs.verified);
    report.problems.push(...logs.problems);
    report.logFiles = logs.files;
    report.logLines = logs.lines;
  }
  report.ok = report.problems.length === 0;
  return report;
}
