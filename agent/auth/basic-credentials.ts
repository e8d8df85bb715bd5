/**
 * HTTP Basic client authentication at the token endpoint (RFC 6749 §2.3.1): "The client
 * identifier is encoded using the application/x-www-form-urlencoded encoding algorithm per
 * Appendix B, and the encoded value is used as the username; the client password is encoded
 * using the same algorithm and used as the password." So: Base64-decode, split at the first
 * `:`, then form-decode each half (`+` is a space, `%XX` an escape). Control characters are
 * refused, as in the form body (form-parameters.ts): no client id or secret holds one.
 */

export type BasicResult = { ok: true; clientId: string; secret: string } | { ok: false; problem: string };

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function formDecode(part: string): string | null {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

/** `header` is the whole Authorization value; its scheme has been checked to be Basic. */
export function parseBasicCredentials(header: string): BasicResult {
  const encoded = header.replace(/^basic\s+/i, '').trim();
  if (!BASE64.test(encoded) || encoded.length % 4 !== 0) {
    return { ok: false, problem: 'the Basic credentials are not valid Base64' };
  }
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return { ok: false, problem: 'the Basic credentials have no colon between client id and secret' };
  const clientId = formDecode(decoded.slice(0, colon));
  const secret = formDecode(decoded.slice(colon + 1));
  if (clientId === null || secret === null) {
    return { ok: false, problem: 'the Basic credentials have a malformed percent-escape' };
  }
  if (CONTROL.test(clientId) || CONTROL.test(secret)) {
    return { ok: false, problem: 'the Basic credentials contain control characters' };
  }
  return { ok: true, clientId, secret };
}
