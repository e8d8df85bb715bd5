/**
 * Crash-safe whole-file replacement: write a temporary file beside the target, fsync it,
 * rename it over the target, then fsync the folder so the rename itself is durable.
 * lowdb's own JSONFile (steno) renames without fsync, which can leave an empty file after a
 * power loss; settings hold the operator's clients and users, so they get the full sequence.
 */
import crypto from 'node:crypto';
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

export interface DurableWriteOptions {
  /** File mode for the new file; settings contain credential hashes, so owner-only by default. */
  mode?: number;
}

/**
 * The temporary file is new or nothing: a random name nobody can plant in advance, created
 * exclusively, and never through a symbolic link (O_NOFOLLOW does not exist on Windows).
 */
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

export async function writeFileDurably(
  file: string,
  contents: string | Uint8Array,
  options: DurableWriteOptions = {},
): Promise<void> {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${crypto.randomBytes(9).toString('base64url')}.tmp`);
  const handle = await fs.open(temp, CREATE_NEW, options.mode ?? 0o600);
  try {
    await handle.writeFile(contents);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fs.rename(temp, file);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
  await syncFolder(dir);
}

/** fsync a directory so a rename inside it survives a crash (not supported on Windows: skipped). */
async function syncFolder(dir: string): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
