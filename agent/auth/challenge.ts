/**
 * Shared pieces of the agent API's authentication answers: the realm of every challenge, and
 * the character rule of RFC 6749 §5.2 for error descriptions (also used inside
 * `WWW-Authenticate` values, which must stay plain ASCII without quotes or backslashes).
 */

export const AUTH_REALM = 'vigil';

/**
 * RFC 6749 §5.2: error_description "MUST NOT include characters outside the set %x20-21 /
 * %x23-5B / %x5D-7E"; input echoed in a description (a parameter name) is made to fit.
 */
export function rfcText(text: string): string {
  return text.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '?');
}
