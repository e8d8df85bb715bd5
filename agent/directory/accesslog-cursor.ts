/**
 * Where the accesslog reader goes on from (docs/directory.md, "How changes are read"). slapd
 * stamps an operation's `reqStart` when the operation starts but writes its log entry when it
 * ends, so concurrent writes reach the log out of `reqStart` order: a poll can see a write whose
 * `reqStart` is newer than one still in progress. A cursor of the newest `reqStart` alone would
 * then skip the slower write for good (a benchmark of 1,000 concurrent modifies lost 26). The
 * cursor therefore keeps the `reqStart` of every write read in the last LATE_WRITE_SECONDS
 * before the newest, and each poll looks that far back for writes it has not read yet.
 */
/** `20261124012148.000014Z` → a Date (UTC). */
export function generalizedTime(value: string): Date {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(?:[.,](\d+))?Z$/.exec(value);
  if (!m) return new Date();
  const ms = m[7] ? Math.floor(Number(`0.${m[7]}`) * 1000) : 0;
  return new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!, ms));
}

/** How long an operation may take between its start and its log entry and still be read. */
export const LATE_WRITE_SECONDS = 60;

export interface AccesslogCursor {
  /** The newest `reqStart` read ('' for an empty log). */
  newest: string;
  /** Every `reqStart` read at or after `lookbackFrom(newest)`; null for a cursor of an older agent (no look-back). */
  seen: string[] | null;
}

export function parseAccesslogCursor(text: string): AccesslogCursor {
  if (!text.startsWith('{')) return { newest: text, seen: null };
  const parsed = JSON.parse(text) as { newest?: unknown; seen?: unknown };
  const seen = Array.isArray(parsed.seen) ? parsed.seen.filter((s): s is string => typeof s === 'string') : null;
  return { newest: typeof parsed.newest === 'string' ? parsed.newest : '', seen };
}

export function accesslogCursorText(cursor: AccesslogCursor): string {
  return JSON.stringify({ newest: cursor.newest, seen: cursor.seen ?? [] });
}

/** `reqStart` values from LATE_WRITE_SECONDS before `newest` on, as a generalized time ('' for ''). */
export function lookbackFrom(newest: string): string {
  if (newest === '') return '';
  const from = new Date(generalizedTime(newest).getTime() - LATE_WRITE_SECONDS * 1000);
  return from
    .toISOString()
    .replace(/[-:T]/g, '')
    .replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** The cursor after reading the writes with these `reqStart`s. */
export function advance(cursor: AccesslogCursor, read: readonly string[]): AccesslogCursor {
  let newest = cursor.newest;
  for (const start of read) if (start > newest) newest = start;
  const from = lookbackFrom(newest);
  const seen = new Set([...(cursor.seen ?? []), ...read].filter((s) => s >= from));
  return { newest, seen: [...seen].sort() };
}
