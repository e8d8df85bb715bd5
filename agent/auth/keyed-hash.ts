/**
 * Keyed hashing of credentials (docs/authentication.md): only HMAC-SHA256(pepper, value) is stored,
 * never the value. The pepper is 32 random bytes in an owner-only file under `secrets/`,
 * created on first start, outside both settings.json and auth.db, so a copy of either alone
 * cannot be used to check guesses. HMAC, not scrypt: the values are 256-bit random, so a slow
 * hash adds nothing but would cap the token endpoint at a few requests per second.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { writeFileDurably } from '../config/durable-file.js';
import type { Logger } from '../log/logger.js';

const PEPPER_BYTES = 32;

export class CredentialHasher {
  constructor(private readonly pepper: Buffer) {
    if (pepper.length < PEPPER_BYTES) throw new Error(`the pepper must be at least ${PEPPER_BYTES} bytes`);
  }

  /** 32-byte HMAC-SHA256 of the value. */
  hash(value: string): Buffer {
    return crypto.createHmac('sha256', this.pepper).update(value, 'utf8').digest();
  }

  hashHex(value: string): string {
    return this.hash(value).toString('hex');
  }

  /** Constant-time check of `value` against a stored hex hash (both sides are 32-byte digests). */
  matchesHex(value: string, storedHex: string): boolean {
    const stored = Buffer.from(storedHex, 'hex');
    const actual = this.hash(value);
    return stored.length === actual.length && crypto.timingSafeEqual(stored, actual);
  }
}

/**
 * Reads the pepper, or creates it (owner-only, durably) on first start. A pepper file that
 * exists but is too short stops the agent: replacing it would silently invalidate every
 * stored secret and token.
 */
export async function loadOrCreatePepper(file: string, log?: Logger): Promise<Buffer> {
  try {
    const text = (await fs.readFile(file, 'utf8')).trim();
    const pepper = Buffer.from(text, 'base64');
    if (pepper.length < PEPPER_BYTES) {
      throw new Error(
        `the pepper file ${file} is damaged (fewer than ${PEPPER_BYTES} bytes); restore it from a backup`,
      );
    }
    return pepper;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const pepper = crypto.randomBytes(PEPPER_BYTES);
  await writeFileDurably(file, pepper.toString('base64') + '\n', { mode: 0o600 });
  log?.info('created the credential pepper', { file });
  return pepper;
}
