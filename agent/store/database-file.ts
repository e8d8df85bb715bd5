/**
 * A cheap health check of the audit database file, run before each request uses it. SQLite
 * alone would not notice some failures: a connection keeps reading an unlinked file after it is
 * removed, and serves cached pages after the file's header is overwritten (docs/security.md).
 * Checking the path and the 16-byte magic string costs microseconds and turns both into a clear
 * error that the API reports (and recovers from once the file is back).
 */
import fs from 'node:fs';

const MAGIC = 'SQLite format 3\u0000';

/** Why the file cannot be used, or null when it looks like a SQLite database. */
export function databaseFileProblem(file: string): string | null {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT'
      ? 'the audit database file is missing'
      : `the audit database file cannot be opened (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  try {
    const header = Buffer.alloc(16);
    const read = fs.readSync(fd, header, 0, 16, 0);
    if (read === 16 && header.toString('latin1') === MAGIC) return null;
    return read === 0
      ? 'the audit database file is empty'
      : 'the audit database file is not a SQLite database (its header is damaged)';
  } catch (error) {
    return `the audit database file cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
  } finally {
    fs.closeSync(fd);
  }
}
