/**
 * Issues, rotates, checks and revokes tokens (docs/authentication.md). Knows nothing about HTTP: the
 * token endpoint and the bearer middleware translate its answers into RFC 6749 / RFC 6750
 * responses.
 *
 * - A client-credentials grant starts a token family: one access token (7 days) and one
 *   refresh token (never expires).
 * - A refresh rotates: the refresh token is marked used and a new pair of the same family is
 *   returned. Presenting a used refresh token again is reuse: the whole family is revoked
 *   (RFC 9700 §4.14.2), because the server cannot tell the thief from the client.
 * - A refresh token is bound to its client (RFC 6749 §10.4): another client gets invalid_grant.
 * - A rotation revokes the access token issued with the refresh token it uses up: a family has
 *   one working access token. Refresh tokens start with their family's tag, so one rotated away
 *   long ago, whose row is gone, is still recognised as reuse (token-store.ts keeps it bounded).
 */
import crypto from 'node:crypto';
import { CREDENTIAL_PREFIX, generateCredential, looksLikeCredential, randomTag } from './credential-format.js';
import type { CredentialHasher } from './keyed-hash.js';
import { ACCESS_TOKEN_LIFETIME_MS, ACCESS_TOKEN_LIFETIME_SECONDS, type Clock } from './lifetimes.js';
import type { NewToken, TokenStore } from './token-store.js';

export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  /** Seconds: always 604800 (docs/authentication.md). */
  expiresIn: number;
}

/** Who an access token speaks for. */
export interface TokenIdentity {
  clientId: string;
  familyId: string;
}

export type AccessTokenFailure = 'malformed' | 'unknown' | 'expired' | 'revoked';
export type RefreshFailure = 'malformed' | 'unknown' | 'other_client' | 'revoked' | 'reused';

export type AccessCheck = { ok: true; identity: TokenIdentity } | { ok: false; reason: AccessTokenFailure };
export type RefreshResult = { ok: true; tokens: IssuedTokens } | { ok: false; reason: RefreshFailure };

export interface TokenServiceDeps {
  store: TokenStore;
  hasher: CredentialHasher;
  now: Clock;
}

/** Leading characters of a refresh token that name its family (59 bits; the other 33 are random). */
export const FAMILY_TAG_CHARS = 10;

const tagOf = (refreshToken: string): string =>
  refreshToken.slice(CREDENTIAL_PREFIX.refresh.length, CREDENTIAL_PREFIX.refresh.length + FAMILY_TAG_CHARS);

export class TokenService {
  constructor(private readonly deps: TokenServiceDeps) {}

  /** A tag's keyed hash: the tag is part of a secret, so auth.db holds it only hashed. */
  private tagHash(tag: string): Buffer {
    return this.deps.hasher.hash(`family-tag:${tag}`);
  }

  private newPair(
    clientId: string,
    familyId: string,
    tag: string,
    generation: number,
    at: number,
  ): { tokens: IssuedTokens; rows: NewToken[] } {
    const accessToken = generateCredential('access');
    const refreshToken = generateCredential('refresh', tag);
    const { hasher } = this.deps;
    return {
      tokens: { accessToken, refreshToken, expiresIn: ACCESS_TOKEN_LIFETIME_SECONDS },
      rows: [
        {
          hash: hasher.hash(accessToken),
          kind: 'access',
          client_id: clientId,
          family_id: familyId,
          issued_at: at,
          expires_at: at + ACCESS_TOKEN_LIFETIME_MS,
          generation,
        },
        {
          hash: hasher.hash(refreshToken),
          kind: 'refresh',
          client_id: clientId,
          family_id: familyId,
          issued_at: at,
          expires_at: null,
          generation,
        },
      ],
    };
  }

  /**
   * Client credentials grant (RFC 6749 §4.4): the caller has authenticated the client. Resolves
   * once the tokens are committed, so a token handed out survives a crash.
   */
  async issue(clientId: string): Promise<IssuedTokens> {
    const at = this.deps.now();
    const familyId = crypto.randomUUID();
    const tag = randomTag(FAMILY_TAG_CHARS);
    const { tokens, rows } = this.newPair(clientId, familyId, tag, 0, at);
    const { store } = this.deps;
    const family = { family_id: familyId, client_id: clientId, tag_hash: this.tagHash(tag), created_at: at };
    await store.write(() => store.startFamily(family, rows));
    return tokens;
  }

  /** Refresh grant (RFC 6749 §6) with rotation and reuse detection (RFC 9700 §4.14.2). */
  async refresh(clientId: string, refreshToken: string): Promise<RefreshResult> {
    if (!looksLikeCredential(refreshToken, 'refresh')) return { ok: false, reason: 'malformed' };
    const { store, hasher } = this.deps;
    const hash = hasher.hash(refreshToken);
    const row = store.find(hash);
    const at = this.deps.now();
    if (!row) {
      // Rotated away long ago (its row is gone): its tag still names the family.
      const family = store.familyByTag(this.tagHash(tagOf(refreshToken)));
      if (!family) return { ok: false, reason: 'unknown' };
      if (family.client_id !== clientId) return { ok: false, reason: 'other_client' };
      if (family.revoked_at !== null) return { ok: false, reason: 'revoked' };
      await store.write(() => store.revokeFamily(family.family_id, at));
      return { ok: false, reason: 'reused' };
    }
    if (row.kind !== 'refresh') return { ok: false, reason: 'unknown' };
    if (row.client_id !== clientId) return { ok: false, reason: 'other_client' };
    if (row.revoked_at !== null) return { ok: false, reason: 'revoked' };
    const family = store.family(row.family_id);
    // A family from before tags (schema 1) gets one with its first rotation.
    const tag = family?.tag_hash ? tagOf(refreshToken) : randomTag(FAMILY_TAG_CHARS);
    const { tokens, rows } = this.newPair(clientId, row.family_id, tag, row.generation + 1, at);
    const rotation = {
      oldHash: hash,
      at,
      familyId: row.family_id,
      generation: row.generation,
      tagHash: family?.tag_hash ? null : this.tagHash(tag),
      successors: rows,
    };
    // Decided inside the write: a parallel refresh with the same token may have rotated it since.
    const rotated = await store.write(() => {
      if (row.used_at === null && store.rotate(rotation)) return true;
      store.revokeFamily(row.family_id, at);
      return false;
    });
    return rotated ? { ok: true, tokens } : { ok: false, reason: 'reused' };
  }

  /**
   * Checks a bearer token on every request. Rows of known access tokens are cached in memory by
   * the token's SHA-256 (a one-shot hash, cheaper than the HMAC; irreversible for a 256-bit
   * random value, and never written anywhere); the store empties the cache on every
   * revocation, so a revoked token fails on the very next request.
   */
  checkAccessToken(token: string): AccessCheck {
    const { store } = this.deps;
    const key = crypto.hash('sha256', token, 'base64');
    let row = store.cachedAccess(key);
    if (!row) {
      // Only access tokens that passed this check are cached, so a hit needs no second look.
      if (!looksLikeCredential(token, 'access')) return { ok: false, reason: 'malformed' };
      row = store.find(this.deps.hasher.hash(token));
      if (row?.kind === 'access') store.cacheAccess(key, row);
    }
    if (!row || row.kind !== 'access') return { ok: false, reason: 'unknown' };
    if (row.revoked_at !== null) return { ok: false, reason: 'revoked' };
    if (row.expires_at !== null && this.deps.now() >= row.expires_at) return { ok: false, reason: 'expired' };
    return { ok: true, identity: { clientId: row.client_id, familyId: row.family_id } };
  }

  /** Revokes every access and refresh token of a client; returns how many were live. */
  revokeClient(clientId: string): number {
    return this.deps.store.revokeClient(clientId, this.deps.now());
  }

  /**
   * Housekeeping: forgets access tokens expired, and tokens and families revoked, and refresh
   * tokens used, more than `graceMs` ago.
   */
  purge(graceMs = 30 * 24 * 3600 * 1000): number {
    return this.deps.store.purge(this.deps.now() - graceMs);
  }
}
