/**
 * Human passwords of audit API users, hashed with scrypt (node:crypto, no native addon).
 * Default cost N=2^15, r=8, p=3: one of OWASP's equivalent scrypt settings (Password Storage
 * Cheat Sheet; docs/authentication.md) — the same work as N=2^17, r=8, p=1 at a quarter of the memory
 * (32 MiB instead of 128 MiB per hash), which matters when a few run at once. About 0.1–0.3 s.
 */
import crypto from 'node:crypto';
import type { PasswordHash } from '../config/settings-schema.js';

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
  keyLength: number;
}

export const DEFAULT_SCRYPT: ScryptParams = { N: 2 ** 15, r: 8, p: 3, keyLength: 32 };

function scrypt(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  // scrypt needs 128·N·r bytes; Node refuses more than `maxmem` (32 MiB by default).
  const maxmem = 128 * params.N * params.r * 2 + 1024 * 1024;
  return new Promise((resolve, reject) =>
    crypto.scrypt(
      password.normalize('NFC'),
      salt,
      params.keyLength,
      { N: params.N, r: params.r, p: params.p, maxmem },
      (error, key) => (error ? reject(error) : resolve(key)),
    ),
  );
}

export async function hashPassword(password: string, params: ScryptParams = DEFAULT_SCRYPT): Promise<PasswordHash> {
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(password, salt, params);
  return {
    algorithm: 'scrypt',
    N: params.N,
    r: params.r,
    p: params.p,
    keyLength: params.keyLength,
    salt: salt.toString('base64'),
    hash: hash.toString('base64'),
  };
}

export async function verifyPassword(password: string, stored: PasswordHash): Promise<boolean> {
  const expected = Buffer.from(stored.hash, 'base64');
  const actual = await scrypt(password, Buffer.from(stored.salt, 'base64'), stored);
  return actual.length === expected.length && crypto.timingSafeEqual(actual, expected);
}
