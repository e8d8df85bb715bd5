/**
 * The agent's own TLS identity: a self-signed RSA certificate generated on first start and
 * reused afterwards (docs/agent-api.md), so clients can pin its SHA-256 fingerprint.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import { generate } from 'selfsigned';
import { writeFileDurably } from '../config/durable-file.js';
import type { Logger } from '../log/logger.js';

export interface TlsIdentity {
  certPem: string;
  keyPem: string;
  /** SHA-256 of the DER certificate as upper-case hex pairs joined by ':' (what browsers show). */
  fingerprint256: string;
  validTo: Date;
}

export interface CertificateFiles {
  tlsDir: string;
  certificate: string;
  privateKey: string;
}

/** About a year (docs/security.md): within what browsers and Apple platforms accept. */
const VALIDITY_DAYS = 397;
/**
 * Renew 30 days before expiry so clients never meet an expired certificate. Renewal keeps
 * the key, so a client that pins the public key (SPKI) is not broken by it.
 */
const RENEW_BEFORE_MS = 30 * 24 * 3600 * 1000;

function identityFrom(certPem: string, keyPem: string): TlsIdentity {
  const x509 = new crypto.X509Certificate(certPem);
  // Throws if the key does not belong to the certificate: better than a handshake failure later.
  if (!x509.checkPrivateKey(crypto.createPrivateKey(keyPem))) {
    throw new Error('the private key does not match the certificate');
  }
  return { certPem, keyPem, fingerprint256: x509.fingerprint256, validTo: new Date(x509.validTo) };
}

export async function createSelfSignedIdentity(
  hostName = os.hostname(),
  existingKeyPem?: string,
): Promise<TlsIdentity> {
  const notBeforeDate = new Date(Date.now() - 60_000);
  const notAfterDate = new Date(notBeforeDate.getTime() + VALIDITY_DAYS * 24 * 3600 * 1000);
  const altNames: Array<{ type: 2 | 7; value?: string; ip?: string }> = [
    { type: 2, value: 'localhost' },
    { type: 7, ip: '127.0.0.1' },
    { type: 7, ip: '::1' },
  ];
  if (hostName && hostName !== 'localhost') altNames.push({ type: 2, value: hostName });
  const pems = await generate([{ name: 'commonName', value: hostName || 'localhost' }], {
    keyType: 'rsa',
    keySize: 2048,
    algorithm: 'sha256', // selfsigned's default is sha1 (docs/architecture.md)
    notBeforeDate,
    notAfterDate,
    ...(existingKeyPem ? { keyPair: keyPairFrom(existingKeyPem) } : {}),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames },
    ],
  });
  return identityFrom(pems.cert, pems.private);
}

function keyPairFrom(privateKeyPem: string): { privateKey: string; publicKey: string } {
  const publicKey = crypto
    .createPublicKey(crypto.createPrivateKey(privateKeyPem))
    .export({ type: 'spki', format: 'pem' })
    .toString();
  return { privateKey: privateKeyPem, publicKey };
}

async function readIfPresent(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Loads the stored certificate and key, or generates and stores new ones (owner-only files). */
export async function loadOrCreateIdentity(
  files: CertificateFiles,
  log: Logger,
  now: () => Date = () => new Date(),
): Promise<TlsIdentity> {
  const [certPem, keyPem] = await Promise.all([readIfPresent(files.certificate), readIfPresent(files.privateKey)]);
  let keepKey: string | undefined;
  if (certPem !== null && keyPem !== null) {
    const identity = identityFrom(certPem, keyPem);
    if (identity.validTo.getTime() - now().getTime() > RENEW_BEFORE_MS) return identity;
    log.warn('TLS certificate expires soon; renewing it with the same key (its fingerprint changes)', {
      validTo: identity.validTo.toISOString(),
    });
    keepKey = keyPem;
  }
  await fs.mkdir(files.tlsDir, { recursive: true, mode: 0o700 });
  const identity = await createSelfSignedIdentity(os.hostname(), keepKey);
  // The key first: a certificate without its key on disk would be unusable after a crash.
  await writeFileDurably(files.privateKey, identity.keyPem, { mode: 0o600 });
  await writeFileDurably(files.certificate, identity.certPem, { mode: 0o600 });
  log.info('generated a self-signed TLS certificate', { sha256: identity.fingerprint256 });
  return identity;
}
