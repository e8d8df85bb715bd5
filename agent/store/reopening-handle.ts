/**
 * A connection to the audit database that follows its path: opened on first use, and opened
 * again when the path names another file (a restore from a backup replaced it while open: the
 * old connection would keep reading or writing the unlinked file) or after `reset()` (a
 * failure). A missing file is never created here: that would hide the loss of every record
 * behind an empty database. The reader, the writer thread, the checkpoint thread and the
 * search indexer each keep their connection in one of these.
 */
import fs from 'node:fs';
import { databaseFileProblem } from './database-file.js';

export interface FileIdentity {
  dev: number;
  ino: number;
}

/** Device and inode of `file`, or null when it cannot be read. */
export function fileIdentity(file: string): FileIdentity | null {
  try {
    const stat = fs.statSync(file);
    return { dev: stat.dev, ino: stat.ino };
  } catch {
    return null;
  }
}

export const sameFile = (a: FileIdentity | null, b: FileIdentity | null): boolean =>
  a !== null && b !== null && a.dev === b.dev && a.ino === b.ino;

export interface ReopeningHandleOptions<T> {
  file: string;
  open: () => T;
  close: (handle: T) => void;
  /**
   * Check the file's header before each use too (database-file.ts), not only that it exists:
   * a connection serves cached pages of a file whose header was overwritten.
   */
  checkHeader?: boolean;
  /** The error for a missing or damaged file (default: Error with the same message). */
  problem?: (message: string) => Error;
}

export class ReopeningHandle<T> {
  private handle: T | null = null;
  private identity: FileIdentity | null = null;

  constructor(private readonly options: ReopeningHandleOptions<T>) {}

  /** The handle on the file the path names now; throws when the file is missing or damaged. */
  get(): T {
    const { file } = this.options;
    const problem = this.options.checkHeader ? databaseFileProblem(file) : null;
    const current = fileIdentity(file);
    if (problem !== null || current === null) {
      this.reset();
      const message = problem ?? 'the audit database file is missing';
      throw this.options.problem ? this.options.problem(message) : new Error(message);
    }
    if (this.handle !== null && !sameFile(current, this.identity)) this.reset();
    if (this.handle === null) {
      this.handle = this.options.open();
      this.identity = current;
    }
    return this.handle;
  }

  /** The open handle, if any, without looking at the file. */
  get current(): T | null {
    return this.handle;
  }

  /** Closes the handle (after a failure, or to stop): the next `get()` opens the file again. */
  reset(): void {
    const handle = this.handle;
    this.handle = null;
    this.identity = null;
    if (handle !== null) this.options.close(handle);
  }
}
