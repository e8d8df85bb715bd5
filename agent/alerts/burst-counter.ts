/**
 * The sliding window of one alert rule for one actor (or host), and the burst it belongs to
 * (docs/alerts.md, "Bursts"). Records are counted in one-second slots by their own time, so a
 * window of W seconds holds at most W slots whatever the rate, and records arriving a little
 * out of order still land in their second.
 *
 * A burst starts when the window holds more than the threshold: that is the moment the rule
 * fires. From then on the counter only remembers when it last saw a record; the burst ends when
 * a whole window passes without one (or when the alert is acknowledged, which drops the counter),
 * and only then can the next record start counting towards a new alert.
 */

export interface BurstLimits {
  threshold: number;
  windowSeconds: number;
  /** Paths kept for the alert's details. */
  maxPaths: number;
}

/** What the alert tells about the burst, taken when it fires. */
export interface BurstSnapshot {
  count: number;
  firstPaths: string[];
  /** Who acted, in order of appearance (at most `maxPaths + 1`: enough to tell one from several). */
  actors: string[];
  /** The time of the record that crossed the threshold. */
  atMs: number;
}

export class BurstCounter {
  private readonly slots = new Map<number, number>();
  private count = 0;
  private newestSecond = Number.NEGATIVE_INFINITY;
  private firing = false;
  private paths: string[] = [];
  private actors: string[] = [];
  /** Time of the newest record seen, counted or not. */
  lastSeenMs = Number.NEGATIVE_INFINITY;

  constructor(private readonly limits: BurstLimits) {}

  /** Inside a burst: the rule fired and no quiet window has passed since. */
  get inBurst(): boolean {
    return this.firing;
  }

  /** True once nothing is left to remember at `nowMs`: no burst, no record within the window. */
  idleAt(nowMs: number): boolean {
    return nowMs - this.lastSeenMs > this.limits.windowSeconds * 1000;
  }

  /** Counts one record; returns the burst's snapshot when this record makes the rule fire. */
  add(timeMs: number, path: string, actor: string): BurstSnapshot | null {
    const windowMs = this.limits.windowSeconds * 1000;
    if (this.firing) {
      if (timeMs - this.lastSeenMs <= windowMs) {
        this.lastSeenMs = Math.max(this.lastSeenMs, timeMs);
        return null;
      }
      this.reset(); // a quiet window ended the burst; this record may start the next one
    }
    const second = Math.floor(timeMs / 1000);
    if (second > this.newestSecond) {
      this.newestSecond = second;
      this.dropSlotsBefore(second - this.limits.windowSeconds + 1);
    } else if (second <= this.newestSecond - this.limits.windowSeconds) {
      return null; // older than the window: it cannot be part of this burst
    }
    if (this.count === 0) {
      this.paths = [];
      this.actors = [];
    }
    this.slots.set(second, (this.slots.get(second) ?? 0) + 1);
    this.count++;
    this.lastSeenMs = Math.max(this.lastSeenMs, timeMs);
    if (this.paths.length < this.limits.maxPaths) this.paths.push(path);
    if (this.actors.length <= this.limits.maxPaths && !this.actors.includes(actor)) this.actors.push(actor);
    if (this.count <= this.limits.threshold) return null;
    const snapshot: BurstSnapshot = { count: this.count, firstPaths: this.paths, actors: this.actors, atMs: timeMs };
    this.firing = true;
    this.slots.clear(); // inside a burst only `lastSeenMs` matters
    this.count = 0;
    this.paths = [];
    this.actors = [];
    return snapshot;
  }

  private reset(): void {
    this.firing = false;
    this.slots.clear();
    this.count = 0;
    this.newestSecond = Number.NEGATIVE_INFINITY;
    this.paths = [];
    this.actors = [];
  }

  private dropSlotsBefore(firstKept: number): void {
    for (const [second, n] of this.slots) {
      if (second < firstKept) {
        this.slots.delete(second);
        this.count -= n;
      }
    }
  }
}
