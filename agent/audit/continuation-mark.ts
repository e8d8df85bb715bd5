/**
 * Continuation marks (docs/audit-api.md): opaque to clients, tamper-proof, stateless. A mark is
 * `base64url(payload) "." base64url(HMAC-SHA256(key, payload))`; the payload carries the search
 * (its conditions and the time it was first run, so "Today" keeps meaning the same day on every
 * page) and the `seq` the next page starts after. Nothing is stored on the server, so a mark
 * stays valid across restarts and for as long as the key file lives; a mark kept after the last
 * page returns the records written since.
 *
 * The key is 32 random bytes in `<data>/secrets/audit-mark-key`, owner-only, created on first use.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { writeFileDurably } from '../config/durable-file.js';
import {
  lookupTimeframe,
  textCondition,
  whenCondition,
  workingHoursCondition,
  FILTER_SPECS,
  type FilterCondition,
  type TextFilter,
} from '../../shared/audit-filters.js';

export const MARK_KEY_FILE = 'audit-mark-key';
const KEY_BYTES = 32;
const VERSION = 1;

/** What a mark carries. */
export interface MarkPayload {
  conditions: FilterCondition[];
  /** When the search was first run (epoch ms). */
  reference: number;
  /** Every record with seq ≤ after has been delivered or skipped. */
  after: number;
}

/** A mark that Vigil did not issue with this key, or that was edited. */
export class InvalidMarkError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'InvalidMarkError';
  }
}

/** Re-validates a decoded condition, so even a correctly signed payload is never trusted blindly. */
function conditionFrom(raw: unknown): FilterCondition {
  if (typeof raw !== 'object' || raw === null) throw new InvalidMarkError('bad condition');
  const { filter, operator, value } = raw as { filter?: unknown; operator?: unknown; value?: unknown };
  if (typeof filter !== 'string' || typeof operator !== 'string' || !(filter in FILTER_SPECS)) {
    throw new InvalidMarkError('bad condition');
  }
  try {
    if (filter === 'When') {
      const v = value as { timeframe?: string; from?: string | null; to?: string | null };
      if (typeof v?.timeframe === 'string') {
        const timeframe = lookupTimeframe(v.timeframe, false);
        if (timeframe === null) throw new InvalidMarkError('bad condition');
        return whenCondition(operator, { timeframe }, '');
      }
      return whenCondition(operator, { from: v?.from ?? null, to: v?.to ?? null }, '');
    }
    if (filter === 'WorkingHours') {
      const v = value as { from?: string; to?: string };
      return workingHoursCondition(operator, v?.from ?? null, v?.to ?? null, '');
    }
    if (typeof value !== 'string') throw new InvalidMarkError('bad condition');
    return textCondition(filter as TextFilter, operator, value, '');
  } catch {
    throw new InvalidMarkError('bad condition');
  }
}

export class MarkCodec {
  constructor(private readonly key: Buffer) {}

  /** Reads the key from `<secrets>/audit-mark-key`, creating it (0600, durably) on first use. */
  static async load(secretsDir: string): Promise<MarkCodec> {
    return new MarkCodec(await MarkCodec.loadKey(secretsDir));
  }

  /** The key of `load`, for a record store that hands it out (store/audit-records.ts). */
  static async loadKey(secretsDir: string): Promise<Buffer> {
    const file = path.join(secretsDir, MARK_KEY_FILE);
    await fs.mkdir(secretsDir, { recursive: true, mode: 0o700 });
    try {
      const key = await fs.readFile(file);
      if (key.length === KEY_BYTES) return key;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    // Missing or not a key: a new one. Marks issued under the old key stop working (400).
    const key = crypto.randomBytes(KEY_BYTES);
    await writeFileDurably(file, key, { mode: 0o600 });
    return key;
  }

  private mac(payload: Buffer): Buffer {
    return crypto.createHmac('sha256', this.key).update(payload).digest();
  }

  encode(mark: MarkPayload): string {
    const payload = Buffer.from(
      JSON.stringify({ v: VERSION, q: mark.conditions, t: mark.reference, s: mark.after }),
      'utf8',
    );
    return `${payload.toString('base64url')}.${this.mac(payload).toString('base64url')}`;
  }

  /** Throws InvalidMarkError for anything this codec did not produce. */
  decode(mark: string): MarkPayload {
    const parts = mark.trim().split('.');
    if (parts.length !== 2 || !/^[A-Za-z0-9_-]+$/.test(parts[0]!) || !/^[A-Za-z0-9_-]{43}$/.test(parts[1]!)) {
      throw new InvalidMarkError('not a continuation mark');
    }
    const payload = Buffer.from(parts[0]!, 'base64url');
    const given = Buffer.from(parts[1]!, 'base64url');
    // Only the canonical spelling: base64 leaves spare bits in the last character, and an
    // edited mark must not be accepted just because it decodes to the same bytes.
    if (payload.toString('base64url') !== parts[0] || given.toString('base64url') !== parts[1]) {
      throw new InvalidMarkError('not a continuation mark');
    }
    if (given.length !== 32 || !crypto.timingSafeEqual(given, this.mac(payload))) {
      throw new InvalidMarkError('the mark was not issued by this Vigil or has been changed');
    }
    let raw: { v?: unknown; q?: unknown; t?: unknown; s?: unknown };
    try {
      raw = JSON.parse(payload.toString('utf8')) as typeof raw;
    } catch {
      throw new InvalidMarkError('unreadable mark');
    }
    if (
      raw.v !== VERSION ||
      !Array.isArray(raw.q) ||
      !Number.isSafeInteger(raw.t) ||
      !Number.isSafeInteger(raw.s) ||
      (raw.s as number) < 0
    ) {
      throw new InvalidMarkError('unsupported mark version');
    }
    return { conditions: raw.q.map(conditionFrom), reference: raw.t as number, after: raw.s as number };
  }
}
