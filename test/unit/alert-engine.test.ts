/**
 * The alert engine's counting (docs/alerts.md): more than the threshold within the window fires
 * once per burst; a quiet window or an acknowledgement ends the burst; actors are counted apart
 * (or together, per host); memory stays bounded however many actors come and go.
 */
import { describe, expect, it } from 'vitest';
import type { ActivityRecord } from '../../shared/activity-record.js';
import { defaultAlertRules, type AlertRule } from '../../shared/alert-rule.js';
import { AlertEngine, MAX_TRACKED_KEYS } from '../../agent/alerts/alert-engine.js';
import { BurstCounter } from '../../agent/alerts/burst-counter.js';
import type { StoredItem } from '../../agent/pipeline/pipeline-item.js';
import { alertsSettingsSchema } from '../../agent/config/alerts-schema.js';
import { defaultSettings, settingsSchema } from '../../agent/config/settings-schema.js';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);

function item(who: string, action: string, timeMs: number, what = `/w/${who}/${timeMs}`, where = 'ws1'): StoredItem {
  const stored: ActivityRecord = {
    RID: 'x',
    Who: who,
    Action: action,
    What: what,
    When: new Date(timeMs).toISOString(),
    Where: where,
    ObjectType: 'File',
    DataSource: 'File System',
  };
  return { record: stored, stored, timeMs, file: { operation: 'Removed', objectType: 'File', path: what } };
}

/** `n` records of one actor spread evenly over `spanMs` from `start`. */
function burst(who: string, n: number, start: number, spanMs: number, action = 'Removed'): StoredItem[] {
  return Array.from({ length: n }, (_, i) => item(who, action, start + Math.floor((i * spanMs) / n)));
}

const deletion: AlertRule = defaultAlertRules()[0]!;

describe('alert rules in settings', () => {
  it('has the two default rules when the key is absent, and none when the list is empty', () => {
    expect(defaultSettings().alerts).toEqual([
      { name: 'Mass deletion', actions: ['Removed'], threshold: 500, windowSeconds: 60, per: 'actor', enabled: true },
      {
        name: 'Mass modification',
        actions: ['Modified'],
        threshold: 1000,
        windowSeconds: 60,
        per: 'actor',
        enabled: true,
      },
    ]);
    expect(settingsSchema.parse({ alerts: [] }).alerts).toEqual([]);
  });

  it('names the wrong field of a hand-edited rule', () => {
    const result = alertsSettingsSchema.safeParse([
      { name: 'A', actions: ['Removed'], threshold: 10, windowSeconds: 60 },
      { name: 'a', actions: ['Deleted'], threshold: 0, windowSeconds: 7200 },
    ]);
    expect(result.success).toBe(false);
    const problems = result.error!.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^1\.actions\.0: an action must be one of Added, Modified/),
        '1.threshold: the threshold must be at least 1',
        '1.windowSeconds: the window must be at most 3,600',
      ]),
    );
  });
});

describe('alert engine', () => {
  it('fires once when one actor removes 600 files within a minute, with the count and the first ten paths', () => {
    const engine = new AlertEngine([deletion]);
    const items = burst('HOST\\alice', 600, T0, 30_000);
    const raised = [...engine.observe(items.slice(0, 250)), ...engine.observe(items.slice(250))];
    expect(raised).toHaveLength(1);
    expect(raised[0]).toMatchObject({ key: 'HOST\\alice', count: 501, actors: ['HOST\\alice'] });
    expect(raised[0]!.firstPaths).toEqual(items.slice(0, 10).map((i) => i.stored.What));
    expect(raised[0]!.atMs).toBe(items[500]!.timeMs);
  });

  it('does not fire when two actors remove 300 each, nor for 500 exactly, nor for other actions', () => {
    const engine = new AlertEngine([deletion]);
    expect(engine.observe([...burst('alice', 300, T0, 20_000), ...burst('bob', 300, T0, 20_000)])).toEqual([]);
    expect(engine.observe(burst('carol', 500, T0, 20_000))).toEqual([]);
    expect(engine.observe(burst('dave', 900, T0, 20_000, 'Added'))).toEqual([]);
  });

  it('counts per host when the rule says so, and names one actor or several', () => {
    const perHost: AlertRule = { ...deletion, name: 'Host deletion', per: 'host' };
    const engine = new AlertEngine([perHost]);
    const raised = engine.observe([...burst('alice', 300, T0, 20_000), ...burst('bob', 300, T0, 20_000)]);
    expect(raised).toHaveLength(1);
    expect(raised[0]).toMatchObject({ key: 'ws1', actors: ['alice', 'bob'] });
  });

  it('slides: 600 removals over ten minutes never hold more than 500 in a minute', () => {
    const engine = new AlertEngine([deletion]);
    expect(engine.observe(burst('alice', 600, T0, 600_000))).toEqual([]);
  });

  it('does not fire again inside the burst; fires again after a quiet window, or after acknowledgement', () => {
    const engine = new AlertEngine([deletion]);
    expect(engine.observe(burst('alice', 600, T0, 30_000))).toHaveLength(1);
    // The deletion goes on for minutes without a pause: still the same burst.
    let t = T0 + 30_000;
    for (let minute = 0; minute < 5; minute++, t += 50_000) {
      expect(engine.observe(burst('alice', 600, t, 50_000))).toEqual([]);
    }
    // A whole quiet window, then a new burst.
    t += 61_000;
    expect(engine.observe(burst('alice', 600, t, 30_000))).toHaveLength(1);
    // Acknowledged in the middle of that burst: the next 501 fire again.
    engine.acknowledge('Mass deletion', 'alice');
    expect(engine.observe(burst('alice', 500, t + 30_000, 10_000))).toEqual([]);
    expect(engine.observe(burst('alice', 1, t + 40_000, 1))).toHaveLength(1);
  });

  it('never counts its own alert records, and keeps counters of unchanged rules across a rule change', () => {
    const engine = new AlertEngine([deletion]);
    const alert = item('alice', 'Removed', T0);
    alert.stored.ObjectType = 'Alert';
    alert.stored.DataSource = 'Vigil Agent';
    expect(engine.observe(Array.from({ length: 600 }, () => alert))).toEqual([]);
    expect(engine.observe(burst('alice', 400, T0, 10_000))).toEqual([]);
    engine.setRules([deletion, { ...deletion, name: 'Other', actions: ['Added'] }]);
    expect(engine.observe(burst('alice', 101, T0 + 10_000, 10_000))).toHaveLength(1);
    engine.setRules([{ ...deletion, enabled: false }]);
    expect(engine.observe(burst('bob', 600, T0, 10_000))).toEqual([]);
  });

  it('bounds memory: actors idle for a window are dropped, and at most MAX_TRACKED_KEYS are counted', () => {
    const engine = new AlertEngine([deletion]);
    const many = Array.from({ length: MAX_TRACKED_KEYS + 500 }, (_, i) => item(`user${i}`, 'Removed', T0 + i));
    engine.observe(many);
    expect(engine.trackedKeys()).toBe(MAX_TRACKED_KEYS);
    engine.observe([item('late', 'Removed', T0 + 5 * 60_000)]);
    expect(engine.trackedKeys()).toBe(1);
  });
});

describe('burst counter', () => {
  it('counts late records inside the window and ignores those older than it', () => {
    const counter = new BurstCounter({ threshold: 2, windowSeconds: 10, maxPaths: 10 });
    expect(counter.add(T0 + 20_000, 'a', 'x')).toBeNull();
    expect(counter.add(T0, 'old', 'x')).toBeNull(); // 20 s before the newest: outside
    expect(counter.add(T0 + 15_000, 'b', 'x')).toBeNull();
    expect(counter.add(T0 + 19_000, 'c', 'x')).toMatchObject({ count: 3, firstPaths: ['a', 'b', 'c'] });
    expect(counter.inBurst).toBe(true);
  });
});
