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
}

function sha256(value: string): Buffer {
  return crypto.createHash('sha256').update(value, 'utf8').digest();
}

/** Reads the token a running agent wrote (for the CLI and the tray app). */
export async function readConsoleToken(file: string): Promise<string> {
  return (await fs.readFile(file, 'utf8')).trim();
}
