/**
 * auth.db stays bounded however a client uses its credentials (docs/security.md F6), while
 * reuse detection keeps working: a family keeps only its current and previous generation, an
 * older refresh token is still known by its family's tag, and a client keeps at most
 * MAX_LIVE_FAMILIES live families. Real SQLite; an injected clock.
 */
import crypto from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { AccessTokenCache } from '../../agent/auth/access-token-cache.js';
import { CredentialHasher } from '../../agent/auth/keyed-hash.js';
import { TokenService, type IssuedTokens } from '../../agent/auth/token-service.js';
import { MAX_LIVE_FAMILIES, TokenStore, type TokenRow } from '../../agent/auth/token-store.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const DAY = 24 * 3600_000;
const stores: TokenStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});

function open(): { file: string; store: TokenStore; tokens: TokenService; clock: { t: number } } {
  const file = path.join(makeTempDir(), 'auth.db');
  // NORMAL: the same rows and statements, without an fsync per rotation (this test makes 10,000).
  const store = TokenStore.open({ file, synchronous: 'NORMAL' });
  stores.push(store);
  const clock = { t: Date.parse('2026-02-01T00:00:00Z') };
  const tokens = new TokenService({ store, hasher: new CredentialHasher(crypto.randomBytes(32)), now: () => clock.t });
  return { file, store, tokens, clock };
}

function count(file: string, sql: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).pluck().get() as number;
  } finally {
    db.close();
  }
}

describe('auth.db growth', () => {
  it('10,000 refreshes of one family leave a handful of rows and a small file; the first refresh token is still reuse', async () => {
    const { file, tokens, clock } = open();
    const first = await tokens.issue('c1');
    let current: IssuedTokens = first;
    for (let i = 0; i < 10_000; i++) {
      clock.t += 1000;
      const next = await tokens.refresh('c1', current.refreshToken);
      if (!next.ok) throw new Error(`refresh ${i} failed: ${next.reason}`);
      current = next.tokens;
    }
    // The current pair and the generation before it (was: 20,002 rows and about 3 MB).
    expect(count(file, 'SELECT count(*) FROM tokens')).toBeLessThanOrEqual(4);
    expect(count(file, 'SELECT count(*) FROM families')).toBe(1);
    const bytes = count(file, 'PRAGMA page_count') * count(file, 'PRAGMA page_size');
    expect(bytes).toBeLessThan(256 * 1024);
    // The very first refresh token, rotated away 10,000 times ago, is still reuse.
    expect(await tokens.refresh('c1', first.refreshToken)).toEqual({ ok: false, reason: 'reused' });
    expect(tokens.checkAccessToken(current.accessToken)).toEqual({ ok: false, reason: 'revoked' });
  }, 120_000);

  it('a rotation revokes the previous access token; reuse of a long-rotated refresh token is detected after a purge, and ends the family', async () => {
    const { tokens, clock } = open();
    const first = await tokens.issue('c1');
    const bystander = await tokens.issue('c1');
    let current = first;
    for (let i = 0; i < 5; i++) {
      const next = await tokens.refresh('c1', current.refreshToken);
      if (!next.ok) throw new Error('refresh failed');
      // The predecessor's access token stops working with the rotation.
      expect(tokens.checkAccessToken(current.accessToken).ok).toBe(false);
      expect(tokens.checkAccessToken(next.tokens.accessToken).ok).toBe(true);
      current = next.tokens;
    }
    clock.t += 40 * DAY;
    tokens.purge(30 * DAY);
    expect(await tokens.refresh('c1', first.refreshToken)).toEqual({ ok: false, reason: 'reused' });
    // The family's current refresh token (its access token has long expired) is revoked with it.
    expect(await tokens.refresh('c1', current.refreshToken)).toEqual({ ok: false, reason: 'revoked' });
    // Another family of the same client is untouched; another client gets no signal of reuse.
    expect((await tokens.refresh('c1', bystander.refreshToken)).ok).toBe(true);
    expect(await tokens.refresh('c2', first.refreshToken)).toEqual({ ok: false, reason: 'other_client' });
  });

  it(`a client keeps at most ${MAX_LIVE_FAMILIES} live families: the least recently used is revoked`, async () => {
    const { file, tokens, clock } = open();
    const issued: IssuedTokens[] = [];
    for (let i = 0; i < MAX_LIVE_FAMILIES + 50; i++) {
      clock.t += 1000;
      issued.push(await tokens.issue('busy'));
      if (i === 10) {
        // Family 0 is used, so family 1 is now the least recently used.
        clock.t += 1000;
        const next = await tokens.refresh('busy', issued[0]!.refreshToken);
        if (!next.ok) throw new Error('refresh failed');
        issued[0] = next.tokens;
      }
    }
    const other = await tokens.issue('quiet');
    expect(tokens.checkAccessToken(issued[0]!.accessToken).ok).toBe(false); // revoked among the oldest
    expect(tokens.checkAccessToken(issued[1]!.accessToken)).toEqual({ ok: false, reason: 'revoked' });
    expect(tokens.checkAccessToken(issued.at(-1)!.accessToken).ok).toBe(true);
    expect(tokens.checkAccessToken(other.accessToken).ok).toBe(true);
    expect(count(file, "SELECT count(*) FROM families WHERE client_id = 'busy' AND revoked_at IS NULL")).toBe(
      MAX_LIVE_FAMILIES,
    );
  });
});

describe('the access-token cache', () => {
  const row = (n: number): TokenRow => ({
    hash: Buffer.from([n]),
    kind: 'access',
    client_id: 'c',
    family_id: 'f',
    issued_at: 0,
    expires_at: null,
    used_at: null,
    revoked_at: null,
    generation: 0,
  });

  it('when full, drops only the least recently used entry (was: emptied completely)', () => {
    const cache = new AccessTokenCache(3);
    cache.set('a', row(1));
    cache.set('b', row(2));
    cache.set('c', row(3));
    expect(cache.get('a')).toBeDefined(); // a is now the most recent
    cache.set('d', row(4));
    expect(cache.size).toBe(3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.get('c')).toBeDefined();
    expect(cache.get('d')).toBeDefined();
    cache.forget(Buffer.from([3]));
    expect(cache.get('c')).toBeUndefined();
  });
});
