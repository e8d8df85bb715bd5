/**
 * Slows down password guessing on the audit API (docs/security.md F5). Two fixed windows count
 * failed logins: one per (address, user name), one per address. A user name with `maxPerUser`
 * failures from an address gets 429 at that address until its window ends; an address with
 * `maxPerAddress` failures, whatever the names, gets 429 for every name.
 *
 * An attempt is counted as a failure when it starts, before its password is checked, and the
 * count is given back when it succeeds: so concurrent guesses cannot all pass the check while
 * the slow password hashes run. A success clears only its own user's count at that address,
 * never another user's, so a valid login of one user does not reopen guessing at another.
 * Memory is bounded: expired windows are swept.
 */

interface Window {
  count: number;
  start: number;
}

/** A started login attempt: end it with `succeed`, `fail` or `cancel` (not checked after all). */
export interface LoginAttempt {
  succeed(): void;
  fail(): void;
  cancel(): void;
}

export type AttemptStart = { ok: true; attempt: LoginAttempt } | { ok: false; retryAfterSeconds: number };

const SWEEP_ABOVE = 10_000;

export class LoginLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly maxPerUser = 10,
    private readonly maxPerAddress = 30,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  private live(key: string, now: number): Window | undefined {
    const window = this.windows.get(key);
    if (window && window.start + this.windowMs <= now) {
      this.windows.delete(key);
      return undefined;
    }
    return window;
  }

  private secondsLeft(window: Window, now: number): number {
    return Math.max(1, Math.ceil((window.start + this.windowMs - now) / 1000));
  }

  /** Seconds until `address` may try again whatever the user name, or 0 when it may try now. */
  retryAfter(address: string): number {
    const now = this.now();
    const window = this.live(addressKey(address), now);
    return window && window.count >= this.maxPerAddress ? this.secondsLeft(window, now) : 0;
  }

  /** Starts a login of `user` from `address`, counted as a failure until it ends otherwise. */
  begin(address: string, user: string): AttemptStart {
    const now = this.now();
    const keys = [addressKey(address), userKey(address, user)] as const;
    const limits = [this.maxPerAddress, this.maxPerUser];
    let wait = 0;
    keys.forEach((key, i) => {
      const window = this.live(key, now);
      if (window && window.count >= limits[i]!) wait = Math.max(wait, this.secondsLeft(window, now));
    });
    if (wait > 0) return { ok: false, retryAfterSeconds: wait };
    if (this.windows.size > SWEEP_ABOVE) this.sweep(now);
    const counted = keys.map((key) => {
      let window = this.live(key, now);
      if (!window) {
        window = { count: 0, start: now };
        this.windows.set(key, window);
      }
      window.count += 1;
      return window;
    });
    let ended = false;
    const refund = (key: string, window: Window): void => {
      // Only the window it was counted in: a new window since then starts from zero anyway.
      if (this.windows.get(key) === window) window.count = Math.max(0, window.count - 1);
    };
    const end = (outcome: 'succeed' | 'fail' | 'cancel'): void => {
      if (ended) return;
      ended = true;
      if (outcome === 'fail') return; // it stays counted
      refund(keys[0], counted[0]!);
      if (outcome === 'succeed') this.windows.delete(keys[1]);
      else refund(keys[1], counted[1]!);
    };
    return {
      ok: true,
      attempt: { succeed: () => end('succeed'), fail: () => end('fail'), cancel: () => end('cancel') },
    };
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (window.start + this.windowMs <= now) this.windows.delete(key);
  }
}

const addressKey = (address: string): string => `a ${address}`;
/** User names are case-insensitive (audit-user-service.ts), so is their count. */
const userKey = (address: string, user: string): string => `u ${address} ${user.toLowerCase()}`;
