/**
 * Counts committed records against the alert rules (docs/alerts.md). The pipeline hands every
 * committed batch here, whatever its source (file monitoring, the audit API's write endpoint,
 * self-audit), and the engine answers with the alerts that fire: at most one per rule and
 * actor (or host) per burst (burst-counter.ts).
 *
 * Memory is bounded: one counter per rule and actor seen within the rule's window, at most
 * MAX_TRACKED_KEYS per rule (the least recently active is dropped first), each holding at most
 * one slot per second of its window and ten paths. Counters idle for a whole window are dropped.
 */
import { DataSources } from '../../shared/activity-record.js';
import type { AlertRule } from '../../shared/alert-rule.js';
import type { StoredItem } from '../pipeline/pipeline-item.js';
import { BurstCounter, type BurstSnapshot } from './burst-counter.js';

/** Actors (or hosts) counted at once per rule. */
export const MAX_TRACKED_KEYS = 10_000;
/** Paths an alert names. */
export const ALERT_PATHS = 10;
/** How often idle counters are swept, in ms of record time. */
const SWEEP_INTERVAL_MS = 10_000;

/** An alert the engine raised: the rule, whom it counted, and the burst. */
export interface RaisedAlert extends BurstSnapshot {
  rule: AlertRule;
  /** The actor (per actor) or the host (per host) the rule counted. */
  key: string;
  /** The host (`Where`) of the record that crossed the threshold. */
  where: string;
}

interface RuleState {
  rule: AlertRule;
  /** The rule as JSON: a rule whose definition changes starts counting afresh. */
  definition: string;
  counters: Map<string, BurstCounter>;
  /** The key counted last: already at the end of `counters`, so a run of one actor costs one lookup. */
  lastKey?: string;
}

/** Records the engine never counts: the alerts it raised itself. */
export function isAlertRecord(item: StoredItem): boolean {
  return item.stored.ObjectType === 'Alert' && item.stored.DataSource === DataSources.agent;
}

export class AlertEngine {
  private states: RuleState[] = [];
  private lastSweepMs = Number.NEGATIVE_INFINITY;

  constructor(rules: readonly AlertRule[] = []) {
    this.setRules(rules);
  }

  /** Applies new rules; counters of rules that did not change are kept. */
  setRules(rules: readonly AlertRule[]): void {
    const previous = new Map(this.states.map((state) => [state.definition, state]));
    this.states = rules
      .filter((rule) => rule.enabled)
      .map((rule) => {
        const definition = JSON.stringify(rule);
        return previous.get(definition) ?? { rule, definition, counters: new Map() };
      });
  }

  /** Counts a committed batch; returns the alerts it raised, in record order. */
  observe(items: readonly StoredItem[]): RaisedAlert[] {
    if (this.states.length === 0 || items.length === 0) return [];
    const raised: RaisedAlert[] = [];
    let newestMs = Number.NEGATIVE_INFINITY;
    for (const item of items) {
      if (isAlertRecord(item)) continue;
      const record = item.stored;
      newestMs = Math.max(newestMs, item.timeMs);
      for (const state of this.states) {
        if (!(state.rule.actions as readonly string[]).includes(record.Action)) continue;
        const key = state.rule.per === 'actor' ? record.Who : record.Where;
        const fired = this.counter(state, key).add(item.timeMs, item.file?.path ?? record.What, record.Who);
        if (fired) raised.push({ ...fired, rule: state.rule, key, where: record.Where });
      }
    }
    if (newestMs - this.lastSweepMs >= SWEEP_INTERVAL_MS) this.sweep(newestMs);
    return raised;
  }

  /** Acknowledging an alert ends its burst: the next records count from zero. */
  acknowledge(ruleName: string, key: string): void {
    for (const state of this.states) if (state.rule.name === ruleName) state.counters.delete(key);
  }

  /** Actors (or hosts) currently counted, over all rules (for tests of the memory bound). */
  trackedKeys(): number {
    return this.states.reduce((n, state) => n + state.counters.size, 0);
  }

  private counter(state: RuleState, key: string): BurstCounter {
    const counters = state.counters;
    let counter = counters.get(key);
    if (counter) {
      // Most recently active last, so the eviction below drops the longest idle.
      if (state.lastKey !== key) {
        counters.delete(key);
        counters.set(key, counter);
        state.lastKey = key;
      }
      return counter;
    }
    if (counters.size >= MAX_TRACKED_KEYS) counters.delete(counters.keys().next().value!);
    counter = new BurstCounter({
      threshold: state.rule.threshold,
      windowSeconds: state.rule.windowSeconds,
      maxPaths: ALERT_PATHS,
    });
    counters.set(key, counter);
    state.lastKey = key;
    return counter;
  }

  private sweep(nowMs: number): void {
    this.lastSweepMs = nowMs;
    for (const state of this.states) {
      for (const [key, counter] of state.counters) if (counter.idleAt(nowMs)) state.counters.delete(key);
    }
  }
}
