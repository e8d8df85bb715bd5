/**
 * What a page's search read of each record it chose (pg-audit-records.ts): its day partition and
 * its stored size. The page's rows are then fetched day by day, so that PostgreSQL reads only
 * those days' partitions, and the page is cut into slices by the sizes already read, without
 * reading the rows once more to measure them. Bounded; a seq it no longer knows is fetched
 * without its day and measured again.
 */
const MAX_SEQS = 100_000;
/** More days than this in one fetch: the statement would grow long for little gain. */
const MAX_DAYS = 64;

/**
 * A day as `date` output writes it in the ISO style for years 0–9999 (`YYYY-MM-DD`): text order
 * is day order. Other styles (`24/11/2026`), BC days and longer years are not. Checked per seq of
 * a page, so by shape rather than by a regular expression.
 */
const isIsoDay = (day: string): boolean => day.length === 10 && day[4] === '-' && day[7] === '-';

/** What the page's statement read of one record. */
interface Chosen {
  day: string;
  bytes: number;
}

export class PageSeqs {
  private readonly chosen = new Map<number, Chosen>();

  /** The day and stored size of each of `seqs`, as the page's statement read them. */
  remember(seqs: readonly number[], days: readonly string[], bytes: readonly number[]): void {
    for (let i = 0; i < seqs.length; i++) {
      this.chosen.delete(seqs[i]!); // re-inserted as the newest
      this.chosen.set(seqs[i]!, { day: days[i]!, bytes: bytes[i]! });
    }
    for (const seq of this.chosen.keys()) {
      if (this.chosen.size <= MAX_SEQS) break;
      this.chosen.delete(seq);
    }
  }

  /** The stored size of each of `seqs`, or null when one is unknown. */
  sizes(seqs: readonly number[]): Map<number, number> | null {
    const sizes = new Map<number, number>();
    for (const seq of seqs) {
      const bytes = this.chosen.get(seq)?.bytes;
      if (bytes === undefined) return null;
      sizes.set(seq, bytes);
    }
    return sizes;
  }

  /**
   * The first and last day of `seqs` (as `YYYY-MM-DD`, which sorts as the days do), or null when
   * one is unknown. Bounds on `day` let PostgreSQL skip the other days' partitions.
   */
  span(seqs: readonly number[]): [string, string] | null {
    let first: string | null = null;
    let last: string | null = null;
    for (const seq of seqs) {
      const day = this.chosen.get(seq)?.day;
      if (day === undefined || !isIsoDay(day)) return null;
      if (first === null || day < first) first = day;
      if (last === null || day > last) last = day;
    }
    return first === null || last === null ? null : [first, last];
  }

  /** `seqs` grouped by day (each group ascending), or null when a day is unknown, not ISO, or too many. */
  group(seqs: readonly number[]): Map<string, number[]> | null {
    const byDay = new Map<string, number[]>();
    for (const seq of seqs) {
      const day = this.chosen.get(seq)?.day;
      if (day === undefined || !isIsoDay(day)) return null;
      const group = byDay.get(day);
      if (group) group.push(seq);
      else if (byDay.size === MAX_DAYS) return null;
      else byDay.set(day, [seq]);
    }
    return byDay;
  }
}
