/**
 * The console window's certificate decision (Electron `session.setCertificateVerifyProc`).
 * The agent's HTTPS listeners use a self-signed certificate; the window trusts exactly that
 * certificate, identified by its SHA-256 fingerprint, for the loopback names the certificate
 * is issued for, and nothing else there. Other hosts keep Chromium's own verification.
 */
import { X509Certificate } from 'node:crypto';

/** Results the verify proc passes to its callback (Electron docs, Session.setCertificateVerifyProc). */
export const CertificateVerdict = {
  trust: 0,
  reject: -2,
  useChromiumResult: -3,
} as const;
export type CertificateVerdict = (typeof CertificateVerdict)[keyof typeof CertificateVerdict];

/** The names the agent's certificate carries and its URLs use (agent/tls/certificate.ts SAN). */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export interface CertificateCheck {
  hostname: string;
  certificate: { data: string };
}

function fingerprint256(pem: string): string | null {
  try {
    return new X509Certificate(pem).fingerprint256;
  } catch {
    return null;
  }
}

/**
 * @param agentFingerprint256 the running agent's `identity.fingerprint256` ("AB:CD:..."), or
 *   null while no agent runs (then nothing on loopback is trusted).
 */
export function certificateVerdict(check: CertificateCheck, agentFingerprint256: string | null): CertificateVerdict {
  if (!LOOPBACK_HOSTS.has(check.hostname.toLowerCase())) return CertificateVerdict.useChromiumResult;
  const presented = fingerprint256(check.certificate.data);
  if (agentFingerprint256 && presented && presented === agentFingerprint256.toUpperCase()) {
    return CertificateVerdict.trust;
  }
  return CertificateVerdict.reject;
}
