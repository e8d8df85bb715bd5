/**
 * The tray's view of monitoring, adapted from a RunningAgent. Today the agent has no
 * monitoring capability and the tray must degrade; once the pipeline adds one, pause/resume,
 * the count and issues must come through.
 */
import { describe, expect, it } from 'vitest';
import type { RunningAgent } from '../../agent/agent.js';
import { statusSourceFor, type AgentIssue, type MonitoringCapability } from '../../main/agent-status.js';
import { startTestAgent } from '../helpers/test-agent.js';

/** A monitoring capability with real state, as the pipeline would attach it to the agent. */
class Monitoring implements Required<MonitoringCapability> {
  paused = false;
  count = 0;
  current: AgentIssue | null = null;
  private readonly listeners = new Set<() => void>();
  async pause() {
    this.paused = true;
    this.changed();
  }
  async resume() {
    this.paused = false;
    this.changed();
  }
  todayCount() {
    return this.count;
  }
  issue() {
    return this.current;
  }
  onChange(listener: () => void) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  changed() {
    for (const l of this.listeners) l();
  }
}

describe('statusSourceFor', () => {
  it('degrades on the agent as it is today: running, no count, no pause', async () => {
    const agent = await startTestAgent();
    try {
      const status = statusSourceFor(agent);
      expect(status.state).toBe('running');
      expect(status.todayCount).toBeNull();
      expect(status.issue).toBeNull();
      expect(status.canPause).toBe(false);
      await expect(status.setPaused(true)).rejects.toThrow(/cannot pause/);
      const unsubscribe = status.onChange(() => undefined);
      expect(typeof unsubscribe).toBe('function');
    } finally {
      await agent.stop();
    }
  });

  it('uses a monitoring capability: pause and resume, count, change events', async () => {
    const agent = await startTestAgent();
    try {
      const monitoring = new Monitoring();
      const extended: RunningAgent & { monitoring: MonitoringCapability } = Object.assign(agent, { monitoring });
      const status = statusSourceFor(extended);
      let changes = 0;
      const unsubscribe = status.onChange(() => (changes += 1));
      expect(status.canPause).toBe(true);
      await status.setPaused(true);
      expect(status.state).toBe('paused');
      await status.setPaused(false);
      expect(status.state).toBe('running');
      monitoring.count = 42;
      expect(status.todayCount).toBe(42);
      expect(changes).toBe(2);
      unsubscribe();
      await status.setPaused(true);
      expect(changes).toBe(2);
    } finally {
      await agent.stop();
    }
  });

  it('reports an issue as the error state, and recovers when it clears', () => {
    const monitoring = new Monitoring();
    const status = statusSourceFor({ monitoring });
    monitoring.current = { code: 'disk_quota', message: 'the log files reached the 5 GB quota' };
    expect(status.state).toBe('error');
    expect(status.issue).toEqual(monitoring.current);
    monitoring.current = null;
    expect(status.state).toBe('running');
  });

  it('uses the parts that exist and ignores malformed ones', () => {
    const partial = { monitoring: { todayCount: () => 7, pause: async () => undefined } }; // no resume
    const status = statusSourceFor(partial);
    expect(status.todayCount).toBe(7);
    expect(status.canPause).toBe(false);
    expect(statusSourceFor({ monitoring: { todayCount: () => Number.NaN } }).todayCount).toBeNull();
    expect(statusSourceFor({ monitoring: { todayCount: () => -1 } }).todayCount).toBeNull();
    expect(statusSourceFor({ monitoring: { issue: () => ({ nope: true }) } }).issue).toBeNull();
    expect(statusSourceFor({ monitoring: 'yes' }).canPause).toBe(false);
  });
});
