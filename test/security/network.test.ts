/**
 * TLS and network rows of docs/security.md that the listener tests in
 * test/integration/ (tls, allow-list, console-listener) do not already cover: what the served
 * certificate holds (N03), host-name verification (N05), a flood from a refused address (N08)
 * and slow clients (N13).
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import os from 'node:os';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { createLogger } from '../../agent/log/logger.js';
import { apiRequest, bearer, enrolClient, obtainTokens } from '../helpers/api-client.js';
import { startTestAgent } from '../helpers/test-agent.js';
import { handshake, rawConnect } from '../helpers/tls-probe.js';

const SERVER_AUTH_OID = '1.3.6.1.5.5.7.3.1';
const HEADERS_TIMEOUT_MS = 1500;

let agent: TestAgent;
const logLines: string[] = [];

beforeAll(async () => {
  agent = await startTestAgent({
    log: createLogger({ write: (line) => logLines.push(line) }),
    headersTimeoutMs: HEADERS_TIMEOUT_MS,
  });
});
afterAll(() => agent.stop());

function servedCertificate(port: number): Promise<crypto.X509Certificate> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername: 'localhost', ca: agent.identity.certPem }, () => {
      const cert = socket.getPeerX509Certificate();
      socket.end();
      if (cert) resolve(cert);
      else reject(new Error('no peer certificate'));
    });
    socket.once('error', reject);
  });
}

describe('the served certificate (docs/security.md)', () => {
  it.each(['api', 'audit'] as const)(
    'N03 %s: SAN has localhost, the host name, 127.0.0.1 and ::1; CA:FALSE; serverAuth; RSA ≥ 2048; SHA-256; valid > 30 days',
    async (listener) => {
      const cert = await servedCertificate(agent.ports[listener]);
      const san = cert.subjectAltName ?? '';
      expect(san).toContain('DNS:localhost');
      if (os.hostname() !== 'localhost') expect(san).toContain(`DNS:${os.hostname()}`);
      expect(san).toContain('IP Address:127.0.0.1');
      expect(san).toMatch(/IP Address:(::1|0:0:0:0:0:0:0:1)\b/);
      expect(cert.ca).toBe(false);
      expect(cert.keyUsage).toContain(SERVER_AUTH_OID);
      const key = cert.publicKey;
      expect(key.asymmetricKeyType === 'ec' || (key.asymmetricKeyDetails?.modulusLength ?? 0) >= 2048).toBe(true);
      const text = execFileSync('openssl', ['x509', '-noout', '-text'], { input: cert.toString() }).toString();
      expect(text).toMatch(/Signature Algorithm: (sha256WithRSAEncryption|ecdsa-with-SHA256)/);
      expect(text).toMatch(/Basic Constraints:[^\n]*\n\s*CA:FALSE/);
      expect(new Date(cert.validTo).getTime()).toBeGreaterThan(Date.now() + 30 * 24 * 3600 * 1000);
    },
  );

  it('N05 a client that checks the name: servername localhost verifies, evil.example fails with ERR_TLS_CERT_ALTNAME_INVALID (RFC 2818 §3.1)', async () => {
    const base = { host: '127.0.0.1', port: agent.ports.api, ca: agent.identity.certPem };
    expect(await handshake({ ...base, servername: 'localhost' })).toMatchObject({ ok: true });
    expect(await handshake({ ...base, servername: 'evil.example' })).toMatchObject({
      ok: false,
      error: 'ERR_TLS_CERT_ALTNAME_INVALID',
    });
  });
});

describe('refused sources and slow clients (docs/security.md)', () => {
  it('N08 a flood of 1,000 connections from a refused address: each closed before TLS, one log line per listener', async () => {
    await agent.settings.update((s) => {
      s.allowList = ['127.0.0.1', '::1'];
    });
    const before = logLines.filter((l) => l.includes('refused by the allow-list')).length;
    const started = performance.now();
    const results = [];
    for (let batch = 0; batch < 10; batch++) {
      results.push(
        ...(await Promise.all(
          Array.from({ length: 100 }, () =>
            rawConnect({ host: '127.0.0.1', port: agent.ports.api, localAddress: '127.0.0.2' }, 5000),
          ),
        )),
      );
    }
    const elapsed = performance.now() - started;
    expect(results.every((r) => r.bytesReceived === 0)).toBe(true);
    expect(results.filter((r) => r.error === 'timeout')).toEqual([]);
    const refusedLines = logLines.filter((l) => l.includes('refused by the allow-list')).length - before;
    expect(refusedLines).toBe(1);
    // No TLS work is done for refused sockets: 1,000 of them take well under a second of server time.
    expect(elapsed).toBeLessThan(5000);
    // An allowed client is still served at once.
    const { access_token } = await obtainTokens(agent, await enrolClient(agent, ['read']));
    expect((await apiRequest(agent, { path: '/api/v1/agents', headers: bearer(access_token) })).status).toBe(200);
  });

  it('N13 slowloris: sockets trickling header bytes are closed at headersTimeout; other clients are served meanwhile', async () => {
    const { access_token } = await obtainTokens(agent, await enrolClient(agent, ['read']));
    const SLOW = 50;
    const sockets = await Promise.all(
      Array.from(
        { length: SLOW },
        () =>
          new Promise<tls.TLSSocket>((resolve, reject) => {
            const socket = tls.connect(
              { host: '127.0.0.1', port: agent.ports.api, servername: 'localhost', ca: agent.identity.certPem },
              () => {
                socket.write('GET /api/v1/agents HTTP/1.1\r\nHost: localhost\r\n');
                resolve(socket);
              },
            );
            socket.once('error', reject);
          }),
      ),
    );
    const opened = performance.now();
    const closedAfter: number[] = [];
    for (const socket of sockets) {
      socket.on('error', () => undefined);
      socket.once('close', () => closedAfter.push(performance.now() - opened));
    }
    const trickle = setInterval(() => {
      for (const socket of sockets) if (!socket.destroyed) socket.write(`X-Slow-${Date.now()}: 1\r\n`);
    }, 200);
    try {
      // Legitimate requests while the slow sockets are open.
      const latencies: number[] = [];
      for (let i = 0; i < 20; i++) {
        const t = performance.now();
        const res = await apiRequest(agent, { path: '/api/v1/agents', headers: bearer(access_token) });
        expect(res.status).toBe(200);
        latencies.push(performance.now() - t);
      }
      expect(Math.max(...latencies)).toBeLessThan(1000);
      const deadline = Date.now() + HEADERS_TIMEOUT_MS + 5000;
      while (closedAfter.length < SLOW && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    } finally {
      clearInterval(trickle);
      for (const socket of sockets) socket.destroy();
    }
    expect(closedAfter).toHaveLength(SLOW);
    // headersTimeout, plus at most one check interval (1 s) and scheduling slack.
    expect(Math.max(...closedAfter)).toBeLessThan(HEADERS_TIMEOUT_MS + 2500);
    expect(Math.min(...closedAfter)).toBeGreaterThan(HEADERS_TIMEOUT_MS - 1000);
  });

  it('N13 the console closes a connection that never finishes its headers too', async () => {
    const net = await import('node:net');
    const socket = net.connect({ host: '127.0.0.1', port: agent.ports.console });
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const started = performance.now();
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    socket.on('error', () => undefined);
    await new Promise((resolve) => {
      socket.once('close', resolve);
      setTimeout(resolve, HEADERS_TIMEOUT_MS + 5000);
    });
    const elapsed = performance.now() - started;
    socket.destroy();
    expect(elapsed).toBeLessThan(HEADERS_TIMEOUT_MS + 2500);
    expect(received).not.toContain('200 OK');
  });
});
