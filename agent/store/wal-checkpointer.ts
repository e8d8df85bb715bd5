/**
 * Background checkpoints of the audit database's WAL.
 *
 * In WAL mode a commit appends pages to the `-wal` file; a checkpoint copies them back into the
 * database file and syncs both. SQLite runs it inside whichever commit crosses
 * `wal_autocheckpoint` pages, which put it on the agent's event loop in the middle of ingest:
 * during a burst, checkpoints took about 15 % of the pipeline's time (docs/benchmarks.md). Here
 * a worker thread with its own connection checkpoints after commits instead, on the other core.
 *
 * Durability does not change: every commit is still synced by the writer (synchronous=FULL),
 * and a checkpoint is crash-safe at any point. The writer keeps a higher `wal_autocheckpoint`
 * as a backstop, so the WAL stays bounded if this thread falls behind or cannot run.
 */
import { WorkerChannel } from '../util/worker-channel.js';
import type { CheckpointJob, CheckpointReply } from './wal-checkpoint-worker.js';

/** Pages the writer lets the WAL reach before it checkpoints itself (SQLite's default is 1000). */
export const BACKSTOP_PAGES = 10_000;
const COMMITS_PER_CHECKPOINT = 3;

export class WalCheckpointer {
  private readonly channel: WorkerChannel<CheckpointJob, CheckpointReply>;
  private running = false;
  private wanted = false;
  private stopped = false;
  private failures = 0;
  private retryAt = 0;
  private commits = 0;
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(
    file: string,
    private readonly now: () => number = Date.now,
  ) {
    this.channel = new WorkerChannel({
      callerUrl: import.meta.url,
      worker: 'wal-checkpoint-worker',
      workerData: { file },
    });
  }

  /**
   * A transaction committed. About every COMMITS_PER_CHECKPOINT commits, or a second after the
   * last one, a checkpoint runs (SQLite's own cadence is every 1000 pages, about the same).
   *
   * A `derived` commit (audit-store.ts `derivedTransaction`: a few pages, not synced) only arms
   * the one-second timer. After a complete checkpoint the next commit starts the WAL over and
   * SQLite syncs its new header inside that commit, whatever `synchronous` says: checkpoints
   * between the activity rollup's back-to-back slices made each run of them pay that sync on the
   * event loop.
   */
  committed(derived = false): void {
    if (!derived && ++this.commits >= COMMITS_PER_CHECKPOINT) {
      this.poke();
      return;
    }
    if (this.idleTimer) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      this.poke();
    }, 1000);
    this.idleTimer.unref();
  }

  /** Checkpoint now. Calls while one runs make one more run after it. */
  poke(): void {
    this.commits = 0;
    if (this.stopped) return;
    if (this.running) {
      this.wanted = true;
      return;
    }
    // After failures (a missing or damaged file), try again at most every few seconds; the
    // writer's own backstop checkpoints meanwhile.
    if (this.failures > 0 && this.now() < this.retryAt) return;
    this.running = true;
    this.wanted = false;
    this.channel.request({ type: 'checkpoint' }).then(
      (reply) => this.finished(reply.type === 'done'),
      () => this.finished(false), // the thread stopped: it starts again with the next checkpoint
    );
  }

  private finished(ok: boolean): void {
    this.running = false;
    if (ok) this.failures = 0;
    else this.retryAt = this.now() + Math.min(30_000, 500 * 2 ** Math.min(this.failures++, 6));
    if (this.wanted) this.poke();
  }

  /** Ends the thread (its connection closes with it). */
  stop(): Promise<void> {
    this.stopped = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    return this.channel.close();
  }
}
