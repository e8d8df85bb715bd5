/**
 * The agent's Ed25519 signing key (docs/integrity.md): created at first start in
 * `<data>/secrets/chain-signing-key.pem` (owner-only). It signs checkpoints of the record
 * chain and of the log files' sidecars; its public key and fingerprint are shown in the agent
 * resource and the console so an operator can keep a copy elsewhere.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { writeFileDurably } from '../config/durable-file.js';

export const SIGNING_KEY_FILE = 'chain-signing-key.pem';

/** SHA-256 (hex) of the raw 32-byte public key. */
export function fingerprintOf(publicKey: crypto.KeyObject): string {
  const raw = rawPublicKey(publicKey);
  return crypto.createHash('sha256').update(raw).digest('hex');
}

/** The raw key: the last 32 bytes of its SPKI DER encoding (RFC 8410). */
function rawPublicKey(publicKey: crypto.KeyObject): Buffer {
  const der = publicKey.export({ format: 'der', type: 'spki' });
  return der.subarray(der.length - 32);
}

export class SigningKey {
  readonly publicKeyPem: string;
  readonly fingerprint: string;

  constructor(private readonly privateKey: crypto.KeyObject) {
    const publicKey = crypto.createPublicKey(privateKey);
    this.publicKeyPem = publicKey.export({ format: 'pem', type: 'spki' }).toString();
    this.fingerprint = fingerprintOf(publicKey);
  }

  sign(message: Buffer): Buffer {
    return crypto.sign(null, message, this.privateKey);
  }

  /** Reads the key from `<secrets>/chain-signing-key.pem`, creating it (0600, durably) on first use. */
  static async load(secretsDir: string): Promise<SigningKey> {
    const file = path.join(secretsDir, SIGNING_KEY_FILE);
    await fs.mkdir(secretsDir, { recursive: true, mode: 0o700 });
    try {
      return new SigningKey(crypto.createPrivateKey(await fs.readFile(file)));
    } catch (error) {
      // A damaged key file is not replaced: the checkpoints already signed would no longer
      // verify against the public key the operator keeps.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const { privateKey } = crypto.generateKeyPairSync('ed25519');
    await writeFileDurably(file, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
    return new SigningKey(privateKey);
  }
}

/** Verifies a signature made by `SigningKey.sign`. */
export function verifySignature(publicKey: crypto.KeyObject, message: Buffer, signature: Buffer): boolean {
  try {
    return crypto.verify(null, message, publicKey, signature);
  } catch {
    return false;
  }
}
