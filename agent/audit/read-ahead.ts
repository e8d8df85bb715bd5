/**
 * Read-ahead for exports. A client that enumerates everything asks for a page, parses it, then
 * asks for the next one with its mark: while it parses, the agent would sit idle. So after
 * sending a full page of an unfiltered enumeration, the agent starts building the next page, a
 * slice per turn of the event loop (record-stream.ts, prepareSlices), keyed by the mark it just
 * issued; when that mark comes back, the page is (partly) ready. Only full pages are prepared: their content can no longer change (records are
 * immutable and new ones get higher `seq`), so a prepared page is exactly what a fresh one would
 * be. At most `max` pages are held (a page is kept as its slices, never as one string), each for
 * at most `ttlMs`.
 */
import type { MarkPayload } from './continuation-mark.js';

export interface PreparedPage {
  seqs: number[];
  mark: string;
  next: MarkPayload;
  /** The page's slices of seqs (record-stream.ts, pageSlices), and their JSON being built. */
  pageSlices: number[][];
  slices: Array<Promise<Buffer>>;
}

export class ReadAhead {
  private readonly entries = new Map<string, { page: PreparedPage; expires: number }>();

  constructor(
    private readonly max = 2,
    private readonly ttlMs = 30_000,
    private readonly now: () => number = Date.now,
  ) {}

  static key(mark: string, count: number): string {
    return `${count}:${mark.trim()}`;
  }

  take(key: string): PreparedPage | null {
    const entry = this.entries.get(key);
    if (!entry) return null;
    this.entries.delete(key);
    return entry.expires > this.now() ? entry.page : null;
  }

  put(key: string, page: PreparedPage): void {
    for (const slice of page.slices) slice.catch(() => undefined); // a failed slice is rebuilt on request
    this.entries.delete(key);
    this.entries.set(key, { page, expires: this.now() + this.ttlMs });
    while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }
}
