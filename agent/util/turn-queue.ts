/**
 * Shares the event loop among jobs that run in steps: audit searches, the slices of large
 * record pages, the parsing of search requests (docs/architecture.md "Concurrency model": the
 * loop is never held up for more than 100 ms). The agent creates one and gives it to each of
 * them, so they all take turns in one queue.
 *
 * Each job already stops after a short step (about 8 ms) and waits before the next. If every
 * job waited with its own `setImmediate`, all of them would run their next step in the same
 * round of immediates: 200 concurrent searches × 8 ms is 1.6 s without a timer or a new
 * connection being served (measured in test/load/load.test.ts before this queue). Here the
 * waiters queue up and one of them is let through per turn of the event loop, so between two
 * rounds of I/O the loop runs at most one step of one job, and the jobs take turns in order.
 */
export class TurnQueue {
  private readonly waiting: Array<() => void> = [];
  private scheduled = false;

  /** Resolves when the caller may run its next step (at the earliest in the next turn). */
  turn(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.next);
      }
    });
  }

  /** Jobs waiting for their turn. */
  get length(): number {
    return this.waiting.length;
  }

  private readonly next = (): void => {
    const resolve = this.waiting.shift();
    // An immediate queued while immediates run waits for the next turn of the loop.
    if (this.waiting.length > 0) setImmediate(this.next);
    else this.scheduled = false;
    resolve?.();
  };
}
