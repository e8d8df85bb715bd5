/**
 * The data dir holds every activity record, the credential hashes and the keys, so only its
 * owner may enter it (docs/security.md, F10). A directory made ahead of time by an installer or
 * a script (`mkdir DATA`, mode 0755) is tightened at start, as ssh does with `~/.ssh`; one that
 * belongs to another account is refused, because whoever owns it can swap what is inside.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../log/logger.js';

/** The data dir belongs to another account: starting would trust files that account controls. */
export class DataDirOwnerError extends Error {
  constructor(
    readonly dataDir: string,
    readonly ownerUid: number,
  ) {
    super(
      `the data directory ${dataDir} belongs to another account (uid ${ownerUid}); ` +
        `use a data directory of your own, or give this one to your account (chown)`,
    );
    this.name = 'DataDirOwnerError';
  }
}

const POSIX = process.platform !== 'win32';

/**
 * New files and folders of this process are owner-only from here on (databases and their
 * -wal/-shm, log files, secrets). Set as early as possible; a no-op on Windows.
 */
export function restrictNewFiles(): void {
  if (POSIX) process.umask(0o077);
}

/** Creates the data dir if needed, refuses one owned by someone else, and makes it 0700. */
export async function secureDataDir(root: string, log: Logger): Promise<void> {
  await fs.mkdir(root, { recursive: true, mode: 0o700 });
  if (!POSIX) return;
  const info = await fs.stat(root);
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) throw new DataDirOwnerError(root, info.uid);
  if ((info.mode & 0o777) !== 0o700) {
    await fs.chmod(root, 0o700);
    log.info('the data directory was open to other accounts: made it owner-only (0700)', {
      dataDir: root,
      previousMode: (info.mode & 0o777).toString(8).padStart(4, '0'),
    });
  }
}

const DATABASE_FILE = /\.db(-wal|-shm|-journal)?$/;

/**
 * Makes every SQLite database of the data dir and its -wal/-shm files 0600, whatever mode they
 * were created with before (SQLite gives new -wal and -shm files the database's mode).
 */
export async function restrictDatabaseFiles(root: string): Promise<void> {
  if (!POSIX) return;
  for (const name of await fs.readdir(root)) {
    if (!DATABASE_FILE.test(name)) continue;
    const file = path.join(root, name);
    const info = await fs.lstat(file).catch(() => null);
    if (info?.isFile() && (info.mode & 0o777) !== 0o600) await fs.chmod(file, 0o600);
  }
}
