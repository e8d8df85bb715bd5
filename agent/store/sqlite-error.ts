/** An error from SQLite as the APIs report it (ServerError descriptions): its message and code. */
export function describeSqliteError(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown };
  const message = typeof e.message === 'string' ? e.message : String(error);
  return typeof e.code === 'string' && e.code.startsWith('SQLITE_') ? `${message} (${e.code})` : message;
}
