/**
 * Reachability of the other registered agents, checked in the background (issue 4): a TLS
 * connection to each agent's API port with a timeout, on a timer and soon after an agent is
 * registered or its address changes. Requests only read the last result, so a slow or dead
 * agent never delays an answer. Nothing is sent over the connection: the handshake is enough
 * to tell "nothing listens" from "something listens but does not speak TLS" from "an HTTPS
 * server answers". The certificate is not verified (agents use self-signed certificates); its
 * SHA-256 fingerprint is shown so an operator can compare it with the agent's own.
 */
import net from 'node:net';
import tls from 'node:tls';
import type { RegisteredAgentSettings } from '../config/fleet-schema.js';
import type { SettingsStore } from '../config/settings-store.js';
import type { Logger } from '../log/logger.js';
import type { StatusItem } from '../status/status-registry.js';

export interface ReachabilityOptions {
  /** Between two rounds of checks (default 60 s). */
  intervalMs?: number;
  /** A connection that has not finished its handshake by then counts as unreachable (default 5 s). */
  timeoutMs?: number;
  /** Checks running at once (default 8). */
  concurrency?: number;
}

interface Entry {
  endpoint: string;
  status: StatusItem;
  checking: boolean;
}

const endpointOf = (agent: RegisteredAgentSettings): string => `${agent.host}:${agent.apiPort}`;

export class AgentReachability {
  private readonly entries = new Map<string, Entry>();
  private readonly intervalMs: number;
  private readonly timeoutMs: number;
  private readonly concurrency: number;
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly settings: SettingsStore,
    private readonly log: Logger,
    options: ReachabilityOptions = {},
    private readonly now: () => Date = () => new Date(),
  ) {
    this.intervalMs = options.intervalMs ?? 60_000;
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.concurrency = options.concurrency ?? 8;
  }

  start(): void {
    this.unsubscribe = this.settings.onChange((next) => this.sync(next.agents, false));
    this.sync(this.settings.current.agents, true);
    this.schedule();
  }

  /** The last known status of a registered agent. */
  status(agent: RegisteredAgentSettings): StatusItem {
    const entry = this.entries.get(agent.id);
    if (entry && entry.endpoint === endpointOf(agent)) return entry.status;
    return this.notChecked();
  }

  /** Resolves when the checks under way have finished (tests). */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.settled();
  }

  private notChecked(): StatusItem {
    return { updatedAt: this.now().toISOString(), type: 'Warning', summary: 'Not checked yet', details: '' };
  }

  /** Forgets removed agents; new agents and changed addresses are checked at once. */
  private sync(agents: readonly RegisteredAgentSettings[], initial: boolean): void {
    const ids = new Set(agents.map((a) => a.id));
    for (const id of [...this.entries.keys()]) if (!ids.has(id)) this.entries.delete(id);
    const fresh: RegisteredAgentSettings[] = [];
    for (const agent of agents) {
      const entry = this.entries.get(agent.id);
      if (entry?.endpoint === endpointOf(agent)) continue;
      this.entries.set(agent.id, { endpoint: endpointOf(agent), status: this.notChecked(), checking: false });
      fresh.push(agent);
    }
    if (fresh.length > 0 || initial) this.checkAll(fresh);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.checkAll(this.settings.current.agents);
      this.schedule();
    }, this.intervalMs);
    this.timer.unref();
  }

  private checkAll(agents: readonly RegisteredAgentSettings[]): void {
    if (this.stopped || agents.length === 0) return;
    const queue = [...agents];
    const worker = async (): Promise<void> => {
      for (let agent = queue.shift(); agent && !this.stopped; agent = queue.shift()) await this.checkOne(agent);
    };
    for (let i = 0; i < Math.min(this.concurrency, queue.length); i++) {
      const run = worker().finally(() => this.running.delete(run));
      this.running.add(run);
    }
  }

  private async checkOne(agent: RegisteredAgentSettings): Promise<void> {
    const entry = this.entries.get(agent.id);
    if (!entry || entry.checking) return;
    entry.checking = true;
    const endpoint = endpointOf(agent);
    try {
      const result = await probe(agent.host, agent.apiPort, this.timeoutMs);
      const current = this.entries.get(agent.id);
      if (current?.endpoint !== endpoint) return; // moved meanwhile: the new address is being checked
      const previous = current.status;
      current.status = { updatedAt: this.now().toISOString(), ...result };
      if (previous.type !== result.type) {
        this.log.info('registered agent reachability changed', { agent: agent.id, endpoint, status: result.summary });
      }
    } finally {
      entry.checking = false;
    }
  }
}

type ProbeResult = Omit<StatusItem, 'updatedAt'>;

/** One TCP connection and TLS handshake, bounded by `timeoutMs`. */
export function probe(host: string, port: number, timeoutMs: number): Promise<ProbeResult> {
  return new Promise((resolve) => {
    let connected = false;
    let done = false;
    const finish = (result: ProbeResult): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const socket = tls.connect({
      host,
      port,
      // SNI only for names (RFC 6066 §3: literal addresses are not sent).
      ...(net.isIP(host) === 0 ? { servername: host } : {}),
      rejectUnauthorized: false,
      minVersion: 'TLSv1.2',
    });
    const timer = setTimeout(() => {
      finish(
        connected
          ? {
              type: 'Warning',
              summary: 'No TLS answer',
              details: `the port accepts connections but no TLS handshake completed within ${timeoutMs} ms`,
            }
          : { type: 'Error', summary: 'Unreachable', details: `no connection within ${timeoutMs} ms` },
      );
    }, timeoutMs);
    socket.once('connect', () => (connected = true));
    socket.once('secureConnect', () => {
      const certificate = socket.getPeerX509Certificate();
      const protocol = socket.getProtocol() ?? 'TLS';
      finish({
        type: 'OK',
        summary: 'Reachable',
        details: `${protocol} handshake completed${certificate ? `; certificate SHA-256 ${certificate.fingerprint256}` : ''}`,
      });
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      const reason = error.code ? `${error.code}: ${error.message}` : error.message;
      finish(
        connected
          ? {
              type: 'Warning',
              summary: 'Not an agent API',
              details: `the port accepts connections but the TLS handshake failed (${reason})`,
            }
          : { type: 'Error', summary: 'Unreachable', details: reason },
      );
    });
  });
}
