/**
 * The `Range` request header for `bytes` (RFC 9110 §14.1.2, RFC 9110 §14.2), for downloads that serve
 * one range: a single satisfiable range → 206; no satisfiable range → 416; several ranges →
 * the whole file (RFC 9110 §14.2 lets a server ignore Range; multipart/byteranges is not
 * produced). A header that is not a valid `bytes` ranges-specifier, or another unit, is ignored
 * (RFC 9110 §14.2: "MAY ignore"), as is one sent with an `If-Range` that does not match (RFC 9110 §13.1.5).
 */

export type RangeDecision =
  { kind: 'whole' } | { kind: 'partial'; start: number; end: number } | { kind: 'unsatisfiable' };

const SPEC = /^(\d*)-(\d*)$/;

export function decideRange(header: string | undefined, size: number): RangeDecision {
  if (header === undefined || size === 0) return { kind: 'whole' };
  const match = /^\s*bytes\s*=\s*(.+)$/i.exec(header);
  if (!match) return { kind: 'whole' };
  const specs = match[1]!
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (specs.length === 0) return { kind: 'whole' };
  const satisfiable: Array<{ start: number; end: number }> = [];
  for (const spec of specs) {
    const parts = SPEC.exec(spec);
    if (!parts || (parts[1] === '' && parts[2] === '')) return { kind: 'whole' }; // not a valid ranges-specifier
    if (parts[1] === '') {
      const suffix = Number(parts[2]);
      if (!Number.isSafeInteger(suffix)) return { kind: 'whole' };
      if (suffix > 0) satisfiable.push({ start: Math.max(0, size - suffix), end: size - 1 });
      continue;
    }
    const first = Number(parts[1]);
    const last = parts[2] === '' ? Infinity : Number(parts[2]);
    if (!Number.isSafeInteger(first) || (last !== Infinity && !Number.isSafeInteger(last)) || last < first) {
      return { kind: 'whole' }; // RFC 9110 §14.1.1: last-pos below first-pos makes the specifier invalid
    }
    if (first < size) satisfiable.push({ start: first, end: Math.min(last, size - 1) });
  }
  if (satisfiable.length === 0) return { kind: 'unsatisfiable' };
  if (specs.length > 1) return { kind: 'whole' };
  return { kind: 'partial', ...satisfiable[0]! };
}

/**
 * `If-Range` (RFC 9110 §13.1.5): the range applies only when the validator still matches — a
 * strong ETag compared strongly, or exactly the Last-Modified date.
 */
export function ifRangeMatches(header: string | undefined, etag: string, lastModified: string): boolean {
  if (header === undefined) return true;
  const value = header.trim();
  if (value.startsWith('W/')) return false; // weak validators never match for ranges
  if (value.startsWith('"')) return value === etag;
  return value === lastModified;
}
