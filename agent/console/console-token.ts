/**
 * The console token (shared/console-api.ts): a fresh `vgc_` value at every agent start, written
 * to `<data>/secrets/console-token` (owner-only) for programs of the same user — the `vigil`
 * command and the tray app. A token from an earlier run stops working when the agent restarts.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { writeFileDurably } from '../config/durable-file.js';
import { generateCredential } from '../auth/credential-format.js';

export class ConsoleToken {
  private constructor(private readonly digest: Buffer) {}

  /** Generates the token and writes it (mode 0600, folder 0700) before the console listens. */
  static async issue(file: string): Promise<ConsoleToken> {
    await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const token = generateCredential('console');
    await writeFileDurably(file, token + '\n', { mode: 0o600 });
    return new ConsoleToken(sha256(token));
  }

  /** Constant-time comparison of fixed-length digests (timingSafeEqual needs equal lengths). */
  matches(candidate: string): boolean {
    return crypto.timingSafeEqual(sha256(candidate), this.digest);
  }

  /** This console's answer to a client's identity challenge (see consoleIdentityProof). */
  prove(challenge: string, port: number): string {
    return proofFromDigest(this.digest, challenge, port);
  }
}

/**
 * What only a holder of the console token can compute: an HMAC-SHA256, keyed with the token's
 * SHA-256, of a random challenge and the console's port. The `vigil` command checks it before it
 * sends the token or anything else, so a program squatting on the port of a dead agent gets
 * nothing (docs/security.md, F8); the port stops a relay to a console elsewhere.
 */
export function consoleIdentityProof(token: string, challenge: string, port: number): string {
  return proofFromDigest(sha256(token), challenge, port);
}

function proofFromDigest(digest: Buffer, challenge: string, port: number): string {
  return crypto
    .createHmac('sha256', digest)
    .update(`vigil-console-identity\n${port}\n${challenge}`)
    .digest('base64url');
}

/** A challenge is 32 to 128 base64url characters (the CLI sends 43, 256 random bits). */
export const CONSOLE_CHALLENGE = /^[A-Za-z0-9_-]{32,128}$/;

function sha256(value: string): Buffer {
  return crypto.createHash('sha256').update(value, 'utf8').digest();
}

/** Reads the token a running agent wrote (for the CLI and the tray app). */
export async function readConsoleToken(file: string): Promise<string> {
  return (await fs.readFile(file, 'utf8')).trim();
}
