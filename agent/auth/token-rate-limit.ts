/**
 * Token requests per client (docs/authentication.md): at most `limit` tokens issued to one
 * client in a fixed window, then 429 with Retry-After until the window ends. Only requests that
 * authenticated as the client count (a right secret, or a refresh token of the client), so
 * nobody can use up a client's allowance by its id alone.
 */

interface Window {
  count: number;
  start: number;
}

export const TOKEN_REQUESTS_PER_CLIENT = 600;
export const TOKEN_WINDOW_MS = 60_000;

export class TokenRateLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly limit = TOKEN_REQUESTS_PER_CLIENT,
    private readonly windowMs = TOKEN_WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {}

  private live(clientId: string, now: number): Window | undefined {
    const window = this.windows.get(clientId);
    if (window && window.start + this.windowMs <= now) {
      this.windows.delete(clientId);
      return undefined;
    }
    return window;
  }

  /** Seconds until `clientId` may get tokens again, or 0 when it may now. */
  retryAfter(clientId: string): number {
    const now = this.now();
    const window = this.live(clientId, now);
    if (!window || window.count < this.limit) return 0;
    return Math.max(1, Math.ceil((window.start + this.windowMs - now) / 1000));
  }

  /** Counts one request that gets tokens. */
  count(clientId: string): void {
    const now = this.now();
    if (this.windows.size > 10_000) {
      for (const [id, w] of this.windows) if (w.start + this.windowMs <= now) this.windows.delete(id);
    }
    const window = this.live(clientId, now);
    if (window) window.count += 1;
    else this.windows.set(clientId, { count: 1, start: now });
  }
}
