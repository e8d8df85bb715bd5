/**
 * Why a directory session could not be opened, in words an operator can act on
 * (docs/directory.md "Status"): the server cannot be reached, the TLS handshake failed (and for
 * a certificate, what is wrong with it and which CAs were trusted), the server answered with
 * something that is not LDAP, or it refused the bind. The words name the server, the CA file
 * and the bind DN, never the password.
 */
import type { Socket } from 'node:net';

export type SessionFailure = 'unreachable' | 'tls' | 'bind' | 'protocol';

/** Why a session could not be opened: `kind` decides the domain status (Warning or Error). */
export class SessionError extends Error {
  constructor(
    readonly kind: SessionFailure,
    message: string,
  ) {
    super(message);
    this.name = 'SessionError';
  }
}

/** OpenSSL's verification results that mean "not issued by a CA we trust" (node:tls error codes). */
const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
  'INVALID_CA',
]);

interface TlsError extends Error {
  code?: string;
  /** OpenSSL's reason without its file and line (`wrong version number`). */
  reason?: string;
}

/**
 * What is wrong with the server's certificate, or null when the error is not about it.
 * `caFile` is the domain's CA file ('' for the system's CAs).
 */
export function certificateProblem(error: TlsError, host: string, caFile: string): string | null {
  const code = error.code ?? '';
  const trusted = caFile === '' ? "the system's CAs (set the domain's CA file)" : `the CA file ${caFile}`;
  if (UNTRUSTED.has(code)) {
    return `the server's certificate is not issued by a CA the domain trusts (${trusted}): ${error.message}`;
  }
  if (code === 'CERT_HAS_EXPIRED') return `the server's certificate has expired: ${error.message}`;
  if (code === 'CERT_NOT_YET_VALID') return `the server's certificate is not valid yet: ${error.message}`;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `the server's certificate is not for ${host}: ${error.message}`;
  if (/^CERT_|_CERT/.test(code) || /certificate/i.test(error.message)) {
    return `the server's certificate was refused: ${error.message}`;
  }
  return null;
}

/** OpenSSL messages carry the library's file and line: the reason alone reads better. */
function tlsReason(error: TlsError): string {
  return error.reason ?? error.message.split('\n')[0]!;
}

/** An error of the TLS layer itself (not of the certificate, not of the socket below). */
function isTlsError(error: TlsError): boolean {
  return /^ERR_SSL|^ERR_TLS/.test(error.code ?? '') || /\bTLS\b|\bSSL\b/.test(error.message);
}

/** Words for a failure below LDAP (the socket, TLS), or of a server that does not speak LDAP. */
export function transportFailure(
  error: TlsError,
  server: string,
  host: string,
  caFile: string,
  reply: RepliesSeen,
): SessionError {
  const code = error.code ?? '';
  const certificate = certificateProblem(error, host, caFile);
  if (certificate !== null) return new SessionError('tls', `the TLS connection to ${server} failed: ${certificate}`);
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || /wrong version number/.test(error.message)) {
    return new SessionError(
      'tls',
      `${server} did not answer the TLS handshake with TLS (${tlsReason(error)}): is it an ldap:// port? Those use StartTLS`,
    );
  }
  if (isTlsError(error)) {
    return new SessionError('tls', `the TLS connection to ${server} failed: ${tlsReason(error)}`);
  }
  if (reply.notLdap !== null) {
    return new SessionError('protocol', `${server} did not answer as an LDAP server: it sent ${reply.notLdap}`);
  }
  if (/ECONNREFUSED|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|EPIPE/.test(code)) {
    return new SessionError('unreachable', `cannot reach ${server} (${code})`);
  }
  if (/timeout|timed out/i.test(error.message)) {
    return new SessionError('unreachable', `${server} did not answer in time`);
  }
  if (/closed|socket/i.test(error.message)) return new SessionError('unreachable', `${server} closed the connection`);
  return new SessionError('protocol', `${server} did not answer as an LDAP server: ${error.message}`);
}

/**
 * The StartTLS upgrade failed: the certificate's problem, or the handshake's; a failure below
 * TLS (nothing listens, the server is not LDAP) is told as for any connection.
 */
export function startTlsFailure(
  error: TlsError,
  server: string,
  host: string,
  caFile: string,
  reply: RepliesSeen,
): SessionError {
  const certificate = certificateProblem(error, host, caFile);
  if (certificate !== null) return new SessionError('tls', `StartTLS with ${server} failed: ${certificate}`);
  if (isTlsError(error)) return new SessionError('tls', `StartTLS with ${server} failed: ${tlsReason(error)}`);
  return transportFailure(error, server, host, caFile, reply);
}

/** The server answered the StartTLS request with an LDAP error: it has no TLS to offer. */
export function startTlsRefused(error: Error, server: string): SessionError {
  return new SessionError(
    'tls',
    `${server} refused StartTLS (${error.message}): give the server a certificate, use ldaps://, or set the domain's TLS to none to read it without TLS`,
  );
}

/** What the server's first bytes on a connection said, when they were not an LDAP message. */
export interface RepliesSeen {
  notLdap: string | null;
}

/**
 * Watches the first bytes a connection receives: every LDAP message is a BER SEQUENCE (RFC 4511
 * section 5.1, tag 0x30), so anything else is another protocol (an HTTP error page, a mail
 * banner), kept as a short printable excerpt for the status.
 */
export function watchFirstReply(socket: Socket, seen: RepliesSeen): void {
  socket.once('data', (chunk: Buffer) => {
    if (chunk.length === 0 || chunk[0] === 0x30 || seen.notLdap !== null) return;
    const text = chunk
      .subarray(0, 80)
      .toString('latin1')
      .split(/[\r\n]/)[0]!
      .replace(/[^\x20-\x7e]/g, '.');
    seen.notLdap = text.trim() === '' ? `${chunk.length} bytes that are not LDAP` : `"${text}"`;
  });
}
