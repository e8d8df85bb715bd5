/** Watcher hints become batches: settle time, longest delay, hot files, sweeps after overflow. */
import { describe, expect, it } from 'vitest';
import { HintBatcher, type HintBatcherOptions } from '../../../agent/monitor/hint-batcher.js';
import type { SnapshotEntry } from '../../../agent/store/monitor-state.js';
import { ManualClock, file, w } from './fakes.js';

function batcher(overrides: Partial<HintBatcherOptions> = {}) {
  const clock = new ManualClock();
  const due: number[] = [];
  const sweeps: Array<string[] | 'all'> = [];
  const b = new HintBatcher({
    scheduler: clock,
    settleMs: 100,
    maxDelayMs: 1000,
    sweepMs: 1000,
    overflowRisk: 50,
    onDue: () => due.push(clock.now()),
    onSweep: (folders) => sweeps.push(folders),
    ...overrides,
  });
  return { b, clock, due, sweeps };
}

describe('HintBatcher', () => {
  it('makes a burst of events one batch once they have been quiet for the settle time', () => {
    const { b, clock, due } = batcher();
    const start = clock.now();
    for (let i = 0; i < 5; i++) {
      b.hint(w('docs'), 'a.txt');
      clock.advance(50);
    }
    expect(due).toEqual([]);
    clock.advance(100);
    expect(due).toHaveLength(1);
    const batch = b.take();
    expect([...batch.hints]).toEqual([[w('docs', 'a.txt'), start]]);
    expect([...batch.dirty]).toEqual([w('docs')]);
    expect(batch.fullScan).toBe(false);
  });

  it('does not wait past the longest delay while events keep coming', () => {
    const { b, clock, due } = batcher();
    const start = clock.now();
    for (let i = 0; i < 40; i++) {
      b.hint(w('docs'), `f${i}`);
      clock.advance(50);
    }
    expect(due.length).toBeGreaterThanOrEqual(1);
    expect(due[0]! - start).toBeLessThanOrEqual(1000 + 100);
  });

  it('defers a file written within the settle time, and a vanished path that may be its rename source', () => {
    const { b, clock } = batcher();
    const now = clock.now();
    const hot = { ...file(1), mtimeMs: now - 10 };
    const cold = { ...file(2), mtimeMs: now - 5000 };
    const before = new Map<string, SnapshotEntry>([[w('old.txt'), file(1)]]);
    const after = new Map<string, SnapshotEntry>([
      [w('new.txt'), hot],
      [w('done.txt'), cold],
    ]);
    const hints = new Map([
      [w('new.txt'), now],
      [w('old.txt'), now],
      [w('done.txt'), now],
    ]);
    const deferred = b.deferHotFiles(before, after, hints, now);
    expect([...deferred].sort()).toEqual([w('new.txt'), w('old.txt')]);
    expect([...after.keys()]).toEqual([w('done.txt')]);
    expect(before.size).toBe(0);
    // They wait for the next batch, keeping the time they were first seen.
    expect(b.hasPending).toBe(true);
    expect([...b.take().hints]).toEqual([
      [w('new.txt'), now],
      [w('old.txt'), now],
    ]);
  });

  it('reports a file written without pause once its first event is the longest delay old', () => {
    const { b, clock } = batcher();
    const now = clock.now();
    const after = new Map<string, SnapshotEntry>([[w('log.txt'), { ...file(3), mtimeMs: now }]]);
    const deferred = b.deferHotFiles(new Map(), after, new Map([[w('log.txt'), now - 1000]]), now);
    expect(deferred.size).toBe(0);
    expect(after.has(w('log.txt'))).toBe(true);
  });

  it('sweeps the folders that had events once activity is quiet, and every folder after an overflow-sized burst', () => {
    const { b, clock, sweeps } = batcher();
    b.hint(w('a'), 'x');
    b.hint(w('b'), 'y');
    b.take();
    b.armSweep();
    clock.advance(1000);
    expect(sweeps).toEqual([[w('a'), w('b')]]);

    for (let i = 0; i < 60; i++) b.hint(w('c'), `f${i}`);
    b.take();
    b.armSweep();
    clock.advance(500);
    b.hint(w('c'), 'late'); // still busy: the sweep waits for quiet
    clock.advance(600);
    expect(sweeps).toHaveLength(1);
    clock.advance(1000);
    expect(sweeps[1]).toBe('all');
  });

  it('turns more pending paths than it may hold into one full scan', () => {
    const { b } = batcher({ maxPending: 10 });
    for (let i = 0; i < 11; i++) b.hint(w('big'), `f${i}`);
    const batch = b.take();
    expect(batch.fullScan).toBe(true);
    expect(batch.hints.size).toBe(0);
  });

  it('starts no timer once closed', () => {
    const { b, clock, due } = batcher();
    b.hint(w('a'), 'x');
    b.close();
    b.hint(w('a'), 'y');
    clock.advance(5000);
    expect(due).toEqual([]);
  });
});
