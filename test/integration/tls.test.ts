/** The agent and audit listeners speak TLS 1.2 and 1.3 only, with the agent's own certificate. */
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { createSelfSignedIdentity } from '../../agent/tls/certificate.js';
import { startTestAgent } from '../helpers/test-agent.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { handshake } from '../helpers/tls-probe.js';

/** A client that offers only TLS 1.0/1.1; OpenSSL 3 needs security level 0 to offer them at all. */
const LEGACY_CLIENT = { minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT:@SECLEVEL=0' } as const;

describe('TLS on the agent and audit listeners', () => {
  let agent: TestAgent;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = makeTempDir();
    agent = await startTestAgent({ dataDir });
  });
  afterAll(() => agent.stop());

  for (const listener of ['api', 'audit'] as const) {
    for (const version of ['TLSv1.2', 'TLSv1.3'] as const) {
      it(`${listener}: a ${version} handshake succeeds and verifies against the agent's certificate`, async () => {
        const result = await handshake({
          host: '127.0.0.1',
          port: agent.ports[listener],
          servername: 'localhost',
          ca: agent.identity.certPem,
          minVersion: version,
          maxVersion: version,
        });
        expect(result).toMatchObject({ ok: true, protocol: version });
        expect(result.fingerprint256).toBe(agent.identity.fingerprint256);
      });
    }

    it(`${listener}: TLS 1.0 and 1.1 clients are refused`, async () => {
      const result = await handshake({
        host: '127.0.0.1',
        port: agent.ports[listener],
        rejectUnauthorized: false,
        ...LEGACY_CLIENT,
      });
      expect(result.ok).toBe(false);
    });
  }

  it('the legacy client used above does connect to a server that allows TLS 1.1 (control)', async () => {
    const identity = await createSelfSignedIdentity('localhost');
    const server = tls.createServer({
      key: identity.keyPem,
      cert: identity.certPem,
      minVersion: 'TLSv1',
      ciphers: 'DEFAULT:@SECLEVEL=0',
    });
    server.on('secureConnection', (socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const result = await handshake({ host: '127.0.0.1', port, rejectUnauthorized: false, ...LEGACY_CLIENT });
    server.close();
    expect(result).toMatchObject({ ok: true, protocol: 'TLSv1.1' });
  });

  it('the certificate names localhost, 127.0.0.1 and ::1, and the IP form verifies too', async () => {
    const x509 = new (await import('node:crypto')).X509Certificate(agent.identity.certPem);
    expect(x509.subjectAltName).toContain('DNS:localhost');
    expect(x509.subjectAltName).toContain('IP Address:127.0.0.1');
    expect(x509.subjectAltName).toMatch(/IP Address:(::1|0:0:0:0:0:0:0:1)/);
    expect(x509.publicKey.asymmetricKeyType).toBe('rsa');
    const result = await handshake({ host: '127.0.0.1', port: agent.ports.api, ca: agent.identity.certPem });
    expect(result.ok).toBe(true);
  });

  it('offers no CBC cipher suites to a TLS 1.2 client', async () => {
    const result = await handshake({
      host: '127.0.0.1',
      port: agent.ports.api,
      rejectUnauthorized: false,
      maxVersion: 'TLSv1.2',
      ciphers: 'ECDHE-RSA-AES128-SHA256:ECDHE-RSA-AES256-SHA384',
    });
    expect(result.ok).toBe(false);
  });

  it('reuses the same certificate after a restart', async () => {
    const before = agent.identity.fingerprint256;
    await agent.stop();
    agent = await startTestAgent({ dataDir });
    expect(agent.identity.fingerprint256).toBe(before);
    const result = await handshake({ host: '127.0.0.1', port: agent.ports.api, rejectUnauthorized: false });
    expect(result.fingerprint256).toBe(before);
  });
});
