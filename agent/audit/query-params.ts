/**
 * The query string of audit API requests and the wire format of a request.
 *
 * Defined parameters: `format` (`json` or `xml`) and, on enum and search, `count`. A defined
 * parameter that does not convert, or is given twice, is refused with InputError naming it.
 * Any other parameter is ignored (and reported at debug level by the caller): clients of the
 * compatible API (docs/audit-api.md) send parameters it never defined (`?who=`, `?from=`, `?objectType=`) and
 * work against it, so they must work here too (docs/audit-api.md "Compatibility").
 *
 * The format: `format` when given; else JSON when the body is declared JSON (a client that sends
 * `Content-Type: application/json` and reads the answer as JSON); else XML.
 */
import { ErrorCodes, inputError } from './audit-errors.js';
import type { AuditLimits } from './audit-limits.js';
import type { WireFormat } from './record-stream.js';

/** The format a Content-Type names, or null for none or any other type. */
export function formatOfContentType(header: string | undefined): WireFormat | null {
  const type = (header ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json' || type === 'text/json' || type.endsWith('+json')) return 'json';
  if (type === 'application/xml' || type === 'text/xml' || type.endsWith('+xml')) return 'xml';
  return null;
}

/** The format of the answer, for error bodies too; an unusable `format` value falls back to XML. */
export function requestedFormat(querystring: string, contentType: string | undefined): WireFormat {
  const values = new URLSearchParams(querystring).getAll('format');
  if (values.length === 0) return formatOfContentType(contentType) === 'json' ? 'json' : 'xml';
  return values.length === 1 && values[0]!.toLowerCase() === 'json' ? 'json' : 'xml';
}

export interface QueryOptions {
  /** The `format` parameter, or null when the request has none. */
  format: WireFormat | null;
  count: number;
  /** Names of the parameters this API does not define, which were ignored. */
  ignored: string[];
}

export function parseQuery(querystring: string, allowCount: boolean, limits: AuditLimits): QueryOptions {
  const params = new URLSearchParams(querystring);
  const seen = new Set<string>();
  let format: WireFormat | null = null;
  let count = limits.defaultCount;
  const ignored: string[] = [];
  for (const [name, value] of params) {
    const defined = name === 'format' || (name === 'count' && allowCount);
    if (!defined) {
      ignored.push(name);
      continue;
    }
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
    } else {
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
    }
  }
  return { format, count, ignored };
}
