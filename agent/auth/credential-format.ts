/**
 * The format of every secret the agent generates (docs/authentication.md, after GitHub's token
 * format): a type prefix, 256 random bits in base62 and a CRC32 checksum.
 *
 *   vgl_at_<43 base62 random><6 base62 CRC32>   access token
 *   vgl_rt_…                                    refresh token
 *   vgl_cs_…                                    client secret
 *   vgc_…                                       console token (shared/console-api.ts)
 *
 * The prefix lets secret scanners and log redaction find leaked values, and lets the agent
 * reject a refresh token used as a bearer token (or the reverse) and random garbage before
 * any database lookup. 256 bits is above RFC 6749 §10.10's 2^-160 guessing bound.
 */
import crypto from 'node:crypto';
import zlib from 'node:zlib';

export type CredentialKind = 'access' | 'refresh' | 'secret' | 'console';

export const CREDENTIAL_PREFIX: Readonly<Record<CredentialKind, string>> = {
  access: 'vgl_at_',
  refresh: 'vgl_rt_',
  secret: 'vgl_cs_',
  console: 'vgc_',
};

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_CHARS = 43; // 62^43 > 2^256
const CHECK_CHARS = 6; // 62^6 > 2^32
const BODY = new RegExp(`^[0-9A-Za-z]{${BODY_CHARS + CHECK_CHARS}}$`);

/** Base62 of a 32-bit CRC with plain number arithmetic (checked on every request: no BigInt). */
function checksum(prefix: string, body: string): string {
  let rest = zlib.crc32(prefix + body);
  let out = '';
  for (let i = 0; i < CHECK_CHARS; i++) {
    out = ALPHABET[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

/**
 * 43 uniformly random base62 characters (43 × log2 62 ≈ 256.03 bits): random bytes below 248
 * (= 4 × 62) map to a character, the others are discarded, so no character is more likely
 * than another. Cheaper than converting a 256-bit number, and this runs twice per token request.
 */
function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of crypto.randomBytes(length + 8)) {
      if (byte < 248) out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/**
 * A new credential of `kind`: prefix, 256 random bits in base62, checksum. `lead`, when given,
 * takes the place of the first random characters: refresh tokens start with their family's tag
 * (FAMILY_TAG_CHARS, token-service.ts), so a rotated-away token still names its family; the
 * 33 characters after it are still random (196 bits, above RFC 6749 §10.10's 160).
 */
export function generateCredential(kind: CredentialKind, lead = ''): string {
  const prefix = CREDENTIAL_PREFIX[kind];
  if (lead.length >= BODY_CHARS || !/^[0-9A-Za-z]*$/.test(lead)) throw new Error('a credential lead is base62');
  const body = lead + randomBase62(BODY_CHARS - lead.length);
  return prefix + body + checksum(prefix, body);
}

/** A random base62 string of `length` characters (a refresh token family's tag). */
export function randomTag(length: number): string {
  return randomBase62(length);
}

/**
 * True when `value` has the shape and checksum of a credential of `kind`. A false answer needs
 * no database lookup; a true one still has to be looked up (by keyed hash).
 */
export function looksLikeCredential(value: string, kind: CredentialKind): boolean {
  const prefix = CREDENTIAL_PREFIX[kind];
  if (!value.startsWith(prefix)) return false;
  const rest = value.slice(prefix.length);
  if (!BODY.test(rest)) return false;
  return checksum(prefix, rest.slice(0, BODY_CHARS)) === rest.slice(BODY_CHARS);
}
