/**
 * How much one synchronous statement of a search may cover: a `seq` window to scan, or a number
 * of index candidates to verify. Learnt from the time measured, per search: it starts at one and
 * at most doubles per statement, so a statement runs for at most about twice the target, or for
 * one record's test when a single record costs more (docs/architecture.md "Concurrency model").
 * Starting from a fixed row count instead let one expensive predicate hold the event loop for
 * seconds before the first measurement (docs/security.md F4).
 */
export class StepSize {
  private size: number;

  constructor(
    private readonly targetMs: number,
    private readonly max: number,
    first = 1,
  ) {
    this.size = Math.max(1, Math.min(first, max));
  }

  get current(): number {
    return this.size;
  }

  /** The last statement covered `covered` units in `tookMs`. */
  learn(covered: number, tookMs: number): void {
    const rate = Math.max(covered, 1) / Math.max(tookMs, 0.05);
    // A target under a millisecond (tests yield after every statement) still sizes for one.
    const fits = Math.floor(rate * Math.max(this.targetMs, 1));
    this.size = Math.max(1, Math.min(this.max, 2 * this.size, fits));
  }
}
