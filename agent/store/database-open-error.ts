/**
 * A database of the data directory cannot be opened at start (docs/security.md, F13): its
 * header is damaged, it is not SQLite, or a newer Vigil wrote it. The agent refuses to start
 * with one line naming the file and what to do, and leaves the file exactly as it is: it never
 * replaces lost evidence with an empty database.
 */
export class DatabaseOpenError extends Error {
  constructor(
    readonly file: string,
    readonly what: string,
    problem: string,
    remedy: string,
  ) {
    super(`${what} ${file} cannot be opened: ${problem}. It was left untouched; ${remedy}`);
    this.name = 'DatabaseOpenError';
  }
}

/** The reason in a SQLite error, without the file name twice. */
export function openProblem(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown };
  const message = typeof e.message === 'string' ? e.message : String(error);
  return typeof e.code === 'string' && e.code.startsWith('SQLITE_') ? `${message} (${e.code})` : message;
}
