/**
 * The file activity source with its parts put together, on a file system held in a map, a
 * clock the test steps and watchers the test fires: no inotify, no waiting. Records go through
 * a real pipeline into a real audit store.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hostSchema } from '../../../agent/config/monitoring-schema.js';
import { silentLogger } from '../../../agent/log/logger.js';
import { FileActivitySource } from '../../../agent/monitor/file-activity-source.js';
import { FolderWatchers, type HintListener } from '../../../agent/monitor/folder-watchers.js';
import { Pipeline } from '../../../agent/pipeline/pipeline.js';
import { AuditStore } from '../../../agent/store/audit-store.js';
import { MonitorStateTable } from '../../../agent/store/monitor-state.js';
import { StatusRegistry } from '../../../agent/status/status-registry.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { ManualClock, MapFs, file, folder, w } from './fakes.js';

/** Watchers that only remember which folders are watched; the test fires their events. */
class FakeWatchers extends FolderWatchers {
  readonly folders = new Set<string>();
  constructor(readonly fire: HintListener) {
    super(fire, () => undefined);
  }
  override get count(): number {
    return this.folders.size;
  }
  override watch(dir: string): null {
    this.folders.add(dir);
    return null;
  }
  override unwatch(dir: string): void {
    this.folders.delete(dir);
  }
  override unwatchUnder(dir: string): void {
    for (const f of [...this.folders]) if (f === dir || f.startsWith(dir + path.sep)) this.folders.delete(f);
  }
  override closeAll(): void {
    this.folders.clear();
  }
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startSource(fs: MapFs, timings: { overflowRisk?: number } = {}) {
  const store = AuditStore.open({ file: path.join(makeTempDir(), 'audit.db') });
  const pipeline = new Pipeline({ store, log: silentLogger });
  const clock = new ManualClock();
  let watchers!: FakeWatchers;
  const host = hostSchema.parse({ id: 'h1', host: 'Host', type: 'Linux', includePaths: [w()] });
  const source = new FileActivitySource({
    host,
    coverage: { include: [w()], exclude: [] },
    pipeline,
    state: new MonitorStateTable(store.db, path.sep),
    status: new StatusRegistry(),
    account: { hostname: 'HOST', who: 'HOST\\user', uid: 1000 },
    log: silentLogger,
    fs,
    scheduler: clock,
    watchers: (onHint) => (watchers = new FakeWatchers(onHint)),
    settleMs: 100,
    maxDelayMs: 1000,
    sweepMs: 1000,
    ...timings,
  });
  cleanups.push(
    () => store.close(),
    () => pipeline.stop(),
    () => source.stop(),
  );
  await source.start();
  const records = (): string[] =>
    (
      store.db.prepare('SELECT action, what FROM activity_records ORDER BY seq').all() as Array<{
        action: string;
        what: string;
      }>
    ).map((r) => `${r.action} ${r.what}`);
  /** Steps the clock and waits for what came due to be committed. */
  const step = async (ms: number): Promise<void> => {
    clock.advance(ms);
    await source.settle();
  };
  /** Steps the clock and lets what came due run, without forcing deferred paths out. */
  const stepWithoutForcing = async (ms: number): Promise<void> => {
    clock.advance(ms);
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    await pipeline.flush();
  };
  return { source, clock, watchers, records, step, stepWithoutForcing };
}

describe('FileActivitySource (no real watcher)', () => {
  it('watches every folder and records a rename and a move once each', async () => {
    const fs = new MapFs([
      [w(), folder(1)],
      [w('docs'), folder(2)],
      [w('docs', 'a.txt'), file(3)],
      [w('old'), folder(4)],
    ]);
    const { watchers, records, step } = await startSource(fs);
    expect([...watchers.folders].sort()).toEqual([w(), w('docs'), w('old')]);

    fs.move(w('docs', 'a.txt'), w('docs', 'b.txt'));
    watchers.fire(w('docs'), 'a.txt');
    watchers.fire(w('docs'), 'b.txt');
    fs.move(w('old'), w('docs', 'old'));
    watchers.fire(w(), 'old');
    watchers.fire(w('docs'), 'old');
    await step(100);
    expect(records()).toEqual([`Renamed ${w('docs', 'b.txt')}`, `Moved ${w('docs', 'old')}`]);
    expect(watchers.folders.has(w('docs', 'old'))).toBe(true);
    expect(watchers.folders.has(w('old'))).toBe(false);
  });

  it('holds a file still being written until it is quiet, so a save is one Added', async () => {
    const fs = new MapFs([[w(), folder(1)]]);
    const { clock, watchers, records, stepWithoutForcing } = await startSource(fs);
    // Still being written when the batch comes due (10 ms before it).
    fs.entries.set(w('draft.txt'), { ...file(5, 10), mtimeMs: clock.now() + 90 });
    watchers.fire(w(), 'draft.txt');
    await stepWithoutForcing(100);
    expect(records()).toEqual([]);
    fs.entries.set(w('draft.txt'), { ...file(5, 20), mtimeMs: clock.now() - 10 }); // then quiet
    await stepWithoutForcing(100);
    expect(records()).toEqual([`Added ${w('draft.txt')}`]);
  });

  it('records every file created in a new folder, also those created before its watch', async () => {
    const fs = new MapFs([[w(), folder(1)]]);
    const { watchers, records, step } = await startSource(fs);
    fs.entries.set(w('new'), folder(6));
    fs.entries.set(w('new', 'sub'), folder(7));
    fs.entries.set(w('new', 'sub', 'x.txt'), file(8));
    watchers.fire(w(), 'new');
    await step(100);
    expect(records()).toEqual([`Added ${w('new')}`, `Added ${w('new', 'sub')}`, `Added ${w('new', 'sub', 'x.txt')}`]);
    expect(watchers.folders.has(w('new', 'sub'))).toBe(true);
  });

  it('lists every folder after a burst that may have overflowed the kernel queue, finding what had no event', async () => {
    const fs = new MapFs([
      [w(), folder(1)],
      [w('busy'), folder(2)],
      [w('quiet'), folder(3)],
    ]);
    const { source, watchers, records, step } = await startSource(fs, { overflowRisk: 10 });
    for (let i = 0; i < 12; i++) {
      fs.entries.set(w('busy', `f${i}`), file(100 + i));
      watchers.fire(w('busy'), `f${i}`);
    }
    fs.entries.set(w('quiet', 'lost.txt'), file(200)); // its event was lost
    await step(100);
    expect(records()).toHaveLength(12);
    await step(1000); // quiet for the sweep time: every folder is listed
    expect(records()).toHaveLength(13);
    expect(records()[12]).toBe(`Added ${w('quiet', 'lost.txt')}`);
    expect(source.status().counters.recoveredByListing).toBe(1);
  });
});
