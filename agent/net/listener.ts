/**
 * A TCP listener that screens each accepted socket (allow-list) and then hands it to an HTTP
 * or HTTPS server. Owning the raw `net.Server` is what lets the check run before the TLS
 * handshake: a refused client never sees a ServerHello, only a closed connection.
 *
 * The HTTP(S) server is never bound itself, and Node starts the timer that enforces
 * `headersTimeout` and `requestTimeout` only when a server emits 'listening'
 * (`setupConnectionsTracking` in Node's _http_server.js). Without it a client trickling header
 * bytes (slowloris, docs/security.md, N13) would hold its socket for ever, so `start()` emits
 * 'listening' on the server once the TCP socket is bound, and `stop()` closes it (which stops
 * that timer and closes idle keep-alive connections).
 */
import net from 'node:net';
import type http from 'node:http';
import type { Logger } from '../log/logger.js';

/** The port is taken; the message names the port and the setting that changes it. */
export class PortInUseError extends Error {
  constructor(
    readonly port: number,
    readonly setting: string,
    readonly flag: string,
  ) {
    super(
      `port ${port} is already in use: stop the program using it, or choose another port with ` +
        `the setting "${setting}" or the option ${flag} (0 picks a free port)`,
    );
    this.name = 'PortInUseError';
  }
}

export interface ListenerSpec {
  /** Shown in logs, e.g. `agent API`. */
  name: string;
  host: string;
  port: number;
  /** Settings key and CLI flag that choose the port, quoted in the port-in-use message. */
  setting: string;
  flag: string;
  /** The HTTP(S) server that speaks on accepted sockets; it is never bound itself. */
  server: http.Server;
  /** Return false to close the socket at once. Absent: everyone may connect. */
  admit?: (remoteAddress: string | undefined) => boolean;
  /** Open connections allowed at once; beyond it a new socket is closed at accept time. */
  maxConnections?: number;
  /** Open connections allowed at once from one address (a TLS handshake counts from accept). */
  maxPerAddress?: number;
}

/**
 * Default connection caps. One client could otherwise hold thousands of sockets and bring the
 * process to its file descriptor limit (1,024 is a common soft limit), after which SQLite, the
 * log files and the console fail too. The load tests run 200 connections from one address.
 */
export const DEFAULT_MAX_CONNECTIONS = 400;
export const DEFAULT_MAX_PER_ADDRESS = 256;

/**
 * Accepted sockets handed to the server per turn of the event loop. A TLS handshake costs the
 * server one RSA-2048 signature (0.8 ms here); 200 clients connecting at once all shook hands in
 * the same turn and held the loop 100–180 ms (the event-loop limit is 100 ms). Sockets wait paused,
 * their bytes unread in the kernel, until their turn.
 */
const HANDOVERS_PER_TURN = 8;

/** A refused address floods no log: one line per address at most this often (docs/security.md, N08). */
export const REFUSAL_LOG_INTERVAL_MS = 60_000;

export class Listener {
  private readonly tcp: net.Server;
  private readonly sockets = new Set<net.Socket>();
  /** Open connections per remote address (only addresses with at least one). */
  private readonly perAddress = new Map<string, number>();
  private refused = 0;
  /** Per refused address and reason: when its last log line was written, and refusals since then. */
  private readonly refusalLog = new Map<string, { loggedAt: number; since: number }>();
  private readonly waiting: net.Socket[] = [];
  private handingOver = false;

  constructor(
    private readonly spec: ListenerSpec,
    private readonly log: Logger,
  ) {
    this.tcp = net.createServer({ pauseOnConnect: true }, (socket) => this.accept(socket));
  }

  private accept(socket: net.Socket): void {
    const remote = socket.remoteAddress ?? 'unknown';
    if (this.spec.admit && !this.spec.admit(socket.remoteAddress)) {
      this.refuse(socket, remote, 'connection refused by the allow-list');
      return;
    }
    if (this.sockets.size >= (this.spec.maxConnections ?? DEFAULT_MAX_CONNECTIONS)) {
      this.refuse(socket, remote, 'connection refused: too many open connections');
      return;
    }
    const fromRemote = this.perAddress.get(remote) ?? 0;
    if (fromRemote >= (this.spec.maxPerAddress ?? DEFAULT_MAX_PER_ADDRESS)) {
      this.refuse(socket, remote, 'connection refused: too many open connections from this address');
      return;
    }
    this.perAddress.set(remote, fromRemote + 1);
    this.sockets.add(socket);
    socket.once('close', () => {
      this.sockets.delete(socket);
      const left = (this.perAddress.get(remote) ?? 1) - 1;
      if (left > 0) this.perAddress.set(remote, left);
      else this.perAddress.delete(remote);
    });
    // What http.createServer does by default (noDelay: true): without it, a response written in
    // several pieces waits for the client's delayed ACK (Nagle), about 40 ms per response.
    socket.setNoDelay(true);
    this.waiting.push(socket);
    if (!this.handingOver) {
      this.handingOver = true;
      setImmediate(() => this.handOver());
    }
  }

  /** Hands waiting sockets to the server, HANDOVERS_PER_TURN per turn, in arrival order. */
  private handOver(): void {
    for (let n = 0; n < HANDOVERS_PER_TURN && this.waiting.length > 0; n++) {
      const socket = this.waiting.shift()!;
      if (socket.destroyed) continue;
      this.spec.server.emit('connection', socket);
      socket.resume();
    }
    if (this.waiting.length > 0) setImmediate(() => this.handOver());
    else this.handingOver = false;
  }

  private refuse(socket: net.Socket, remote: string, reason: string): void {
    this.refused += 1;
    socket.destroy();
    this.logRefusal(remote, reason);
  }

  private logRefusal(remote: string, reason: string): void {
    const now = Date.now();
    const key = `${reason}\0${remote}`;
    const entry = this.refusalLog.get(key);
    if (entry && now - entry.loggedAt < REFUSAL_LOG_INTERVAL_MS) {
      entry.since += 1;
      return;
    }
    if (this.refusalLog.size >= 1000) this.refusalLog.clear(); // many addresses: forget, never grow
    this.refusalLog.set(key, { loggedAt: now, since: 0 });
    this.log.warn(reason, {
      listener: this.spec.name,
      remote,
      ...(entry && entry.since > 0 ? { refusedSinceLastLine: entry.since } : {}),
    });
  }

  /**
   * Closes open connections whose address the admission check now refuses, so removing an
   * address from the allow-list also ends its keep-alive connections (docs/security.md, N12).
   */
  revalidate(): number {
    if (!this.spec.admit) return 0;
    let closed = 0;
    for (const socket of this.sockets) {
      if (!this.spec.admit(socket.remoteAddress)) {
        socket.destroy();
        closed += 1;
      }
    }
    if (closed > 0)
      this.log.info('closed connections no longer on the allow-list', { listener: this.spec.name, closed });
    return closed;
  }

  /** Connections closed at accept time (allow-list or connection caps) since start. */
  get refusedCount(): number {
    return this.refused;
  }

  /** Connections open now, handshakes and waiting sockets included. */
  get openConnections(): number {
    return this.sockets.size;
  }

  /** The bound port (useful when 0 was asked for). */
  get port(): number {
    const address = this.tcp.address();
    return typeof address === 'object' && address ? address.port : this.spec.port;
  }

  async start(): Promise<void> {
    try {
      await this.bind(this.spec.host);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // A machine without IPv6 cannot bind '::'; all IPv4 interfaces is the same intent.
      if (this.spec.host === '::' && (code === 'EAFNOSUPPORT' || code === 'EADDRNOTAVAIL')) {
        await this.bind('0.0.0.0');
      } else throw error;
    }
    this.log.info('listening', { listener: this.spec.name, host: this.spec.host, port: this.port });
  }

  private bind(host: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException): void => {
        this.tcp.off('listening', onListening);
        if (error.code === 'EADDRINUSE') {
          reject(new PortInUseError(this.spec.port, this.spec.setting, this.spec.flag));
        } else reject(error);
      };
      const onListening = (): void => {
        this.tcp.off('error', onError);
        this.tcp.on('error', (e) => this.log.error('listener error', { listener: this.spec.name, error: e.message }));
        // Starts Node's headersTimeout/requestTimeout checks for the sockets handed over (see above).
        this.spec.server.emit('listening');
        resolve();
      };
      this.tcp.once('error', onError);
      this.tcp.once('listening', onListening);
      this.tcp.listen({ host, port: this.spec.port, exclusive: true });
    });
  }

  /** Stops accepting, lets in-flight responses finish briefly, then closes what is left. */
  async stop(graceMs = 2000): Promise<void> {
    if (!this.tcp.listening) return;
    const closed = new Promise<void>((resolve) => this.tcp.close(() => resolve()));
    // Stops the timeout checks and closes idle keep-alive connections (the server was never bound).
    this.spec.server.close();
    const deadline = setTimeout(() => {
      for (const socket of this.sockets) socket.destroy();
    }, graceMs);
    deadline.unref();
    await closed;
    clearTimeout(deadline);
  }
}
