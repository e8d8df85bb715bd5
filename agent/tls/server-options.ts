/**
 * TLS options shared by the agent API and the audit API (docs/security.md): TLS 1.2 at least,
 * set explicitly so `--tls-min-v1.0` or NODE_OPTIONS cannot lower it, and only ECDHE with
 * AEAD ciphers (Node's default list still allows CBC suites).
 */
import type https from 'node:https';
import type { TlsIdentity } from './certificate.js';

export const TLS_CIPHERS = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

/**
 * Limits on slow clients, for every listener (Node's defaults are 60 s for the headers, 300 s
 * for the request, and a check every 30 s). The check interval bounds how late a slowloris
 * socket is closed after `headersTimeout` (docs/security.md, N13); the check costs a walk over
 * the open connections.
 */
export interface SlowClientLimits {
  headersTimeout: number;
  requestTimeout: number;
  connectionsCheckingInterval: number;
}

export const SLOW_CLIENT_LIMITS: SlowClientLimits = {
  headersTimeout: 10_000,
  requestTimeout: 60_000,
  connectionsCheckingInterval: 1_000,
};

/** The limits with a shorter header timeout (tests), the rest unchanged. */
export function slowClientLimits(headersTimeoutMs?: number): SlowClientLimits {
  return headersTimeoutMs === undefined
    ? SLOW_CLIENT_LIMITS
    : { ...SLOW_CLIENT_LIMITS, headersTimeout: headersTimeoutMs };
}

export function httpsServerOptions(
  identity: TlsIdentity,
  limits: SlowClientLimits = SLOW_CLIENT_LIMITS,
): https.ServerOptions {
  return {
    key: identity.keyPem,
    cert: identity.certPem,
    minVersion: 'TLSv1.2',
    ciphers: TLS_CIPHERS,
    honorCipherOrder: true,
    handshakeTimeout: 10_000,
    ...limits,
    keepAliveTimeout: 5_000,
  };
}
