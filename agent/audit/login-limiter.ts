/**
 * Slows down password guessing on the audit API (security.md X16): after `maxFailures` failed
 * logins from one address within `windowMs`, that address gets 429 until the window ends.
 * A successful login clears its count. Memory is bounded: old windows are swept.
 */
export class LoginLimiter {
  private readonly failures = new Map<string, { count: number; windowStart: number }>();

  constructor(
    private readonly maxFailures = 10,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds until `address` may try again, or 0 when it may try now. */
  retryAfter(address: string): number {
    const entry = this.failures.get(address);
    if (!entry) return 0;
    const left = entry.windowStart + this.windowMs - this.now();
    if (left <= 0) {
      this.failures.delete(address);
      return 0;
    }
    return entry.count >= this.maxFailures ? Math.ceil(left / 1000) : 0;
  }

  fail(address: string): void {
    const now = this.now();
    if (this.failures.size > 10_000) {
      for (const [key, value] of this.failures) if (value.windowStart + this.windowMs <= now) this.failures.delete(key);
    }
    const entry = this.failures.get(address);
    if (!entry || entry.windowStart + this.windowMs <= now) this.failures.set(address, { count: 1, windowStart: now });
    else entry.count += 1;
  }

  succeed(address: string): void {
    this.failures.delete(address);
  }
}
