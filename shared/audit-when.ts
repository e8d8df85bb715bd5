/**
 * Time in audit searches: the date-time and time-of-day formats of the When and WorkingHours
 * filters (docs/audit-api.md "When and WorkingHours") and what the named timeframes mean.
 *
 * Decisions (docs/audit-api.md): ranges are half-open, [From, To); timeframes are calendar
 * days in the agent's local time zone — Today is from local midnight to the next one,
 * LastSevenDays is today and the six days before it, LastThirtyDays today and the 29 before.
 */
import type { Timeframe, WhenValue } from './audit-filters.js';

const DAY_MS = 86_400_000;

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;
const TIME_OF_DAY = /^(\d{2}):(\d{2}):(\d{2})(Z|[+-]\d{2}:\d{2})$/i;

/** Offset `Z`, `+HH:MM` or `-HH:MM` in minutes east of UTC, or null when out of range. */
function offsetMinutes(zone: string): number | null {
  if (zone.toUpperCase() === 'Z') return 0;
  const hours = Number(zone.slice(1, 3));
  const minutes = Number(zone.slice(4, 6));
  if (hours > 14 || minutes > 59) return null;
  return (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
}

/** `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)` → epoch ms; null when malformed or not a real date. */
export function parseDateTime(text: string): number | null {
  const m = DATE_TIME.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const offset = offsetMinutes(m[8]!);
  if (offset === null || month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null;
  const base = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(base);
  // Date.UTC rolls 31 April over to 1 May; a real date maps back onto itself.
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return null;
  const fraction = m[7] ? Math.floor(Number(`0${m[7]}`) * 1000) : 0;
  return base + fraction - offset * 60_000;
}

/** `HH:MM:SS(Z|±HH:MM)` → milliseconds after UTC midnight, in [0, 86 400 000). */
export function parseTimeOfDay(text: string): number | null {
  const m = TIME_OF_DAY.exec(text);
  if (!m) return null;
  const hour = Number(m[1]);
  const minute = Number(m[2]);
  const second = Number(m[3]);
  const offset = offsetMinutes(m[4]!);
  if (offset === null || hour > 23 || minute > 59 || second > 59) return null;
  const local = ((hour * 60 + minute) * 60 + second) * 1000;
  return (((local - offset * 60_000) % DAY_MS) + DAY_MS) % DAY_MS;
}

/** A half-open interval of epoch ms; a null end is open. */
export interface TimeRange {
  from: number | null;
  to: number | null;
}

/** Local midnight `days` days after the day of `reference` (negative: before). DST-safe. */
function localMidnight(reference: number, days: number): number {
  const d = new Date(reference);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate() + days).getTime();
}

export function timeframeRange(timeframe: Timeframe, reference: number): TimeRange {
  const tomorrow = localMidnight(reference, 1);
  switch (timeframe) {
    case 'Today':
      return { from: localMidnight(reference, 0), to: tomorrow };
    case 'Yesterday':
      return { from: localMidnight(reference, -1), to: localMidnight(reference, 0) };
    case 'LastSevenDays':
      return { from: localMidnight(reference, -6), to: tomorrow };
    case 'LastThirtyDays':
      return { from: localMidnight(reference, -29), to: tomorrow };
  }
}

/**
 * The interval a When value selects. Timeframes resolve against `reference`: the time the
 * search was first run, so every page of one search means the same days.
 */
export function whenRange(value: WhenValue, reference: number): TimeRange {
  if ('timeframe' in value) return timeframeRange(value.timeframe, reference);
  return {
    from: value.from === null ? null : parseDateTime(value.from),
    to: value.to === null ? null : parseDateTime(value.to),
  };
}

/** The WorkingHours window as UTC milliseconds of the day, [from, to); from > to wraps midnight. */
export function workingHoursWindow(value: { from: string; to: string }): { from: number; to: number } {
  return { from: parseTimeOfDay(value.from) ?? 0, to: parseTimeOfDay(value.to) ?? 0 };
}

/** Milliseconds after UTC midnight of an epoch-ms time (also for times before 1970). */
export function timeOfDay(ms: number): number {
  return ((ms % DAY_MS) + DAY_MS) % DAY_MS;
}
