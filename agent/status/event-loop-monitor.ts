/**
 * How long the event loop was held up (security.md §0.11, issue 9: never more than 100 ms). A
 * Node `monitorEventLoopDelay` histogram runs for the agent's lifetime; the console's
 * diagnostics endpoint reads it, and a load test resets it before its run and reads it after.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

export interface EventLoopDelay {
  /** Milliseconds; the sampling resolution (10 ms) is part of every figure. */
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Since when the figures run (agent start or the last reset), ISO 8601. */
  since: string;
}

const RESOLUTION_MS = 10;
const ms = (ns: number): number => Math.round(ns / 1e4) / 100;

export class EventLoopMonitor {
  private readonly histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  private since = new Date();

  constructor() {
    this.histogram.enable();
  }

  snapshot(): EventLoopDelay {
    const h = this.histogram;
    const empty = h.count === 0;
    return {
      meanMs: empty ? 0 : ms(h.mean),
      p50Ms: empty ? 0 : ms(h.percentile(50)),
      p99Ms: empty ? 0 : ms(h.percentile(99)),
      maxMs: empty ? 0 : ms(h.max),
      since: this.since.toISOString(),
    };
  }

  reset(): void {
    this.histogram.reset();
    this.since = new Date();
  }

  stop(): void {
    this.histogram.disable();
  }
}
