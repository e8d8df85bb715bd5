/**
 * One page search of the SQLite reader (audit-reader.ts), walking `seq` step by step.
 *
 * Work is bounded per synchronous step (docs/architecture.md "Concurrency model"): candidates
 * come from the substring index and are verified in batches, the rest is scanned in `seq`
 * windows; both are sized from the time measured (step-size.ts), and the walk yields to the
 * event loop between steps.
 */
import type { AuditReader } from './audit-reader.js';
import type { CompiledSearch } from './audit-query.js';
import { PageCancelled } from './audit-records.js';
import { StepSize } from './step-size.js';

/**
 * Index candidates verified per step, and the time a search works before it yields. Under 200
 * concurrent searches and a writer on two cores, 2000 candidates and 8 ms let one turn of the
 * loop reach 100+ ms (a step overshoots its time by up to one slice); these keep it well under.
 */
export const CANDIDATE_SLICE = 500;
/**
 * Scan windows are kept per search (a window learnt by a cheap predicate, or by a step that its
 * LIMIT ended early, made another search's next step run for 100+ ms under load), start at one
 * record and grow at most twofold per statement (step-size.ts).
 */
const MAX_WINDOW = 1 << 20;

/**
 * One page search walking `seq` in one direction (1: ascending, -1: descending) from `next`, the
 * next seq to consider. Each statement is sized by time (step-size.ts), and the walk waits for
 * its turn on the reader's TurnQueue once a step has used its time (turn-queue.ts).
 */
export class PageWalk {
  readonly seqs: number[] = [];
  private readonly windows: StepSize;
  private readonly checks: StepSize;
  private stepStart = 0;

  constructor(
    private readonly reader: AuditReader,
    private readonly search: CompiledSearch,
    private readonly count: number,
    private readonly direction: 1 | -1,
    public next: number,
    private readonly cancelled: () => boolean,
  ) {
    this.windows = new StepSize(reader.stepMs, MAX_WINDOW);
    this.checks = new StepSize(reader.stepMs, CANDIDATE_SLICE);
  }

  private get full(): boolean {
    return this.seqs.length >= this.count;
  }

  /** Whether `seq` lies before `limit` in the walk's direction (the limit included). */
  private within(seq: number, limit: number): boolean {
    return this.direction > 0 ? seq <= limit : seq >= limit;
  }

  private get order(): string {
    return this.direction > 0 ? 'ASC' : 'DESC';
  }

  /** Every step, the first included, waits for its turn among all concurrent searches. */
  async begin(): Promise<void> {
    await this.reader.turns.turn();
    if (this.cancelled()) throw new PageCancelled();
    this.stepStart = performance.now();
  }

  private async pause(): Promise<void> {
    if (performance.now() - this.stepStart < this.reader.stepMs) return;
    await this.begin();
  }

  /** Moves past the found records, or past `last`, the last seq the statement considered. */
  private advance(rows: readonly number[], last: number): void {
    this.seqs.push(...rows);
    this.next = (this.full ? this.seqs[this.seqs.length - 1]! : last) + this.direction;
  }

  /** Scans up to `limit` with the full predicate, a time-sized `seq` window per statement. */
  async scan(limit: number): Promise<void> {
    const unfiltered = this.search.where === '1';
    const sql = `SELECT a.seq FROM activity_records AS a NOT INDEXED
                  WHERE a.seq >= ? AND a.seq <= ? AND (${this.search.where})
                  ORDER BY a.seq ${this.order} LIMIT ?`;
    while (this.within(this.next, limit) && !this.full) {
      const reach = this.next + this.direction * (this.windows.current - 1);
      const far = unfiltered || !this.within(reach, limit) ? limit : reach;
      const [low, high] = this.direction > 0 ? [this.next, far] : [far, this.next];
      const started = performance.now();
      const rows = this.reader.runStep(
        (_, statement) =>
          statement(sql)
            .pluck()
            .all(low, high, ...this.search.params, this.count - this.seqs.length) as number[],
      );
      this.windows.learn(high - low + 1, performance.now() - started);
      this.advance(rows, far);
      await this.pause();
    }
  }

  /**
   * Verifies the index's candidates up to `limit`, a time-sized number of them per statement.
   * When the index cannot be used, stops where it is: the caller's scan goes on from there.
   */
  async verifyIndexed(limit: number): Promise<void> {
    const sql = `SELECT a.seq FROM activity_records AS a
                  WHERE a.seq IN (SELECT value FROM json_each(?)) AND (${this.search.where})
                  ORDER BY a.seq ${this.order} LIMIT ?`;
    while (this.within(this.next, limit) && !this.full) {
      const [low, high] = this.direction > 0 ? [this.next, limit] : [limit, this.next];
      const found = this.reader.runStep((conn) =>
        this.reader.indexCandidates(conn, this.search.match!, low, high, this.direction),
      );
      if (found === null) return;
      for (let at = 0; at < found.length && !this.full;) {
        const batch = found.slice(at, at + this.checks.current);
        const started = performance.now();
        const rows = this.reader.runStep(
          (_, statement) =>
            statement(sql)
              .pluck()
              .all(JSON.stringify(batch), ...this.search.params, this.count - this.seqs.length) as number[],
        );
        this.checks.learn(batch.length, performance.now() - started);
        at += batch.length;
        this.advance(rows, batch[batch.length - 1]!);
        await this.pause();
      }
      if (!this.full && found.length < CANDIDATE_SLICE) this.next = limit + this.direction;
    }
  }
}
