/**
 * Quitting stops the agent first. Electron's `before-quit` is synchronous, so the handler
 * cancels the quit (preventDefault), awaits `stop()` (listeners closed, settings and store
 * flushed and closed, lock released), then leaves with `app.exit()`, which does not emit
 * `before-quit` again. A stop that hangs is cut off after a bound so the app always exits.
 */
import type { Logger } from '../agent/agent.js';

export interface QuitApp {
  on(event: 'before-quit', listener: (event: { preventDefault(): void }) => void): unknown;
  exit(exitCode?: number): void;
}

export interface QuitOptions {
  stop: () => Promise<void>;
  log: Logger;
  /** Exit anyway when stopping takes longer than this (default 15 s). */
  stopTimeoutMs?: number;
}

export function installQuitHandler(app: QuitApp, options: QuitOptions): void {
  let leaving = false;
  app.on('before-quit', (event) => {
    event.preventDefault();
    if (leaving) return; // a second Quit click while stopping: keep waiting for the first
    leaving = true;
    void stopWithin(options).then((code) => app.exit(code));
  });
}

async function stopWithin({ stop, log, stopTimeoutMs = 15_000 }: QuitOptions): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), stopTimeoutMs);
  });
  try {
    const outcome = await Promise.race([stop().then(() => 'stopped' as const), timeout]);
    if (outcome === 'timeout') {
      log.error('the agent did not stop in time; exiting anyway', { timeoutMs: stopTimeoutMs });
      return 1;
    }
    return 0;
  } catch (error) {
    log.error('the agent did not stop cleanly', { error: (error as Error).message });
    return 1;
  } finally {
    clearTimeout(timer);
  }
}
