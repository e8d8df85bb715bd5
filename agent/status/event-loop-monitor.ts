/**
 * How long the event loop was held up (docs/architecture.md: never more than 100 ms). Two
 * figures, both read by the console's diagnostics endpoint and by the load tests:
 *
 * - `delay`: Node's `monitorEventLoopDelay`, how late its timer ran. On a busy machine this
 *   includes time the process spent waiting for a CPU, which no code of the agent can avoid.
 * - `blocked`: the same lateness minus the time the main thread waited on the kernel's run
 *   queue meanwhile (Linux `/proc/self/task/<tid>/schedstat`, second field), sampled every
 *   20 ms. What remains is time the thread spent running or in a blocking call: work that held
 *   the loop. Null where the kernel does not report it.
 */
import fs from 'node:fs';
import {
  createHistogram,
  monitorEventLoopDelay,
  type IntervalHistogram,
  type RecordableHistogram,
} from 'node:perf_hooks';

export interface DelayFigures {
  /** Milliseconds. */
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface EventLoopDelay extends DelayFigures {
  /** Since when the figures run (agent start or the last reset), ISO 8601. */
  since: string;
  /** The delay without the time spent waiting for a CPU (Linux), or null. */
  blocked: DelayFigures | null;
}

const RESOLUTION_MS = 10;
const SAMPLE_MS = 20;
const ms = (ns: number): number => Math.round(ns / 1e4) / 100;

/** Run-queue wait of the main thread so far, in ns; null when the kernel does not say. */
function runQueueWaitNs(file: string): number | null {
  try {
    const wait = Number(fs.readFileSync(file, 'latin1').split(' ')[1]);
    return Number.isFinite(wait) ? wait : null;
  } catch {
    return null;
  }
}

function figures(h: IntervalHistogram | RecordableHistogram): DelayFigures {
  if (h.count === 0) return { meanMs: 0, p50Ms: 0, p99Ms: 0, maxMs: 0 };
  return { meanMs: ms(h.mean), p50Ms: ms(h.percentile(50)), p99Ms: ms(h.percentile(99)), maxMs: ms(h.max) };
}

export class EventLoopMonitor {
  private readonly delay: IntervalHistogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  private readonly blocked: RecordableHistogram | null;
  private readonly timer: NodeJS.Timeout | null = null;
  private since = new Date();

  constructor() {
    this.delay.enable();
    // The main thread's id is the process id (Linux); the agent runs on the main thread.
    const schedstat = `/proc/self/task/${process.pid}/schedstat`;
    let lastWait = runQueueWaitNs(schedstat);
    if (lastWait === null) {
      this.blocked = null;
      return;
    }
    const blocked = createHistogram();
    this.blocked = blocked;
    let last = process.hrtime.bigint();
    this.timer = setInterval(() => {
      const now = process.hrtime.bigint();
      const wait = runQueueWaitNs(schedstat) ?? lastWait!;
      const lateNs = Number(now - last) - SAMPLE_MS * 1e6;
      const heldNs = lateNs - (wait - lastWait!);
      blocked.record(Math.max(1, Math.round(heldNs)));
      last = now;
      lastWait = wait;
    }, SAMPLE_MS);
    this.timer.unref();
  }

  snapshot(): EventLoopDelay {
    return {
      ...figures(this.delay),
      since: this.since.toISOString(),
      blocked: this.blocked ? figures(this.blocked) : null,
    };
  }

  reset(): void {
    this.delay.reset();
    this.blocked?.reset();
    this.since = new Date();
  }

  stop(): void {
    this.delay.disable();
    if (this.timer) clearInterval(this.timer);
  }
}
