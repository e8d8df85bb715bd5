/**
 * The live feed: every committed batch of records, in commit order, for in-process readers
 * (the console streams it over SSE). A reader that falls behind never slows the pipeline: its
 * own buffer is bounded and the oldest records are dropped and counted for that reader only.
 */
import type { ActivityRecord } from '../../shared/activity-record.js';

export type FeedListener = (records: readonly ActivityRecord[]) => void;

export interface FeedChunk {
  records: ActivityRecord[];
  /** Records dropped for this reader since the previous chunk because it fell behind. */
  dropped: number;
}

export interface FeedStreamOptions {
  signal?: AbortSignal;
  /** Records held for a slow reader before the oldest are dropped. */
  maxBuffered?: number;
}

export class LiveFeed {
  private readonly listeners = new Set<FeedListener>();

  /** Listeners run synchronously after each commit; keep them quick. Returns unsubscribe. */
  subscribe(listener: FeedListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get subscriberCount(): number {
    return this.listeners.size;
  }

  publish(records: readonly ActivityRecord[]): void {
    if (records.length === 0) return;
    for (const listener of this.listeners) {
      try {
        listener(records);
      } catch {
        // A broken reader must not stop the pipeline or the other readers.
      }
    }
  }

  /** An async iterator over committed records; ends when `signal` aborts. */
  async *stream(options: FeedStreamOptions = {}): AsyncGenerator<FeedChunk> {
    const max = options.maxBuffered ?? 10_000;
    let buffer: ActivityRecord[] = [];
    let dropped = 0;
    let wake: (() => void) | null = null;
    const unsubscribe = this.subscribe((records) => {
      buffer.push(...records);
      if (buffer.length > max) {
        dropped += buffer.length - max;
        buffer = buffer.slice(buffer.length - max);
      }
      wake?.();
    });
    const onAbort = (): void => wake?.();
    options.signal?.addEventListener('abort', onAbort);
    try {
      while (!options.signal?.aborted) {
        if (buffer.length === 0) {
          await new Promise<void>((resolve) => (wake = resolve));
          wake = null;
          continue;
        }
        const chunk: FeedChunk = { records: buffer, dropped };
        buffer = [];
        dropped = 0;
        yield chunk;
      }
    } finally {
      unsubscribe();
      options.signal?.removeEventListener('abort', onAbort);
    }
  }
}
