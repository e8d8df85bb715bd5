/**
 * Records and the snapshot changes they stand for, in commit-sized chunks that keep their order,
 * and their submission to the pipeline: each chunk's snapshot ops run inside the transaction that
 * stores its records (`commitWith`), so the snapshot on disk always matches the committed records.
 */
import type { Pipeline } from '../pipeline/pipeline.js';
import type { PipelineItem } from '../pipeline/pipeline-item.js';
import type { SnapshotOp } from '../store/monitor-state.js';

/**
 * Records per pipeline submission: the pipeline's largest batch, so a burst is committed in as
 * few transactions (two disk syncs each) as it allows (docs/decisions.md, "monitor area").
 */
export const RECORDS_PER_SUBMISSION = 5000;

export interface ChangeChunk {
  items: PipelineItem[];
  ops: SnapshotOp[];
}

export class ChangeCollector {
  readonly chunks: ChangeChunk[] = [{ items: [], ops: [] }];
  constructor(private readonly perChunk = RECORDS_PER_SUBMISSION) {}
  private get current(): ChangeChunk {
    return this.chunks[this.chunks.length - 1]!;
  }
  op(change: SnapshotOp): void {
    this.current.ops.push(change);
  }
  record(item: PipelineItem): void {
    this.current.items.push(item);
    if (this.current.items.length >= this.perChunk) this.chunks.push({ items: [], ops: [] });
  }
  get recordCount(): number {
    return this.chunks.reduce((n, c) => n + c.items.length, 0);
  }
}

export interface SubmitChangesOptions {
  /** Runs a chunk's snapshot ops (inside its transaction). */
  applyOps: (ops: ChangeChunk['ops']) => void;
  /** Runs with the last chunk (inside its transaction), even when it is empty. */
  also?: () => void;
  /** A chunk was refused: its records are not stored and its snapshot ops did not run. */
  failed: (chunk: ChangeChunk, error: Error) => void;
}

/** Submits every chunk; resolves once each is committed or has failed. */
export async function submitChanges(
  pipeline: Pipeline,
  collector: ChangeCollector,
  o: SubmitChangesOptions,
): Promise<void> {
  const submissions: Array<Promise<unknown>> = [];
  collector.chunks.forEach((chunk, i) => {
    const last = i === collector.chunks.length - 1;
    if (chunk.items.length === 0 && chunk.ops.length === 0 && !(last && o.also)) return;
    const commitWith = (): void => {
      o.applyOps(chunk.ops);
      if (last) o.also?.();
    };
    submissions.push(
      pipeline.submit({ items: chunk.items, commitWith }).catch((error: Error) => o.failed(chunk, error)),
    );
  });
  await Promise.all(submissions);
}
