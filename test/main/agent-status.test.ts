/**
 * The tray's view of monitoring, adapted from a TestAgent: the agent's monitoring capability
 * (pause/resume, the count and issues) must come through, and an agent without one degrades.
 */
import { describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
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
  attribution() {
    return 'none' as const;
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
  it('degrades on an agent without a monitoring capability: running, no count, no pause', async () => {
    const status = statusSourceFor({});
    expect(status.state).toBe('running');
    expect(status.todayCount).toBeNull();
    expect(status.issue).toBeNull();
    expect(status.canPause).toBe(false);
    await expect(status.setPaused(true)).rejects.toThrow(/cannot pause/);
    const unsubscribe = status.onChange(() => undefined);
    expect(typeof unsubscribe).toBe('function');
  });

  it("works with the real agent's capability: pause and resume, today's count, change events", async () => {
    const agent = await startTestAgent();
    try {
      const status = statusSourceFor(agent);
      expect(status.canPause).toBe(true);
      expect(status.state).toBe('running');
      expect(status.issue).toBeNull();
      // The first run records that it added the local host: one record today.
      expect(status.todayCount).toBe(1);
      // A test agent runs the folder watcher (docs/attribution.md): its records name no actor.
      await agent.activity.monitor.ready();
      expect(status.attribution).toBe('none');
      let changes = 0;
      const unsubscribe = status.onChange(() => (changes += 1));
      await status.setPaused(true);
      expect(status.state).toBe('paused');
      expect(agent.activity.monitor.paused).toBe(true);
      await status.setPaused(false);
      expect(status.state).toBe('running');
      expect(changes).toBeGreaterThanOrEqual(2);
      // Pause and resume are themselves recorded (self-audit), so today's count grows.
      await agent.activity.changeRecorder.flush();
      expect(status.todayCount).toBe(3);
      unsubscribe();
    } finally {
      await agent.stop();
    }
  });

  it('uses a monitoring capability: pause and resume, count, change events', async () => {
    const agent = await startTestAgent();
    try {
      const monitoring = new Monitoring();
      const extended: TestAgent & { monitoring: MonitoringCapability } = Object.assign(agent, { monitoring });
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
