/**
 * One `fs.watch` per monitored folder (inotify on Linux, one watch descriptor each). The events
 * are hints only — "something happened to this name in this folder" — because every watcher
 * measured here loses some (docs/benchmarks.md, and libuv drops inotify's queue-overflow event
 * silently); the file activity source turns hints into changes by comparing with its snapshot.
 */
import fs from 'node:fs';
import { isUnder } from '../util/path-under.js';

export type HintListener = (dir: string, name: string | null) => void;
export type WatchErrorListener = (dir: string, error: Error) => void;

export class FolderWatchers {
  private readonly watchers = new Map<string, fs.FSWatcher>();

  constructor(
    private readonly onHint: HintListener,
    private readonly onError: WatchErrorListener,
  ) {}

  get count(): number {
    return this.watchers.size;
  }

  has(dir: string): boolean {
    return this.watchers.has(dir);
  }

  /** Starts watching `dir`; returns the error when it cannot (ENOSPC: the inotify watch limit). */
  watch(dir: string): NodeJS.ErrnoException | null {
    if (this.watchers.has(dir)) return null;
    let watcher: fs.FSWatcher;
    try {
      watcher = fs.watch(dir, { persistent: false }, (_event, name) => this.onHint(dir, name ?? null));
    } catch (error) {
      return error as NodeJS.ErrnoException;
    }
    watcher.on('error', (error: Error) => {
      this.unwatch(dir);
      this.onError(dir, error);
    });
    this.watchers.set(dir, watcher);
    return null;
  }

  unwatch(dir: string): void {
    const watcher = this.watchers.get(dir);
    if (!watcher) return;
    this.watchers.delete(dir);
    watcher.close();
  }

  /** Stops watching `dir` and every folder under it. */
  unwatchUnder(dir: string): void {
    for (const watched of [...this.watchers.keys()]) if (isUnder(watched, dir)) this.unwatch(watched);
  }

  closeAll(): void {
    for (const dir of [...this.watchers.keys()]) this.unwatch(dir);
  }
}
