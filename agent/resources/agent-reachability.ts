/**
 * Reachability of the other registered agents, checked in the background: a TLS
 * connection to each agent's API port with a timeout, on a timer and soon after an agent is
 * registered or its address changes. Requests only read the last result, so a slow or dead
 * agent never delays an answer. After the handshake one unauthenticated request is sent: a
 * Vigil agent API answers it with 401 and its `Bearer realm="vigil"` challenge. The certificate
 * is not verified (agents use self-signed certificates); its SHA-256 fingerprint is shown so an
 * operator can compare it with the agent's own.
 *
 * The checks must not make the agent a port scanner for API clients (docs/security.md, F16):
 * - anything but a Vigil agent API gets one answer, "Not a Vigil agent API", with no error
 *   code, TLS detail or fingerprint (the reason goes to the agent log, for the operator);
 * - each agent is checked at most once per `perAgentIntervalMs` (so re-pointing an agent at
 *   port after port probes nothing new), and all agents together at most `probesPerMinute`
 *   times a minute. A check the limits hold back stays "Not checked yet" until a later round.
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
  /** The shortest time between two checks of one agent, whatever its address (default 30 s). */
  perAgentIntervalMs?: number;
  /** Checks of all agents together in any minute (default 60). */
  probesPerMinute?: number;
}

interface Entry {
  endpoint: string;
  status: StatusItem;
  checking: boolean;
}

const MINUTE_MS = 60_000;

const endpointOf = (agent: RegisteredAgentSettings): string => `${agent.host}:${agent.apiServerPort}`;

export class AgentReachability {
  private readonly entries = new Map<string, Entry>();
  private readonly intervalMs: number;
  private readonly timeoutMs: number;
  private readonly concurrency: number;
  private readonly perAgentIntervalMs: number;
  private readonly probesPerMinute: number;
  /** When each agent (by id) was last checked; kept across address changes. */
  private readonly lastProbeAt = new Map<string, number>();
  /** Start times of the checks of the last minute. */
  private recentProbes: number[] = [];
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
    this.perAgentIntervalMs = options.perAgentIntervalMs ?? 30_000;
    this.probesPerMinute = options.probesPerMinute ?? 60;
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

  /** Takes a check from both limits, or says the check must wait for a later round. */
  private mayProbe(agentId: string): boolean {
    const now = this.now().getTime();
    this.recentProbes = this.recentProbes.filter((at) => now - at < MINUTE_MS);
    const last = this.lastProbeAt.get(agentId);
    if (last !== undefined && now - last < this.perAgentIntervalMs) return false;
    if (this.recentProbes.length >= this.probesPerMinute) return false;
    this.lastProbeAt.set(agentId, now);
    this.recentProbes.push(now);
    return true;
  }

  private async checkOne(agent: RegisteredAgentSettings): Promise<void> {
    const entry = this.entries.get(agent.id);
    if (!entry || entry.checking || !this.mayProbe(agent.id)) return;
    entry.checking = true;
    const endpoint = endpointOf(agent);
    try {
      const { reason, ...result } = await probe(agent.host, agent.apiServerPort, this.timeoutMs);
      const current = this.entries.get(agent.id);
      if (current?.endpoint !== endpoint) return; // moved meanwhile: the new address is being checked
      const previous = current.status;
      current.status = { updatedAt: this.now().toISOString(), ...result };
      if (previous.type !== result.type) {
        this.log.info('registered agent reachability changed', {
          agent: agent.id,
          endpoint,
          status: result.summary,
          reason,
        });
      }
    } finally {
      entry.checking = false;
    }
  }
}

/** What a check shows, and for the agent log only, why. */
type ProbeResult = Omit<StatusItem, 'updatedAt'> & { reason: string };

function notAnAgent(host: string, port: number, reason: string): ProbeResult {
  return {
    type: 'Error',
    summary: 'Not a Vigil agent API',
    details: `no Vigil agent API answered at ${host.includes(':') ? `[${host}]` : host}:${port}; the agent log says why`,
    reason,
  };
}

/** The answer of a Vigil agent API to a request without a token: 401 with its Bearer challenge. */
export function isAgentApiAnswer(head: string): boolean {
  return /^HTTP\/1\.[01] 401 /.test(head) && /^www-authenticate:[ \t]*Bearer realm="vigil"/im.test(head);
}

/** At most this much of the answer is read: its status line and headers. */
const HEAD_LIMIT = 8192;

/**
 * One TCP connection, TLS handshake and unauthenticated request, bounded by `timeoutMs`. Only
 * a Vigil agent API gets "Reachable" and its certificate fingerprint.
 */
export function probe(host: string, port: number, timeoutMs: number): Promise<ProbeResult> {
  return new Promise((resolve) => {
    let connected = false;
    let done = false;
    let head = '';
    let fingerprint = '';
    let protocol = 'TLS';
    const finish = (result: ProbeResult): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const fail = (reason: string): void => finish(notAnAgent(host, port, reason));
    const judge = (): void => {
      if (isAgentApiAnswer(head)) {
        finish({
          type: 'OK',
          summary: 'Reachable',
          details: `Vigil agent API; ${protocol} handshake completed${fingerprint ? `; certificate SHA-256 ${fingerprint}` : ''}`,
          reason: 'answered as a Vigil agent API',
        });
      } else fail(`answered, but not as a Vigil agent API: ${JSON.stringify(head.split('\r\n')[0] ?? '')}`);
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
      fail(
        connected
          ? `the port accepts connections but no answer came within ${timeoutMs} ms`
          : `no connection within ${timeoutMs} ms`,
      );
    }, timeoutMs);
    socket.once('connect', () => (connected = true));
    socket.once('secureConnect', () => {
      fingerprint = socket.getPeerX509Certificate()?.fingerprint256 ?? '';
      protocol = socket.getProtocol() ?? 'TLS';
      const authority = net.isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`;
      socket.write(`GET /api/v1/agents HTTP/1.1\r\nHost: ${authority}\r\nConnection: close\r\n\r\n`);
    });
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      head += chunk;
      if (head.includes('\r\n\r\n') || head.length >= HEAD_LIMIT) judge();
    });
    socket.once('end', () => judge());
    socket.once('error', (error: NodeJS.ErrnoException) => {
      const reason = error.code ? `${error.code}: ${error.message}` : error.message;
      fail(connected ? `the port accepts connections but the exchange failed (${reason})` : reason);
    });
  });
}
