/** The pure step: a snapshot diff becomes records, snapshot ops and watch changes. */
import { describe, expect, it } from 'vitest';
import { ChangeCollector } from '../../../agent/monitor/change-collector.js';
import { FileTree } from '../../../agent/monitor/file-tree.js';
import { FolderLister } from '../../../agent/monitor/folder-lister.js';
import { reconcile, startingPoint, type ReconcileContext } from '../../../agent/monitor/reconcile.js';
import { diffSnapshots } from '../../../agent/monitor/snapshot-diff.js';
import type { SnapshotEntry } from '../../../agent/store/monitor-state.js';
import { MapFs, file, folder, w } from './fakes.js';

const context = (overrides: Partial<ReconcileContext> = {}): ReconcileContext => ({
  host: { id: 'h1', host: 'Host' },
  account: { hostname: 'HOST', who: 'HOST\\user', uid: 1000 },
  include: [w()],
  rootOf: () => w(),
  byScan: false,
  times: new Map(),
  now: Date.parse('2026-11-24T10:00:00Z'),
  ...overrides,
});

function treeOf(entries: Array<[string, SnapshotEntry]>): FileTree {
  const tree = new FileTree();
  for (const [p, e] of entries) tree.set(p, e);
  return tree;
}

const actions = (out: ChangeCollector): string[] =>
  out.chunks.flatMap((c) => c.items.map((i) => `${i.record.Action} ${i.record.What}`));

describe('reconcile', () => {
  it('records a rename in one folder as Renamed, naming both paths', () => {
    const doc = file(1);
    const tree = treeOf([
      [w(), folder(9)],
      [w('a.txt'), doc],
    ]);
    const out = new ChangeCollector();
    const diff = diffSnapshots(new Map([[w('a.txt'), doc]]), new Map([[w('b.txt'), doc]]));
    reconcile(diff, tree, context(), out);
    expect(actions(out)).toEqual([`Renamed ${w('b.txt')}`]);
    expect(out.chunks[0]!.items[0]!.record.DetailList).toEqual([
      { PropertyName: 'Path', Before: w('a.txt'), After: w('b.txt') },
    ]);
    expect(out.chunks[0]!.ops).toEqual([
      { op: 'delete', path: w('a.txt') },
      { op: 'upsert', path: w('b.txt'), entry: doc },
    ]);
    expect(tree.get(w('a.txt'))).toBeUndefined();
    expect(tree.get(w('b.txt'))).toEqual(doc);
  });

  it('records a folder moved elsewhere as one Moved, re-watches it and what is under it, and sweeps it', () => {
    const [projects, src, code] = [folder(2), folder(3), file(4)];
    const tree = treeOf([
      [w(), folder(9)],
      [w('archive'), folder(5)],
      [w('projects'), projects],
      [w('projects', 'src'), src],
      [w('projects', 'src', 'main.ts'), code],
    ]);
    const out = new ChangeCollector();
    const diff = diffSnapshots(
      new Map([
        [w('projects'), projects],
        [w('projects', 'src'), src],
        [w('projects', 'src', 'main.ts'), code],
      ]),
      new Map([
        [w('archive', 'projects'), projects],
        [w('archive', 'projects', 'src'), src],
        [w('archive', 'projects', 'src', 'main.ts'), code],
      ]),
    );
    const done = reconcile(diff, tree, context(), out);
    expect(actions(out)).toEqual([`Moved ${w('archive', 'projects')}`]);
    expect(done.unwatchUnder).toEqual([w('projects')]);
    expect(done.watch).toEqual([w('archive', 'projects'), w('archive', 'projects', 'src')]);
    expect(done.sweep).toEqual(done.watch);
    expect(tree.get(w('archive', 'projects', 'src', 'main.ts'))).toEqual(code);
    expect(tree.get(w('projects'))).toBeUndefined();
  });

  it('records a renamed and edited file as Renamed then Modified', () => {
    const before = file(6, 10, 1000);
    const after = { ...before, size: 20, mtimeMs: 2000 };
    const tree = treeOf([
      [w(), folder(9)],
      [w('draft.txt'), before],
    ]);
    const out = new ChangeCollector();
    reconcile(
      { removed: [], added: [], modified: [], renamed: [{ from: w('draft.txt'), to: w('final.txt'), before, after }] },
      tree,
      context(),
      out,
    );
    expect(actions(out)).toEqual([`Renamed ${w('final.txt')}`, `Modified ${w('final.txt')}`]);
  });

  it('adds a new folder, asks for it to be watched and listed, and notes a removed include folder', () => {
    const tree = treeOf([
      [w(), folder(9)],
      [w('gone'), folder(7)],
    ]);
    const out = new ChangeCollector();
    const diff = diffSnapshots(new Map([[w('gone'), folder(7)]]), new Map([[w('new'), folder(8)]]));
    const done = reconcile(diff, tree, context({ include: [w(), w('gone')], byScan: true }), out);
    expect(actions(out)).toEqual([`Removed ${w('gone')}`, `Added ${w('new')}`]);
    expect(done).toMatchObject({ watch: [w('new')], newFolders: [w('new')], missingRoots: [w('gone')] });
    expect(out.chunks[0]!.items[1]!.record.DetailList?.[0]?.PropertyName).toBe('Detection');
  });

  it('pairs a file moved into a brand-new folder with where it came from once the folder is listed', async () => {
    const report = file(11);
    const fs = new MapFs([
      [w(), folder(9)],
      [w('fresh'), folder(12)],
      [w('fresh', 'report.pdf'), report],
    ]);
    const tree = treeOf([
      [w(), folder(9)],
      [w('report.pdf'), report],
    ]);
    const lister = new FolderLister({ fs, covers: () => true });
    const before = new Map<string, SnapshotEntry>();
    const after = new Map<string, SnapshotEntry>();
    // The watcher named the folder and the vanished file, not the file inside the new folder.
    await lister.look([w('fresh'), w('report.pdf')], tree, before, after);
    await lister.expandNewFolders(tree, before, after);
    const out = new ChangeCollector();
    reconcile(diffSnapshots(before, after), tree, context(), out);
    expect(actions(out).sort()).toEqual([`Added ${w('fresh')}`, `Moved ${w('fresh', 'report.pdf')}`]);
  });

  it('cuts records into chunks that keep their snapshot ops with them', () => {
    const tree = treeOf([[w(), folder(9)]]);
    const out = new ChangeCollector(2);
    const added: Array<[string, SnapshotEntry]> = [1, 2, 3].map((i) => [w(`f${i}`), file(20 + i)]);
    reconcile({ removed: [], added, modified: [], renamed: [] }, tree, context(), out);
    expect(out.chunks.map((c) => [c.items.length, c.ops.length])).toEqual([
      [2, 2],
      [1, 1],
    ]);
  });
});

describe('startingPoint', () => {
  it('forgets what is no longer covered and takes newly covered paths as a silent baseline', () => {
    const known = new Map([
      [w('docs', 'a'), file(1)],
      [w('old', 'b'), file(2)],
    ]);
    const scanned = new Map([
      [w('docs', 'a'), file(1)],
      [w('docs', 'c'), file(3)],
      [w('music', 'd'), file(4)],
    ]);
    const now = { covers: (p: string) => !p.startsWith(w('old')) };
    const previously = { covers: (p: string) => !p.startsWith(w('music')) };
    const start = startingPoint(known, scanned, now, previously);
    expect(start.forgotten).toEqual([w('old', 'b')]);
    expect(start.baseline.map(([p]) => p)).toEqual([w('music', 'd')]);
    expect([...start.after.keys()]).toEqual([w('docs', 'a'), w('docs', 'c')]);
  });
});
