/**
 * Runtime status and statistics of hosts and outputs (docs/agent-api.md). They
 * are not settings: they live in memory, start fresh with the agent, and are read by the agent
 * API's host and output routes and by the console. Counters count since the agent started.
 */

export const STATUS_TYPES = ['OK', 'Warning', 'Error'] as const;
export type StatusType = (typeof STATUS_TYPES)[number];

export interface StatusItem {
  updatedAt: string;
  type: StatusType;
  summary: string;
  details: string;
}

export interface HostStats {
  /** When the last record of this host was committed. */
  receivedAt: string | null;
  receivedCount: number;
  /** Time (`When`) of the newest record committed for this host. */
  lastEventTime: string | null;
  /** Changes that could not be recorded (none in normal operation). */
  droppedCount: number;
  /** Records whose actor could not be resolved (`Who` `unknown`, docs/attribution.md). */
  unattributedCount: number;
  /** Kernel event queue overflows, each followed by a folder scan. */
  overflowCount: number;
}

export interface OutputStats {
  /** When the output last wrote or sent a record. */
  reportedAt: string | null;
  reportedCount: number;
  lastEventTime: string | null;
  filesCount: number;
  filesSize: number;
  archiveFilesCount: number;
  archiveFilesSize: number;
  /** Records this output could not write or send (quota, buffer overflow). */
  droppedCount: number;
}

export interface RuntimeView<S> {
  status: StatusItem;
  stats: S;
  /** The last status changes, newest first. */
  statusHistory: StatusItem[];
}

export const STATUS_HISTORY_LENGTH = 50;

class RuntimeEntry<S> {
  status: StatusItem;
  readonly history: StatusItem[] = [];

  constructor(
    readonly stats: S,
    now: Date,
  ) {
    this.status = { updatedAt: now.toISOString(), type: 'OK', summary: 'Starting', details: '' };
    this.history.push(this.status);
  }

  set(type: StatusType, summary: string, details: string, now: Date): boolean {
    const same = this.status.type === type && this.status.summary === summary && this.status.details === details;
    if (same) return false;
    this.status = { updatedAt: now.toISOString(), type, summary, details };
    this.history.unshift(this.status);
    if (this.history.length > STATUS_HISTORY_LENGTH) this.history.length = STATUS_HISTORY_LENGTH;
    return true;
  }

  view(): RuntimeView<S> {
    return { status: { ...this.status }, stats: { ...this.stats }, statusHistory: this.history.map((s) => ({ ...s })) };
  }
}

/** The statistics of a host that has seen nothing yet. */
export const newHostStats = (): HostStats => ({
  receivedAt: null,
  receivedCount: 0,
  lastEventTime: null,
  droppedCount: 0,
  unattributedCount: 0,
  overflowCount: 0,
});

/** Whether a host's records name the actor (the host resource's `attribution`). */
export interface HostAttribution {
  attribution: 'process' | 'none';
  attributionReason?: string;
}
const newOutputStats = (): OutputStats => ({
  reportedAt: null,
  reportedCount: 0,
  lastEventTime: null,
  filesCount: 0,
  filesSize: 0,
  archiveFilesCount: 0,
  archiveFilesSize: 0,
  droppedCount: 0,
});

export type StatusListener = (kind: 'host' | 'output', id: string, status: StatusItem) => void;

export class StatusRegistry {
  private readonly hosts = new Map<string, RuntimeEntry<HostStats>>();
  private readonly outputs = new Map<string, RuntimeEntry<OutputStats>>();
  private readonly listeners = new Set<StatusListener>();
  private readonly attributions = new Map<string, HostAttribution>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  host(id: string): RuntimeView<HostStats> | undefined {
    return this.hosts.get(id)?.view();
  }

  output(id: string): RuntimeView<OutputStats> | undefined {
    return this.outputs.get(id)?.view();
  }

  setHostStatus(id: string, type: StatusType, summary: string, details = ''): void {
    const entry = this.hostEntry(id);
    if (entry.set(type, summary, details, this.now())) this.emit('host', id, entry.status);
  }

  setOutputStatus(id: string, type: StatusType, summary: string, details = ''): void {
    const entry = this.outputEntry(id);
    if (entry.set(type, summary, details, this.now())) this.emit('output', id, entry.status);
  }

  /** Set by a host's running source when it starts. */
  setHostAttribution(id: string, attribution: HostAttribution): void {
    this.attributions.set(id, attribution);
  }

  hostAttribution(id: string): HostAttribution | undefined {
    return this.attributions.get(id);
  }

  hostStats(id: string): HostStats {
    return this.hostEntry(id).stats;
  }

  outputStats(id: string): OutputStats {
    return this.outputEntry(id).stats;
  }

  /** Counts committed records of a host; `lastWhen` is the newest record time among them. */
  hostReceived(id: string, count: number, lastWhen: string): void {
    const stats = this.hostEntry(id).stats;
    stats.receivedCount += count;
    stats.receivedAt = this.now().toISOString();
    if (stats.lastEventTime === null || lastWhen > stats.lastEventTime) stats.lastEventTime = lastWhen;
  }

  outputReported(id: string, count: number, lastWhen: string): void {
    const stats = this.outputEntry(id).stats;
    stats.reportedCount += count;
    stats.reportedAt = this.now().toISOString();
    if (stats.lastEventTime === null || lastWhen > stats.lastEventTime) stats.lastEventTime = lastWhen;
  }

  forgetHost(id: string): void {
    this.hosts.delete(id);
    this.attributions.delete(id);
  }

  forgetOutput(id: string): void {
    this.outputs.delete(id);
  }

  /** Called on every status change (not on counter updates); returns an unsubscribe function. */
  onStatusChange(listener: StatusListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private hostEntry(id: string): RuntimeEntry<HostStats> {
    let entry = this.hosts.get(id);
    if (!entry) this.hosts.set(id, (entry = new RuntimeEntry(newHostStats(), this.now())));
    return entry;
  }

  private outputEntry(id: string): RuntimeEntry<OutputStats> {
    let entry = this.outputs.get(id);
    if (!entry) this.outputs.set(id, (entry = new RuntimeEntry(newOutputStats(), this.now())));
    return entry;
  }

  private emit(kind: 'host' | 'output', id: string, status: StatusItem): void {
    for (const listener of this.listeners) listener(kind, id, { ...status });
  }
}
