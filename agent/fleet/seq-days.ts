/**
 * The day partition of the records of recent pages (pg-audit-records.ts): a page's search reads
 * each seq's `day` along, and the page's rows are then fetched day by day, so that PostgreSQL
 * reads only those days' partitions. Bounded; a seq it no longer knows is fetched without it.
 */
const MAX_SEQS = 100_000;
/** More days than this in one fetch: the statement would grow long for little gain. */
const MAX_DAYS = 64;

export class SeqDays {
  private readonly dayOf = new Map<number, string>();

  remember(seqs: readonly number[], days: readonly string[]): void {
    for (let i = 0; i < seqs.length; i++) {
      this.dayOf.delete(seqs[i]!); // re-inserted as the newest
      this.dayOf.set(seqs[i]!, days[i]!);
    }
    for (const seq of this.dayOf.keys()) {
      if (this.dayOf.size <= MAX_SEQS) break;
      this.dayOf.delete(seq);
    }
  }

  /** `seqs` grouped by day (each group ascending), or null when a day is unknown or too many. */
  group(seqs: readonly number[]): Map<string, number[]> | null {
    const byDay = new Map<string, number[]>();
    for (const seq of seqs) {
      const day = this.dayOf.get(seq);
      if (day === undefined) return null;
      const group = byDay.get(day);
      if (group) group.push(seq);
      else if (byDay.size === MAX_DAYS) return null;
      else byDay.set(day, [seq]);
    }
    return byDay;
  }
}
