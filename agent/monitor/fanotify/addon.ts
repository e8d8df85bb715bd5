/**
 * The fanotify addon (native/, docs/attribution.md), loaded when it was built. `npm ci` builds
 * it on Linux when a C++ compiler is present; elsewhere it is simply absent and the folder
 * watcher runs without attribution.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** One event as the reader thread resolved it (native/src/watch_core.h ResolvedEvent). */
export interface NativeEvent {
  mask: number;
  pid: number;
  /** Effective uid of the actor at event time; -1 when the actor could not be resolved. */
  uid: number;
  /** Login uid (/proc/PID/loginuid); -1 when unset or unknown. */
  loginUid: number;
  /** Executable path; '' when unknown. */
  exe: string;
  path: string;
  /** The old path of a rename (FAN_RENAME carries both names). */
  oldPath?: string;
  isDir: boolean;
}

export interface NativeWatchStats {
  eventsRead: number;
  eventsEmitted: number;
  unknownActors: number;
  unresolvedPaths: number;
  overflows: number;
  connectorOverruns: number;
  /** Times the process cache was checked against /proc after the process events socket overran. */
  connectorResyncs: number;
  /** Folders renamed or moved from a place the reader could no longer name (only cached paths with their old name are forgotten). */
  movedFromUnknown: number;
  cachedProcesses: number;
  /** Whether the kernel's process events (exec/exit) feed the process cache. */
  processEvents: boolean;
  /** Whether renames arrive as one FAN_RENAME event with both names. */
  renameEvents: boolean;
  /** Whether creates and deletes name the entry's own handle (5.17): a folder's path is then known from its creation. */
  targetHandles: boolean;
  /** The reader thread's nice value: 0 unless the agent runs niced and may not raise it back. */
  readerNice: number;
}

export interface NativeWatcher {
  stop(): void;
  stats(): NativeWatchStats;
}

export interface DecodedRecord {
  type: number;
  fsid: string;
  handle: string;
  name?: string;
}

export interface DecodedBuffer {
  events: Array<{ mask: number; pid: number; fd: number; records: DecodedRecord[] }>;
  error: string | null;
}

export interface FanotifyAddon {
  /** '' when this process can watch with attribution, else why not. */
  probe(): string;
  /** The events of one raw read(2) buffer of a FID-mode group. */
  decode(buffer: Buffer): DecodedBuffer;
  Watcher: new (
    options: { roots: string[]; reads?: boolean; graceMs?: number; processEvents?: boolean },
    onBatch: (events: NativeEvent[]) => void,
  ) => NativeWatcher;
}

const ADDON_RELATIVE = path.join('native', 'build', 'Release', 'vigil_fanotify.node');

/**
 * Where the addon is: the repository root is a few levels above this file, both for the
 * TypeScript sources and for dist/. In a packaged app the .node file is unpacked beside the
 * asar archive (electron-builder.yml asarUnpack).
 */
export function addonCandidates(fromDir: string = path.dirname(fileURLToPath(import.meta.url))): string[] {
  const out: string[] = [];
  for (let dir = fromDir, depth = 0; depth < 6; dir = path.dirname(dir), depth++) {
    const file = path.join(dir, ADDON_RELATIVE);
    out.push(file.replace(`app.asar${path.sep}`, `app.asar.unpacked${path.sep}`), file);
    if (path.dirname(dir) === dir) break;
  }
  return [...new Set(out)];
}

let cached: { addon: FanotifyAddon | null; error: string | null } | null = null;

/** The addon, or null with the reason (not built, or it failed to load). */
export function loadAddon(): { addon: FanotifyAddon | null; error: string | null } {
  if (cached) return cached;
  const file = addonCandidates().find((candidate) => fs.existsSync(candidate));
  if (!file) {
    cached = { addon: null, error: 'addon not built' };
    return cached;
  }
  try {
    const require = createRequire(import.meta.url);
    cached = { addon: require(file) as FanotifyAddon, error: null };
  } catch (err) {
    cached = { addon: null, error: `addon failed to load: ${(err as Error).message}` };
  }
  return cached;
}
