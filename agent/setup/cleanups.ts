/**
 * The stop steps of one part of the agent, run in the reverse order of their adding: what was
 * made last closes first. A failing step is logged and the others still run; `run` empties the
 * list, so calling it twice runs each step once.
 */
import type { Logger } from '../log/logger.js';

export type Cleanup = () => Promise<void> | void;

export class Cleanups {
  private readonly steps: Cleanup[] = [];

  constructor(private readonly log: Logger) {}

  add(step: Cleanup): void {
    this.steps.push(step);
  }

  async run(): Promise<void> {
    for (const step of this.steps.splice(0).reverse()) {
      try {
        await step();
      } catch (error) {
        this.log.error('shutdown step failed', { error: (error as Error).message });
      }
    }
  }
}

/**
 * Builds one part with its own cleanups and returns it with `stop`. If building fails half-way,
 * what was already made is stopped before the error goes on.
 */
export async function withCleanups<T extends object>(
  log: Logger,
  build: (cleanups: Cleanups) => Promise<T> | T,
): Promise<T & { stop(): Promise<void> }> {
  const cleanups = new Cleanups(log);
  try {
    const built = await build(cleanups);
    return Object.assign(built, { stop: () => cleanups.run() });
  } catch (error) {
    await cleanups.run();
    throw error;
  }
}
