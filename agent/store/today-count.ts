/**
 * How many activity records fall on today (local calendar day, as the audit search's `Today`
 * timeframe means it: shared/audit-when.ts), for the tray's tooltip and the console overview.
 *
 * The first call of a day counts through the `when_ms` index; later calls only look at records
 * added since (`seq` above the last one seen), so a call costs what was written since the last
 * one, whoever wrote it (the pipeline or the audit API's write endpoint). Records are never
 * changed after insertion, and retention deletes only records older than its cut-off.
 */
import type Database from 'better-sqlite3';
import { timeframeRange } from '../../shared/audit-when.js';

export class TodayCount {
  private day: { from: number; to: number } | null = null;
  private count = 0;
  private lastSeq = 0;

  constructor(
    private readonly db: () => Database.Database,
    private readonly now: () => number = Date.now,
  ) {}

  /** Today's records; on a database failure, the last known count. */
  value(): number {
    const now = this.now();
    try {
      if (this.day === null || now >= this.day.to || now < this.day.from) this.recount(now);
      else this.catchUp();
    } catch {
      // The store reports its own failures (status, logs); the count just stops moving.
    }
    return this.count;
  }

  private recount(now: number): void {
    const range = timeframeRange('Today', now);
    const row = this.db()
      .prepare(
        `SELECT (SELECT count(*) FROM activity_records WHERE when_ms >= ? AND when_ms < ?) AS n,
                (SELECT coalesce(max(seq), 0) FROM activity_records) AS top`,
      )
      .get(range.from, range.to) as { n: number; top: number };
    this.day = { from: range.from!, to: range.to! };
    this.count = row.n;
    this.lastSeq = row.top;
  }

  private catchUp(): void {
    const day = this.day!;
    const row = this.db()
      .prepare(
        `SELECT count(*) AS added, coalesce(sum(when_ms >= ? AND when_ms < ?), 0) AS n, max(seq) AS top
           FROM activity_records WHERE seq > ?`,
      )
      .get(day.from, day.to, this.lastSeq) as { added: number; n: number; top: number | null };
    if (row.top === null) return;
    this.count += row.n;
    this.lastSeq = row.top;
  }
}
