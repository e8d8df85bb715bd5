/**
 * The last verification and "Verify now" for the console (docs/integrity.md, docs/console.md):
 * runs the same checks as `vigil verify --data-dir DIR --logs DIR/logs`, in a worker thread, one
 * at a time; the outcome is kept in `<data dir>/last-verification.json` (the time, whether all
 * was intact, the counts and the first problems), so it is still shown after a restart.
 */
import fs from 'node:fs';
import type { Logger } from '../log/logger.js';
import { writeFileDurably } from '../config/durable-file.js';
import { WorkerChannel } from '../util/worker-channel.js';
import type { runVerification, VerificationJob } from './log-verification.js';
import type { Problem } from './verify-report.js';

/** Problems kept with the last verification (the command prints them all). */
export const KEPT_PROBLEMS = 100;

export interface LastVerification {
  /** When it finished (ISO 8601). */
  time: string;
  durationMs: number;
  ok: boolean;
  problemCount: number;
  problems: Problem[];
  records: number;
  logFiles: number;
  logLines: number;
}

type Reply = Awaited<ReturnType<typeof runVerification>>;

export class LogVerificationService {
  private lastResult: LastVerification | null;
  private running: Promise<LastVerification> | null = null;
  private readonly channel: WorkerChannel<VerificationJob, Reply>;

  constructor(
    private readonly o: { auditDb: string; logs: string; stateFile: string; publicKeyPem: string; log: Logger },
  ) {
    this.lastResult = readLast(o.stateFile);
    this.channel = new WorkerChannel<VerificationJob, Reply>({
      callerUrl: import.meta.url,
      worker: 'log-verification-worker',
    });
  }

  last(): LastVerification | null {
    return this.lastResult;
  }

  get isRunning(): boolean {
    return this.running !== null;
  }

  /** Starts a verification unless one runs; resolves with its outcome. */
  run(): Promise<LastVerification> {
    this.running ??= this.verify().finally(() => (this.running = null));
    return this.running;
  }

  /** Stops a verification under way (its request fails; nothing is stored). */
  async close(): Promise<void> {
    await this.channel.close();
  }

  private async verify(): Promise<LastVerification> {
    const started = Date.now();
    const report = await this.channel.request({
      auditDb: this.o.auditDb,
      logs: this.o.logs,
      publicKeyPem: this.o.publicKeyPem,
    });
    const result: LastVerification = {
      time: new Date().toISOString(),
      durationMs: Date.now() - started,
      ok: report.ok,
      problemCount: report.problems.length,
      problems: report.problems.slice(0, KEPT_PROBLEMS),
      records: report.records,
      logFiles: report.logFiles,
      logLines: report.logLines,
    };
    this.lastResult = result;
    if (!result.ok) this.o.log.warn('verification found problems', { problems: result.problemCount });
    await writeFileDurably(this.o.stateFile, JSON.stringify(result, null, 2) + '\n', { mode: 0o600 });
    return result;
  }
}

function readLast(file: string): LastVerification | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as LastVerification;
  } catch {
    return null;
  }
}
