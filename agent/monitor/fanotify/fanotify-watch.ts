/**
 * A fanotify watch of a set of folders whose events name the actor (docs/attribution.md):
 * the account (effective uid), the login account, the process and its executable. The
 * native reader thread resolves all of that when the event is read; this class turns the
 * kernel's masks into activity kinds, uids into `HOST\name`, pairs the halves of a move
 * when the kernel has no single rename event, and keeps at most one read per process and
 * file per minute.
 */
import type { FanotifyAddon, NativeEvent, NativeWatcher, NativeWatchStats } from './addon.js';
import { loadAddon } from './addon.js';
import { AccountNames } from './account-names.js';
import { type ActivityKind, kindsOf } from './event-kinds.js';

export interface AttributedEvent {
  kind: ActivityKind;
  /** The path (for a rename, the new one). '' for an overflow. */
  path: string;
  /** The old path of a rename. */
  oldPath?: string;
  /** Shared by the moveFrom and the moveTo of one move when they arrive as two events. */
  pair?: number;
  isDir: boolean;
  pid: number;
  /** Effective uid of the actor; null when the actor could not be resolved. */
  uid: number | null;
  /** `HOST\name` of `uid`; null when the actor is unknown. */
  who: string | null;
  /** Login uid (someone who used sudo or su keeps theirs); null when unset or unknown. */
  loginUid: number | null;
  loginWho: string | null;
  /** Executable path; null when unknown. */
  exe: string | null;
}

export interface FanotifyWatchOptions {
  folders: string[];
  /** Report reads (FAN_ACCESS). */
  reads?: boolean;
  /** At most one read per process and file in this long (default 60 s). */
  readIntervalMs?: number;
  /** How long an exited process stays known (default 10 s). */
  graceMs?: number;
  onEvents: (events: AttributedEvent[]) => void;
  accounts?: AccountNames;
  addon?: FanotifyAddon;
}

export class FanotifyWatch {
  private native: NativeWatcher | null = null;
  private readonly accounts: AccountNames;
  private readonly lastRead = new Map<string, number>();
  private readonly pendingMove = new Map<number, number>(); // pid → pair of its last moveFrom
  private nextPair = 1;

  constructor(private readonly options: FanotifyWatchOptions) {
    this.accounts = options.accounts ?? new AccountNames();
  }

  /** Starts the watch; throws when the addon is absent or the kernel refuses. */
  start(): void {
    if (this.native) return;
    const addon = this.options.addon ?? loadAddon().addon;
    if (!addon) throw new Error(loadAddon().error ?? 'addon not built');
    this.native = new addon.Watcher(
      { roots: this.options.folders, reads: this.options.reads ?? false, graceMs: this.options.graceMs ?? 10_000 },
      (batch) => this.deliver(batch),
    );
  }

  stop(): void {
    this.native?.stop();
    this.native = null;
  }

  stats(): NativeWatchStats | null {
    return this.native?.stats() ?? null;
  }

  private deliver(batch: NativeEvent[]): void {
    const out: AttributedEvent[] = [];
    const now = Date.now();
    for (const event of batch) {
      for (const kind of kindsOf(event.mask)) {
        if (kind === 'read' && !this.firstReadInInterval(event, now)) continue;
        out.push(this.attribute(event, kind));
      }
    }
    if (this.lastRead.size > 50_000) this.forgetOldReads(now);
    if (out.length > 0) this.options.onEvents(out);
  }

  private attribute(event: NativeEvent, kind: ActivityKind): AttributedEvent {
    const known = event.uid >= 0;
    const out: AttributedEvent = {
      kind,
      path: event.path,
      isDir: event.isDir,
      pid: event.pid,
      uid: known ? event.uid : null,
      who: known ? this.accounts.who(event.uid) : null,
      loginUid: event.loginUid >= 0 ? event.loginUid : null,
      loginWho: event.loginUid >= 0 ? this.accounts.who(event.loginUid) : null,
      exe: event.exe === '' ? null : event.exe,
    };
    if (event.oldPath !== undefined) out.oldPath = event.oldPath;
    if (kind === 'moveFrom') {
      out.pair = this.nextPair++;
      this.pendingMove.set(event.pid, out.pair);
    } else if (kind === 'moveTo') {
      const pair = this.pendingMove.get(event.pid);
      if (pair !== undefined) {
        out.pair = pair;
        this.pendingMove.delete(event.pid);
      }
    }
    return out;
  }

  private firstReadInInterval(event: NativeEvent, now: number): boolean {
    const key = `${event.pid}\0${event.path}`;
    const last = this.lastRead.get(key);
    if (last !== undefined && now - last < (this.options.readIntervalMs ?? 60_000)) return false;
    this.lastRead.set(key, now);
    return true;
  }

  private forgetOldReads(now: number): void {
    const interval = this.options.readIntervalMs ?? 60_000;
    for (const [key, at] of this.lastRead) if (now - at >= interval) this.lastRead.delete(key);
  }
}
