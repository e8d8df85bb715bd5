/**
 * What the fanotify events add to the folder comparison (docs/attribution.md, "How the source
 * works"): the actor of each life of a path, paths that lived between two comparisons, folders
 * whose contents are announced by their own events, and files left inside a removed folder.
 */
import { describe, expect, it } from 'vitest';
import type { Actor } from '../../agent/monitor/actor.js';
import { ActorMemory } from '../../agent/monitor/actor-memory.js';
import { ChangeCollector } from '../../agent/monitor/change-collector.js';
import { FileTree } from '../../agent/monitor/file-tree.js';
import { FolderLister } from '../../agent/monitor/folder-lister.js';
import { reconcile, type ReconcileContext } from '../../agent/monitor/reconcile.js';
import type { SnapshotEntry } from '../../agent/store/monitor-state.js';
import { MapFs, file, folder, w } from './monitor/fakes.js';

const actor = (who: string, pid: number): Actor => ({ who, uid: 1000, pid, exe: '/usr/bin/tar', loginWho: null });
const alice = actor('HOST\\alice', 10);
const bob = actor('HOST\\bob', 20);

describe('ActorMemory', () => {
  it('gives each life of a path one Added and one Removed actor', () => {
    const memory = new ActorMemory();
    memory.remember(w('a.txt'), 'created', alice);
    expect(memory.actorOf({ action: 'Added', path: w('a.txt') })).toEqual(alice);
    expect(memory.actorOf({ action: 'Added', path: w('a.txt') })).toBeUndefined(); // taken
    memory.remember(w('a.txt'), 'removed', bob);
    expect(memory.actorOf({ action: 'Removed', path: w('a.txt') })).toEqual(bob);
    expect(memory.actorOf({ action: 'Removed', path: w('a.txt') })).toBeUndefined();
  });

  it('names a path created and deleted by events, not one renamed away or recreated', () => {
    const memory = new ActorMemory();
    memory.remember(w('tmp'), 'created', alice, true);
    memory.remember(w('tmp'), 'removed', bob, true);
    expect(memory.createdAndDeleted(w('tmp'))).toEqual({ dir: true });

    memory.remember(w('draft'), 'created', alice);
    memory.remember(w('draft'), 'removed', alice, false, 'moved'); // renamed to its final name
    expect(memory.createdAndDeleted(w('draft'))).toBeUndefined();

    memory.remember(w('again'), 'created', alice);
    memory.remember(w('again'), 'removed', alice);
    memory.remember(w('again'), 'created', bob); // a new life: it exists now
    expect(memory.createdAndDeleted(w('again'))).toBeUndefined();

    // Once recorded, a late event on the path gives no second pair of records.
    expect(memory.actorOf({ action: 'Added', path: w('tmp') })).toEqual(alice);
    expect(memory.createdAndDeleted(w('tmp'))).toBeUndefined();
  });

  it('says a folder was created in place only for a create event, also after its Added record', () => {
    const memory = new ActorMemory();
    memory.remember(w('made'), 'created', alice, true);
    memory.remember(w('moved'), 'created', alice, true, 'moved');
    memory.actorOf({ action: 'Added', path: w('made') });
    expect([memory.createdInPlace(w('made')), memory.createdInPlace(w('moved'))]).toEqual([true, false]);
  });
});

describe('reconcile with event-only lives', () => {
  const context = (memory: ActorMemory): ReconcileContext => ({
    host: { id: 'h1', host: 'Host' },
    account: { hostname: 'HOST', who: 'HOST\\agent', uid: 0 },
    include: [w()],
    rootOf: () => w(),
    byScan: false,
    times: new Map(),
    now: Date.parse('2026-11-24T10:00:00Z'),
    actorOf: (change) => memory.actorOf(change),
  });
  const lines = (out: ChangeCollector): string[] =>
    out.chunks.flatMap((c) => c.items.map((i) => `${i.record.Action} ${i.record.What} ${i.record.Who}`));
  const treeOf = (entries: Array<[string, SnapshotEntry]>): FileTree => {
    const tree = new FileTree();
    for (const [p, e] of entries) tree.set(p, e);
    return tree;
  };

  it('records a tree that lived between two comparisons: Added shallow first, Removed deep first, each by its actor', () => {
    const memory = new ActorMemory();
    for (const [p, dir] of [
      [w('t'), true],
      [w('t', 'f.txt'), false],
    ] as const) {
      memory.remember(p, 'created', alice, dir);
      memory.remember(p, 'removed', bob, dir);
    }
    const tree = treeOf([[w(), folder(1)]]);
    const out = new ChangeCollector();
    const passed: Array<[string, boolean]> = [
      [w('t', 'f.txt'), false],
      [w('t'), true],
    ];
    reconcile({ removed: [], added: [], modified: [], renamed: [], passed }, tree, context(memory), out);
    expect(lines(out)).toEqual([
      `Added ${w('t')} HOST\\alice`,
      `Added ${w('t', 'f.txt')} HOST\\alice`,
      `Removed ${w('t', 'f.txt')} HOST\\bob`,
      `Removed ${w('t')} HOST\\bob`,
    ]);
    expect(out.chunks[0]!.ops).toEqual([]); // nothing for the snapshot: it never held them
  });

  it('records what lived inside a folder removed now before the folder, and a Removed, unknown, for what had no event', () => {
    const memory = new ActorMemory();
    memory.remember(w('d', 'short.txt'), 'created', alice);
    memory.remember(w('d', 'short.txt'), 'removed', bob);
    memory.remember(w('d'), 'removed', bob, true);
    const tree = treeOf([
      [w(), folder(1)],
      [w('d'), folder(2)],
      [w('d', 'kept.txt'), file(3)], // known, but its delete event was lost
    ]);
    const out = new ChangeCollector();
    const diff = {
      removed: [[w('d'), folder(2)]] as Array<[string, SnapshotEntry]>,
      added: [],
      modified: [],
      renamed: [],
    };
    reconcile({ ...diff, passed: [[w('d', 'short.txt'), false]] }, tree, context(memory), out);
    expect(lines(out)).toEqual([
      `Added ${w('d', 'short.txt')} HOST\\alice`,
      `Removed ${w('d', 'short.txt')} HOST\\bob`,
      `Removed ${w('d', 'kept.txt')} unknown`,
      `Removed ${w('d')} HOST\\bob`,
    ]);
    expect(tree.get(w('d', 'kept.txt'))).toBeUndefined();
  });
});

describe('FolderLister with folders announced by events', () => {
  it('looks at files of a folder that is new in the same batch, and does not list a folder it is told not to', async () => {
    const fs = new MapFs([
      [w(), folder(1)],
      [w('new'), folder(2)],
      [w('new', 'a.txt'), file(3)],
      [w('new', 'b.txt'), file(4)], // its event has not arrived yet
    ]);
    const lister = new FolderLister({ fs, covers: () => true });
    const tree = new FileTree();
    tree.set(w(), folder(1));
    const before = new Map<string, SnapshotEntry>();
    const after = new Map<string, SnapshotEntry>();
    await lister.look([w('new', 'a.txt'), w('new')], tree, before, after); // a child named before its folder
    await lister.expandNewFolders(tree, before, after, () => false);
    expect([...after.keys()].sort()).toEqual([w('new'), w('new', 'a.txt')]);
    expect(fs.listings).toBe(0);
  });
});
