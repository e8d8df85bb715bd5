/**
 * Browser access to the console (shared/console-api.ts): one-time login codes (valid 60 s,
 * single use) and cookie sessions. Both live in memory only, keyed by a hash of the value, so
 * they die with the agent, as the console token does.
 */
import crypto from 'node:crypto';
import type { Clock } from '../auth/lifetimes.js';

export const LOGIN_LINK_LIFETIME_MS = 60_000;
/** A working day and then some; the tray app asks for a new session when it nears the end. */
export const SESSION_LIFETIME_MS = 12 * 3600 * 1000;
/** More outstanding codes or sessions than any operator needs; the oldest go first. */
const MAX_ENTRIES = 1000;

function key(value: string): string {
  return crypto.createHash('sha256').update(value, 'utf8').digest('hex');
}

function randomValue(): string {
  return crypto.randomBytes(32).toString('base64url');
}

class ExpiringSet {
  private readonly entries = new Map<string, number>();

  constructor(private readonly now: Clock) {}

  add(value: string, expiresAt: number): void {
    this.sweep();
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key(value), expiresAt);
  }

  /** True when present and unexpired; `consume` removes it whatever the answer. */
  has(value: string, consume = false): boolean {
    const k = key(value);
    const expiresAt = this.entries.get(k);
    if (consume) this.entries.delete(k);
    return expiresAt !== undefined && this.now() < expiresAt;
  }

  private sweep(): void {
    const now = this.now();
    for (const [k, expiresAt] of this.entries) if (now >= expiresAt) this.entries.delete(k);
  }
}

export class ConsoleSessions {
  private readonly codes: ExpiringSet;
  private readonly sessions: ExpiringSet;

  constructor(private readonly now: Clock) {
    this.codes = new ExpiringSet(now);
    this.sessions = new ExpiringSet(now);
  }

  newLoginCode(): { code: string; expiresAt: number } {
    const code = randomValue();
    const expiresAt = this.now() + LOGIN_LINK_LIFETIME_MS;
    this.codes.add(code, expiresAt);
    return { code, expiresAt };
  }

  /** Single use: a second call with the same code is false. */
  redeemLoginCode(code: string): boolean {
    return this.codes.has(code, true);
  }

  newSession(): { value: string; expiresAt: number } {
    const value = randomValue();
    const expiresAt = this.now() + SESSION_LIFETIME_MS;
    this.sessions.add(value, expiresAt);
    return { value, expiresAt };
  }

  isSession(value: string): boolean {
    return this.sessions.has(value);
  }
}
