/** Generated credentials: prefix per kind, 256 random bits, checksum that catches typos (docs/security.md, T20). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CREDENTIAL_PREFIX,
  generateCredential,
  looksLikeCredential,
  type CredentialKind,
} from '../../agent/auth/credential-format.js';

const KINDS = Object.keys(CREDENTIAL_PREFIX) as CredentialKind[];

describe('credential format', () => {
  it.each(KINDS)('%s: prefix, 43 base62 characters of randomness (≥ 256 bits) and a 6-character checksum', (kind) => {
    const value = generateCredential(kind);
    expect(value.startsWith(CREDENTIAL_PREFIX[kind])).toBe(true);
    expect(value.slice(CREDENTIAL_PREFIX[kind].length)).toMatch(/^[0-9A-Za-z]{49}$/);
    expect(43 * Math.log2(62)).toBeGreaterThanOrEqual(256);
    expect(looksLikeCredential(value, kind)).toBe(true);
  });

  it('never confuses kinds: an access token is not a refresh token, a secret or a console token', () => {
    for (const kind of KINDS) {
      const value = generateCredential(kind);
      for (const other of KINDS) expect(looksLikeCredential(value, other)).toBe(other === kind);
    }
  });

  it('10,000 tokens are all distinct', () => {
    const seen = new Set(Array.from({ length: 10_000 }, () => generateCredential('access')));
    expect(seen.size).toBe(10_000);
  });

  it('the checksum rejects any single-character change', () => {
    const value = generateCredential('refresh');
    fc.assert(
      fc.property(fc.integer({ min: 7, max: value.length - 1 }), fc.constantFrom(...'0123456789abcXYZ'), (i, ch) => {
        fc.pre(value[i] !== ch);
        const changed = value.slice(0, i) + ch + value.slice(i + 1);
        expect(looksLikeCredential(changed, 'refresh')).toBe(false);
      }),
    );
  });

  it('rejects arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(looksLikeCredential('vgl_at_' + s, 'access')).toBe(false);
      }),
    );
  });
});
