/**
 * Time for the file activity source's parts: the clock and one-shot timers, injected so the
 * unit tests can step time instead of waiting for it.
 */

/** Cancels a timer; calling it again does nothing. */
export type CancelTimer = () => void;

export interface Scheduler {
  now(): number;
  /** Runs `fn` once after `ms`. `background` timers do not keep the process alive. */
  after(ms: number, fn: () => void, background?: boolean): CancelTimer;
}

export const realScheduler: Scheduler = {
  now: () => Date.now(),
  after(ms, fn, background = false) {
    const timer = setTimeout(fn, ms);
    if (background) timer.unref();
    return () => clearTimeout(timer);
  },
};
