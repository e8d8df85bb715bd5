/**
 * Strict parsing of `application/x-www-form-urlencoded` bodies for the token endpoint
 * (RFC 6749 §3.2: "Request and response parameters MUST NOT be included more than once";
 * "Parameters sent without a value MUST be treated as if they were omitted"). Unlike `qs`,
 * names are taken literally (`client_id[]` is just an unknown name, never an array), a bad
 * percent-escape is an error instead of being kept as text, and control characters are refused.
 */

export type FormResult =
  { ok: true; params: ReadonlyMap<string, string> } | { ok: false; problem: string; field?: string };

function decode(part: string): string | null {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

export function parseFormParameters(body: string): FormResult {
  const params = new Map<string, string>();
  const seen = new Set<string>();
  if (body === '') return { ok: true, params };
  for (const pair of body.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decode(eq < 0 ? pair : pair.slice(0, eq));
    const value = decode(eq < 0 ? '' : pair.slice(eq + 1));
    if (name === null || value === null) return { ok: false, problem: 'the form body has a malformed percent-escape' };
    if (CONTROL.test(name) || CONTROL.test(value)) {
      return { ok: false, problem: 'the form body contains control characters', field: name };
    }
    if (seen.has(name)) return { ok: false, problem: `the parameter ${name} is repeated`, field: name };
    seen.add(name);
    if (value !== '') params.set(name, value);
  }
  return { ok: true, params };
}
