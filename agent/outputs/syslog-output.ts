/**
 * A Syslog output: RFC 5424 messages to a SIEM over UDP (RFC 5426), TCP (RFC 6587) or TLS
 * (RFC 5425). Records reach it after COMMIT. While a TCP or TLS server is unreachable, messages
 * wait in a bounded buffer and the connection is retried with exponential backoff; when the
 * buffer is full the oldest messages are dropped, counted, and shown in the output's status.
 *
 * Delivery is at most once on a broken connection: what the kernel had accepted for a socket
 * that then fails is lost, as with any syslog over TCP (RFC 6587 has no acknowledgements).
 */
import dgram from 'node:dgram';
import net from 'node:net';
import tls from 'node:tls';
import type { SyslogOptions } from '../config/monitoring-schema.js';
import { parseHostPort, type HostPort } from '../config/monitoring-schema.js';
import type { Logger } from '../log/logger.js';
import type { StoredItem } from '../pipeline/pipeline-item.js';
import type { StatusRegistry } from '../status/status-registry.js';
import type { ItemFilter } from './file-filter.js';
import { ownedFilter, ownerKeyOf, type OwnedOutput } from './output-owner.js';
import { formatRfc5424, frame, renderTemplate, templateFields, truncateUtf8 } from './syslog-message.js';

/** A host output with its host, or a domain output with its domain (output-owner.ts), and how to send. */
export type SyslogOutputOptions = OwnedOutput & {
  status: StatusRegistry;
  log: Logger;
  hostname: string;
  /** Messages held while the server is unreachable. */
  bufferLimit?: number;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  connectTimeoutMs?: number;
};

/** Larger datagrams are cut (rsyslog's default maximum message size is 8 KiB). */
export const MAX_UDP_MESSAGE_BYTES = 8192;

interface Pending {
  bytes: Buffer;
  when: string;
}

export class SyslogOutput {
  readonly id: string;
  /** The host or domain whose records this output receives (output-owner.ts). */
  readonly ownerKey: string;
  readonly accepts: ItemFilter;
  private readonly options: SyslogOptions;
  private readonly server: HostPort;
  private readonly buffer: Pending[] = [];
  private socket: net.Socket | null = null;
  private udp: dgram.Socket | null = null;
  private connected = false;
  private writable = true;
  private udpInFlight = 0;
  private backoffMs = 0;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private lastError: string | null = null;
  private droppedSinceConnect = 0;
  private readonly bufferLimit: number;

  constructor(private readonly o: SyslogOutputOptions) {
    this.id = o.output.id;
    this.ownerKey = ownerKeyOf(o);
    this.options = o.output.syslog!;
    this.server = parseHostPort(this.options.server)!;
    this.accepts = ownedFilter(o);
    this.bufferLimit = o.bufferLimit ?? 10_000;
  }

  get bufferedCount(): number {
    return this.buffer.length;
  }

  start(): void {
    if (this.options.protocol === 'UDP') {
      this.udp = dgram.createSocket(net.isIPv6(this.server.host) ? 'udp6' : 'udp4');
      this.udp.on('error', (error) => this.problem(error));
      this.udp.unref();
      this.o.status.setOutputStatus(this.id, 'OK', `Sending to ${this.options.server} over UDP`);
    } else {
      this.connect();
    }
  }

  /** After COMMIT: format, then send or buffer. */
  send(items: readonly StoredItem[]): void {
    if (this.stopped) return;
    for (const item of items) {
      if (item.broadcast !== true && !this.accepts(item)) continue;
      const msg = renderTemplate(this.options.template, templateFields(item.stored, item.file?.newPath));
      const message = formatRfc5424({
        timeMs: item.timeMs,
        hostname: this.o.hostname,
        procId: process.pid,
        msgId: item.stored.Action,
        msg,
      });
      if (this.options.protocol === 'UDP') this.sendDatagram(message, item.stored.When);
      else this.enqueue({ bytes: frame(message, this.options.separator), when: item.stored.When });
    }
    this.pump();
  }

  /** Tries to send what is buffered for up to `drainMs`, then closes. */
  async stop(drainMs = 2000): Promise<void> {
    const deadline = Date.now() + drainMs;
    while ((this.buffer.length > 0 || this.udpInFlight > 0) && this.connectedOrUdp() && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    this.stopped = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    if (this.buffer.length > 0) {
      this.o.log.warn('syslog messages not sent at shutdown', { output: this.id, count: this.buffer.length });
    }
    this.udp?.close();
    this.udp = null;
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      await new Promise<void>((resolve) => {
        socket.once('close', () => resolve());
        socket.end();
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 500).unref();
      });
    }
  }

  private connectedOrUdp(): boolean {
    return this.udp !== null || this.connected;
  }

  private sendDatagram(message: string, when: string): void {
    if (!this.udp) return;
    if (this.udpInFlight >= this.bufferLimit) {
      this.dropped(1);
      return;
    }
    this.udpInFlight++;
    this.udp.send(truncateUtf8(message, MAX_UDP_MESSAGE_BYTES), this.server.port, this.server.host, (error) => {
      this.udpInFlight--;
      if (error) {
        this.dropped(1);
        this.problem(error);
      } else {
        this.o.status.outputReported(this.id, 1, when);
        if (this.lastError !== null) this.recovered(`Sending to ${this.options.server} over UDP`);
      }
    });
  }

  private enqueue(pending: Pending): void {
    this.buffer.push(pending);
    if (this.buffer.length > this.bufferLimit) {
      const over = this.buffer.length - this.bufferLimit;
      this.buffer.splice(0, over);
      this.dropped(over);
    }
  }

  private pump(): void {
    const socket = this.socket;
    if (!socket || !this.connected) return;
    let count = 0;
    let when = '';
    while (this.writable && this.buffer.length > 0) {
      const next = this.buffer.shift()!;
      this.writable = socket.write(next.bytes);
      count++;
      when = next.when;
    }
    if (count > 0) this.o.status.outputReported(this.id, count, when);
  }

  private connect(): void {
    if (this.stopped) return;
    const { host, port } = this.server;
    const timeout = this.o.connectTimeoutMs ?? 10_000;
    let socket: net.Socket;
    if (this.options.protocol === 'TLS') {
      socket = tls.connect({
        host,
        port,
        ...(net.isIP(host) === 0 ? { servername: host } : {}),
        ...(this.options.caCertificate ? { ca: this.options.caCertificate } : {}),
        ...(this.options.hostNameVerification ? {} : { checkServerIdentity: () => undefined }),
        minVersion: 'TLSv1.2',
      });
      socket.once('secureConnect', () => this.onConnected());
    } else {
      socket = net.connect({ host, port });
      socket.once('connect', () => this.onConnected());
    }
    socket.setTimeout(timeout, () => socket.destroy(new Error(`no connection within ${timeout} ms`)));
    socket.setKeepAlive(true, 30_000);
    socket.on('drain', () => {
      this.writable = true;
      this.pump();
    });
    socket.on('error', (error) => this.problem(error));
    socket.on('close', () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.connected = false;
      this.writable = true;
      this.scheduleReconnect();
    });
    // A syslog receiver never sends; reading keeps the socket's close detection working.
    socket.on('data', () => undefined);
    this.socket = socket;
  }

  private onConnected(): void {
    this.socket?.setTimeout(0);
    this.connected = true;
    this.writable = true;
    this.backoffMs = 0;
    this.recovered(`Connected to ${this.options.server} over ${this.options.protocol}`);
    this.o.log.info('syslog connected', {
      output: this.id,
      server: this.options.server,
      protocol: this.options.protocol,
    });
    this.pump();
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.reconnectTimer) return;
    const initial = this.o.initialBackoffMs ?? 250;
    this.backoffMs = Math.min(this.backoffMs === 0 ? initial : this.backoffMs * 2, this.o.maxBackoffMs ?? 30_000);
    // Jitter keeps many agents from reconnecting to one SIEM in lockstep.
    const delay = Math.round(this.backoffMs * (0.8 + Math.random() * 0.4));
    this.setWaitingStatus(delay);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.connect();
    }, delay);
    this.reconnectTimer.unref();
  }

  private setWaitingStatus(delayMs: number): void {
    const details =
      `${this.lastError ?? 'connection closed'}; retrying in ${(delayMs / 1000).toFixed(1)} s; ` +
      `${this.buffer.length} messages waiting` +
      (this.droppedSinceConnect > 0 ? `; ${this.droppedSinceConnect} dropped because the buffer was full` : '');
    this.o.status.setOutputStatus(this.id, 'Warning', `Cannot reach syslog server ${this.options.server}`, details);
  }

  private problem(error: Error): void {
    const message = `${(error as NodeJS.ErrnoException).code ?? 'error'}: ${error.message}`;
    if (message !== this.lastError) {
      this.o.log.warn('syslog output problem', { output: this.id, server: this.options.server, error: message });
    }
    this.lastError = message;
  }

  private recovered(summary: string): void {
    this.lastError = null;
    this.droppedSinceConnect = 0;
    this.o.status.setOutputStatus(this.id, 'OK', summary);
  }

  private dropped(count: number): void {
    this.o.status.outputStats(this.id).droppedCount += count;
    this.droppedSinceConnect += count;
    const total = this.o.status.outputStats(this.id).droppedCount;
    // Log the first drop and then every 1000th, not every message.
    if (total === count || Math.floor(total / 1000) !== Math.floor((total - count) / 1000)) {
      this.o.log.warn('syslog messages dropped: buffer full', { output: this.id, dropped: total });
    }
    if (!this.connected && this.options.protocol !== 'UDP') this.setWaitingStatus(this.backoffMs);
  }
}
