/**
 * Runs parseWriteBody in worker threads for large bodies and inline for small ones (a worker
 * round trip costs more than parsing a few kilobytes).
 *
 * A small pool, one job per worker at a time, with a per-user limit (docs/security.md F19):
 * a job that runs past its deadline gets its worker terminated and replaced, which fails that
 * job only, and one contributor's bodies, however slow to parse, occupy at most `perUser`
 * workers, so the other users' writes keep a worker.
 */
import type { NewActivityRecord } from '../../shared/activity-record.js';
import { WorkerChannel } from '../util/worker-channel.js';
import { AuditError, EmptyResponse, ErrorCodes, serverError } from './audit-errors.js';
import type { ParseJob, ParseOutcome } from './body-parse-worker.js';
import { parseWriteBody } from './request-body.js';
import type { WireFormat } from './record-stream.js';

export const INLINE_PARSE_LIMIT = 64 * 1024;

export interface BodyParsePoolOptions {
  /** How long one body may take to parse. */
  timeoutMs?: number;
  workers?: number;
  /** Bodies of one user parsed at the same time; the user's others wait their turn. */
  perUser?: number;
}

interface Job {
  user: string;
  job: ParseJob;
  resolve: (records: NewActivityRecord[]) => void;
  reject: (error: Error) => void;
}

const parseFailure = (reason: string, timedOut = false): Error =>
  timedOut
    ? serverError(ErrorCodes.internal, 'parsing the request body took too long')
    : serverError(ErrorCodes.internal, `the request body could not be parsed: ${reason}`);

export class BodyParsePool {
  private readonly channels: Array<WorkerChannel<ParseJob, ParseOutcome>>;
  private readonly queue: Job[] = [];
  private readonly running = new Map<string, number>();
  private readonly timeoutMs: number;
  private readonly perUser: number;
  private closed = false;

  constructor(options: BodyParsePoolOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.perUser = options.perUser ?? 1;
    this.channels = Array.from(
      { length: options.workers ?? 2 },
      () =>
        new WorkerChannel<ParseJob, ParseOutcome>({
          callerUrl: import.meta.url,
          worker: 'body-parse-worker',
          failure: parseFailure,
        }),
    );
  }

  /** Parses `bytes`; `user` is who sent them (the per-user limit). */
  async parse(bytes: Buffer, format: WireFormat, vendor: string, user = ''): Promise<NewActivityRecord[]> {
    if (bytes.length <= INLINE_PARSE_LIMIT || this.closed) return parseWriteBody(bytes, format, vendor);
    const copy = new Uint8Array(bytes); // its own buffer, so it can be transferred
    return new Promise((resolve, reject) => {
      this.queue.push({ user, job: { bytes: copy, format, vendor }, resolve, reject });
      this.dispatch();
    });
  }

  /** Gives idle workers the oldest jobs whose users are under their limit. */
  private dispatch(): void {
    for (const channel of this.channels) {
      if (channel.inFlight > 0) continue;
      const at = this.queue.findIndex((job) => (this.running.get(job.user) ?? 0) < this.perUser);
      if (at < 0) return;
      const [job] = this.queue.splice(at, 1);
      this.run(channel, job!);
    }
  }

  private run(channel: WorkerChannel<ParseJob, ParseOutcome>, { user, job, resolve, reject }: Job): void {
    this.running.set(user, (this.running.get(user) ?? 0) + 1);
    channel
      .request(job, { transfer: [job.bytes.buffer as ArrayBuffer], timeoutMs: this.timeoutMs })
      .then(
        (outcome) => {
          if ('records' in outcome) return resolve(outcome.records);
          if ('auditError' in outcome) {
            const e = outcome.auditError;
            return reject(new AuditError(e.status, e.category, e.code, e.detail, e.location));
          }
          reject(new EmptyResponse(outcome.empty.status, outcome.empty.headers, outcome.empty.reason));
        },
        (error: Error) => reject(error),
      )
      .finally(() => {
        const left = (this.running.get(user) ?? 1) - 1;
        if (left > 0) this.running.set(user, left);
        else this.running.delete(user);
        this.dispatch();
      });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(parseFailure('the agent is stopping'));
    await Promise.all(this.channels.map((channel) => channel.close()));
  }
}
