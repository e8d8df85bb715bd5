/**
 * Browser access to the console (shared/console-api.ts): one-time login codes (valid 60 s,
 * single use) and sessions. A session is two random values: the cookie, which the browser sends
 * by itself (to every port of 127.0.0.1, RFC 6265 §8.5), and the session key, which only the
 * console's own pages hold and send as a header; a request needs both. Codes and sessions live
 * in memory only, keyed by a hash of the value, so they belong to one generation of the console
 * token: they die with the agent, as the token does.
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

class ExpiringMap<T> {
  private readonly entries = new Map<string, { expiresAt: number; data: T }>();

  constructor(private readonly now: Clock) {}

  add(value: string, expiresAt: number, data: T): void {
    this.sweep();
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key(value), { expiresAt, data });
  }

  /** The data when present and unexpired; `consume` removes it whatever the answer. */
  get(value: string, consume = false): T | undefined {
    const k = key(value);
    const entry = this.entries.get(k);
    if (consume) this.entries.delete(k);
    return entry !== undefined && this.now() < entry.expiresAt ? entry.data : undefined;
  }

  private sweep(): void {
    const now = this.now();
    for (const [k, entry] of this.entries) if (now >= entry.expiresAt) this.entries.delete(k);
  }
}

export interface NewSession {
  /** The cookie's value. */
  value: string;
  /** The value of the session header (shared/console-api.ts `CONSOLE_SESSION_HEADER`). */
  sessionKey: string;
  expiresAt: number;
}

/** Login links opened in one browser share its cookie; more keys than tabs anyone opens. */
const MAX_KEYS_PER_SESSION = 16;

export class ConsoleSessions {
  private readonly codes: ExpiringMap<true>;
  /** Cookie value → digests of the session keys issued with it. */
  private readonly sessions: ExpiringMap<Buffer[]>;

  constructor(private readonly now: Clock) {
    this.codes = new ExpiringMap(now);
    this.sessions = new ExpiringMap(now);
  }

  newLoginCode(): { code: string; expiresAt: number } {
    const code = randomValue();
    const expiresAt = this.now() + LOGIN_LINK_LIFETIME_MS;
    this.codes.add(code, expiresAt, true);
    return { code, expiresAt };
  }

  /** Single use: a second call with the same code is false. */
  redeemLoginCode(code: string): boolean {
    return this.codes.get(code, true) === true;
  }

  /**
   * A new session key, with a new cookie, or with `cookie` when it is a live session already:
   * a browser holds one cookie per console, so a second login in it must not make the first
   * tab's key useless. The session then lasts the full lifetime again.
   */
  newSession(cookie?: string): NewSession {
    const sessionKey = randomValue();
    const expiresAt = this.now() + SESSION_LIFETIME_MS;
    const current = cookie === undefined ? undefined : this.sessions.get(cookie);
    const value = current === undefined ? randomValue() : cookie!;
    const keys = [...(current ?? []), digest(sessionKey)].slice(-MAX_KEYS_PER_SESSION);
    this.sessions.add(value, expiresAt, keys);
    return { value, sessionKey, expiresAt };
  }

  /** True only for a live session's cookie together with a key issued with that cookie. */
  isSession(cookie: string, sessionKey: string): boolean {
    const keys = this.sessions.get(cookie);
    if (keys === undefined) return false;
    const candidate = digest(sessionKey);
    return keys.some((key) => crypto.timingSafeEqual(candidate, key));
  }
}

function digest(value: string): Buffer {
  return crypto.createHash('sha256').update(value, 'utf8').digest();
}
