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
  // The database and the log files at the same time: the log files on this thread (streamed),
  // the database in worker threads once it is large, one fewer than the cores, and on this
  // thread too once the log files are done (verify-store.ts). The database starts first: its
  // threads load their modules while this thread reads the first sidecar.
  const checkLogs = job.logs !== null && fs.existsSync(job.logs);
  let logsDone = (): void => undefined;
  const logsSettled = new Promise<void>((resolve) => (logsDone = resolve));
  const storeCheck =
    job.auditDb === null ? null : verifyStore(job.auditDb, publicKey, checkLogs ? { alongside: logsSettled } : {});
  const logsCheck = checkLogs ? verifyLogFolder(job.logs!, publicKey).finally(logsDone) : null;
  const [store, logs] = await Promise.all([storeCheck, logsCheck]);
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
