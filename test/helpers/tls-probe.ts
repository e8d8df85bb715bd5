/** Small TLS and TCP clients that report what happened instead of throwing. */
import net from 'node:net';
import tls from 'node:tls';

export interface HandshakeResult {
  ok: boolean;
  protocol?: string | null;
  fingerprint256?: string;
  error?: string;
}

/** TLS client options, plus the local address to connect from (127.0.0.2 to test the allow-list). */
export type ProbeOptions = tls.ConnectionOptions & { localAddress?: string };

export function handshake(options: ProbeOptions, timeoutMs = 5000): Promise<HandshakeResult> {
  return new Promise((resolve) => {
    const { localAddress, ...tlsOptions } = options;
    const socket =
      localAddress === undefined
        ? tls.connect(tlsOptions)
        : tls.connect({
            ...tlsOptions,
            socket: net.connect({ host: options.host ?? '127.0.0.1', port: options.port ?? 0, localAddress }),
          });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ ok: false, error: 'timeout' });
    }, timeoutMs);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      const result: HandshakeResult = {
        ok: true,
        protocol: socket.getProtocol(),
        fingerprint256: socket.getPeerX509Certificate()?.fingerprint256 ?? '',
      };
      socket.end();
      resolve(result);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ ok: false, error: error.code ?? error.message });
    });
  });
}

export interface RawConnectResult {
  connected: boolean;
  bytesReceived: number;
  error?: string;
}

/**
 * Opens a TCP connection, sends the first bytes of a TLS ClientHello record and waits for the
 * server to answer or close. A server that screens before TLS closes with 0 bytes received.
 */
export function rawConnect(options: net.NetConnectOpts, timeoutMs = 5000): Promise<RawConnectResult> {
  return new Promise((resolve) => {
    let connected = false;
    let bytesReceived = 0;
    const socket = net.connect(options);
    const finish = (error?: string): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(error === undefined ? { connected, bytesReceived } : { connected, bytesReceived, error });
    };
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    socket.once('connect', () => {
      connected = true;
      // A TLS record header (handshake, TLS 1.0 record version) and a truncated ClientHello.
      socket.write(Buffer.from([0x16, 0x03, 0x01, 0x00, 0x05, 0x01, 0x00, 0x00, 0x01, 0x03]));
    });
    socket.on('data', (chunk: Buffer) => (bytesReceived += chunk.length));
    socket.once('error', (error: NodeJS.ErrnoException) => finish(error.code ?? error.message));
    socket.once('close', () => finish());
  });
}
