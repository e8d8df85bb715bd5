/**
 * How a member paces itself against the fleet database (docs/fleet.md "Coming back"):
 * - after a failure it waits a random time up to an exponentially growing bound ("full jitter":
 *   1 s, 2 s, 4 s … 60 s), so a thousand agents that lost the database together come back
 *   spread over a minute instead of in the same second;
 * - while it forwards a backlog it sends at most `maxRecordsPerSecond`, so the returning fleet
 *   adds a bounded load (1,000 agents × 2,000 records/s at most, and in practice far less, since
 *   each batch waits for the inserts lock).
 */
export interface PacingOptions {
  firstDelayMs?: number;
  maxDelayMs?: number;
  maxRecordsPerSecond?: number;
  random?: () => number;
}

export class ReconnectPacing {
  private failures = 0;
  private readonly firstDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly maxRecordsPerSecond: number;
  private readonly random: () => number;

  constructor(options: PacingOptions = {}) {
    this.firstDelayMs = options.firstDelayMs ?? 1_000;
    this.maxDelayMs = options.maxDelayMs ?? 60_000;
    this.maxRecordsPerSecond = options.maxRecordsPerSecond ?? 2_000;
    this.random = options.random ?? Math.random;
  }

  /** The wait before the next attempt after one more failure. */
  failed(): number {
    const bound = Math.min(this.maxDelayMs, this.firstDelayMs * 2 ** Math.min(this.failures, 30));
    this.failures++;
    return Math.round(this.random() * bound);
  }

  succeeded(): void {
    this.failures = 0;
  }

  /** The pause after sending `records` so the rate stays under the cap. */
  pauseAfter(records: number, tookMs: number): number {
    return Math.max(0, (records * 1000) / this.maxRecordsPerSecond - tookMs);
  }
}
