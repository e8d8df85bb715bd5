/**
 * One-line structured logging to stderr (docs/authentication.md: stdout carries only the ready line).
 * Each line: ISO time, level, message, then key=value fields. Secrets never reach a logger:
 * callers pass identifiers, not credentials.
 */
import { writeStderrLine } from './stderr-sink.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const LEVEL_ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type LogFields = Record<string, string | number | boolean | null | undefined>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger that adds `component=<name>` to every line. */
  child(component: string): Logger;
}

export interface LoggerOptions {
  level?: LogLevel;
  write?: (line: string) => void;
  now?: () => Date;
}

export function parseLogLevel(value: string | undefined): LogLevel {
  const v = (value ?? '').toLowerCase();
  return v === 'debug' || v === 'warn' || v === 'error' ? v : 'info';
}

/**
 * Control characters (C0, DEL, C1) and the Unicode line separators. A logged value may come from
 * a client (a client id, a user name): raw, an escape sequence would clear or forge the terminal
 * of whoever tails the log, and a line break would forge an entry.
 */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
// eslint-disable-next-line no-control-regex
const UNSAFE_ALL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** `\u001b` for ESC and so on: JSON.stringify leaves C1 characters and DEL as they are. */
function escapeUnsafe(s: string): string {
  return s.replace(UNSAFE_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Quote a field value when it holds spaces, quotes, `=` or control characters, so each entry
 * stays one line and no control character reaches the terminal.
 */
function formatValue(value: string | number | boolean | null): string {
  const s = String(value);
  if (UNSAFE.test(s)) return escapeUnsafe(JSON.stringify(s));
  return /[\s"=]/.test(s) || s === '' ? JSON.stringify(s) : s;
}

function formatFields(fields: LogFields): string {
  let out = '';
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    out += ` ${key}=${formatValue(value)}`;
  }
  return out;
}

export function createLogger(options: LoggerOptions = {}, base: LogFields = {}): Logger {
  const threshold = LEVEL_ORDER[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => writeStderrLine(line + '\n'));
  const now = options.now ?? (() => new Date());
  const emit = (level: LogLevel, message: string, fields?: LogFields): void => {
    if (LEVEL_ORDER[level] < threshold) return;
    const text = escapeUnsafe(message.replace(/\r?\n/g, ' | '));
    write(`${now().toISOString()} ${level.toUpperCase()} ${text}${formatFields({ ...base, ...fields })}`);
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (component) => createLogger(options, { ...base, component }),
  };
}

/** A logger that drops everything; for tests that do not look at logs. */
export const silentLogger: Logger = createLogger({ write: () => undefined });
