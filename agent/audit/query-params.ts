/**
 * The query string of audit API requests: `format=json` (else XML) and, on enum and search,
 * `count`. Anything else is refused with InputError naming it: a client that sends filters as
 * query parameters (`?who=...`) must learn they are ignored, not get every record back.
 */
import { ErrorCodes, inputError } from './audit-errors.js';
import type { AuditLimits } from './audit-limits.js';
import type { WireFormat } from './record-stream.js';

/** The response format asked for; an unusable value falls back to XML (for the error body). */
export function requestedFormat(querystring: string): WireFormat {
  const values = new URLSearchParams(querystring).getAll('format');
  return values.length === 1 && values[0]!.toLowerCase() === 'json' ? 'json' : 'xml';
}

export interface QueryOptions {
  format: WireFormat;
  count: number;
}

export function parseQuery(querystring: string, allowCount: boolean, limits: AuditLimits): QueryOptions {
  const params = new URLSearchParams(querystring);
  const seen = new Set<string>();
  let format: WireFormat = 'xml';
  let count = limits.defaultCount;
  for (const [name, value] of params) {
    if (seen.has(name))
      throw inputError(ErrorCodes.invalidArgument, `query parameter ${name} is given twice`, `?${name}`);
    seen.add(name);
    if (name === 'format') {
      const lower = value.toLowerCase();
      if (lower !== 'json' && lower !== 'xml') {
        throw inputError(
          ErrorCodes.conversion,
          `Invalid format parameter specified: "${value}" (use json or xml)`,
          '?format',
        );
      }
      format = lower;
    } else if (name === 'count' && allowCount) {
      if (!/^\d{1,9}$/.test(value) || Number(value) < 1) {
        throw inputError(
          ErrorCodes.conversion,
          `Invalid count parameter specified: "${value}" is not a whole number from 1 to ${limits.maxCount}`,
          '?count',
        );
      }
      if (Number(value) > limits.maxCount) {
        throw inputError(
          ErrorCodes.invalidArgument,
          `Invalid count parameter specified: at most ${limits.maxCount} records per page`,
          '?count',
        );
      }
      count = Number(value);
    } else {
      throw inputError(ErrorCodes.invalidArgument, `unknown query parameter ${name}`, `?${name}`);
    }
  }
  return { format, count };
}
