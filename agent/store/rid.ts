/**
 * Record IDs in the replaced product's shape (audit-api.md §2): the record time as 17 digits
 * `yyyyMMddHHmmssfff` (UTC) followed by 32 upper-case hex digits of randomness, 49 characters.
 */
import crypto from 'node:crypto';

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

export function ridTimestamp(ms: number): string {
  const d = new Date(ms);
  return (
    pad(d.getUTCFullYear(), 4) +
    pad(d.getUTCMonth() + 1, 2) +
    pad(d.getUTCDate(), 2) +
    pad(d.getUTCHours(), 2) +
    pad(d.getUTCMinutes(), 2) +
    pad(d.getUTCSeconds(), 2) +
    pad(d.getUTCMilliseconds(), 3)
  );
}

/** Hands out RIDs, drawing randomness in blocks so a batch of 10,000 costs one system call. */
export class RidGenerator {
  private pool = Buffer.alloc(0);
  private offset = 0;

  next(whenMs: number): string {
    if (this.offset + 16 > this.pool.length) {
      this.pool = crypto.randomBytes(16 * 4096);
      this.offset = 0;
    }
    const hex = this.pool.toString('hex', this.offset, this.offset + 16).toUpperCase();
    this.offset += 16;
    return ridTimestamp(whenMs) + hex;
  }
}

export const RID_PATTERN = /^\d{17}[0-9A-F]{32}$/;
