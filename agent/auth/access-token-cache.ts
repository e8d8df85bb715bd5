/**
 * Access-token rows by a cache key (the token's SHA-256, token-service.ts), least recently used
 * first out when full: a full cache loses one entry, not all of them, so a busy agent does not
 * fall back to a burst of database lookups. Entries can also be dropped by the row's stored
 * hash, for the one token a rotation revokes.
 */
import type { TokenRow } from './token-store.js';

export class AccessTokenCache {
  private readonly rows = new Map<string, TokenRow>();
  private readonly keyByHash = new Map<string, string>();

  constructor(private readonly limit = 10_000) {}

  get size(): number {
    return this.rows.size;
  }

  get(key: string): TokenRow | undefined {
    const row = this.rows.get(key);
    if (row) {
      // Most recently used goes last: Map keeps insertion order.
      this.rows.delete(key);
      this.rows.set(key, row);
    }
    return row;
  }

  set(key: string, row: TokenRow): void {
    this.rows.delete(key);
    if (this.rows.size >= this.limit) {
      const oldest = this.rows.keys().next().value!;
      const evicted = this.rows.get(oldest)!;
      this.rows.delete(oldest);
      this.keyByHash.delete(evicted.hash.toString('hex'));
    }
    this.rows.set(key, row);
    this.keyByHash.set(row.hash.toString('hex'), key);
  }

  /** Drops the entry of the row stored under `hash`, if cached. */
  forget(hash: Buffer): void {
    const hex = hash.toString('hex');
    const key = this.keyByHash.get(hex);
    if (key === undefined) return;
    this.keyByHash.delete(hex);
    this.rows.delete(key);
  }

  clear(): void {
    this.rows.clear();
    this.keyByHash.clear();
  }
}
