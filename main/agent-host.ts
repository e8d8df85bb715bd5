/**
 * Owns the agent inside the main process: starts it, remembers why a start failed, and stops
 * it exactly once at quit. The order matters more than anything else here:
 *
 * - stop() during a start waits for that start to settle, then stops what it produced, so a
 *   quit while the listeners are still binding never leaves a half-started agent behind;
 * - after stop() nothing starts again (a "retry" clicked during shutdown is ignored);
 * - start() never throws: a failure becomes the `failed` phase with its error, which the tray
 *   shows and notifies.
 */
import type { Logger } from '../agent/agent.js';

export type HostPhase = 'idle' | 'starting' | 'running' | 'failed' | 'stopping' | 'stopped';

export interface StoppableAgent {
  stop(): Promise<void>;
}

export class AgentHost<A extends StoppableAgent> {
  private phaseValue: HostPhase = 'idle';
  private running: A | null = null;
  private failureValue: Error | null = null;
  private starting: Promise<A | null> | null = null;
  private stopping: Promise<void> | null = null;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly startAgent: () => Promise<A>,
    private readonly log: Logger,
  ) {}

  get phase(): HostPhase {
    return this.phaseValue;
  }

  /** The running agent, or null when none runs. */
  get agent(): A | null {
    return this.running;
  }

  /** Why the last start failed, while in the `failed` phase. */
  get failure(): Error | null {
    return this.failureValue;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Starts the agent (or returns the one running). Resolves to null when it failed or the host stopped. */
  start(): Promise<A | null> {
    if (this.running) return Promise.resolve(this.running);
    if (this.starting) return this.starting;
    if (this.stopping) return Promise.resolve(null);
    this.starting = this.runStart().finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  private async runStart(): Promise<A | null> {
    this.failureValue = null;
    this.setPhase('starting');
    try {
      const agent = await this.startAgent();
      this.running = agent;
      this.setPhase('running');
      return agent;
    } catch (error) {
      this.failureValue = error instanceof Error ? error : new Error(String(error));
      this.log.error('the agent could not start', { error: this.failureValue.message });
      this.setPhase('failed');
      return null;
    }
  }

  /** Stops the agent once; later calls return the same promise. Waits for a start in progress. */
  stop(): Promise<void> {
    this.stopping ??= this.runStop();
    return this.stopping;
  }

  private async runStop(): Promise<void> {
    const pending = this.starting;
    this.setPhase('stopping');
    if (pending) await pending;
    const agent = this.running;
    this.running = null;
    try {
      if (agent) await agent.stop();
    } finally {
      this.setPhase('stopped');
    }
  }

  private setPhase(phase: HostPhase): void {
    // A start that settles after stop() began must not move the phase back to running/failed.
    if (this.stopping && phase !== 'stopping' && phase !== 'stopped') return;
    this.phaseValue = phase;
    for (const listener of this.listeners) {
      try {
        listener();
      } catch (error) {
        this.log.error('a status listener failed', { error: (error as Error).message });
      }
    }
  }
}
