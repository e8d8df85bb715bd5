/** Every listing of the file activity source, on a file system held in a map. */
import { describe, expect, it } from 'vitest';
import { FileTree } from '../../../agent/monitor/file-tree.js';
import { FolderLister } from '../../../agent/monitor/folder-lister.js';
import type { SnapshotEntry } from '../../../agent/store/monitor-state.js';
import { MapFs, file, folder, w } from './fakes.js';

describe('FolderLister', () => {
  it('walks the covered tree, watching each folder before reading it, and yields after each turn of work', async () => {
    const entries: Array<[string, SnapshotEntry]> = [
      [w(), folder()],
      [w('skip'), folder()],
      [w('skip', 'x'), file()],
    ];
    for (let i = 0; i < 25; i++) entries.push([w(`f${i}`), file()]);
    const fs = new MapFs(entries);
    let yields = 0;
    const order: string[] = [];
    const lister = new FolderLister({
      fs,
      covers: (p) => !p.startsWith(w('skip')),
      entriesPerTurn: 10,
      yieldTurn: async () => void yields++,
    });
    const into = new Map<string, SnapshotEntry>();
    expect(await lister.walk(w(), into, { beforeList: (dir) => order.push(dir) })).toBe(true);
    expect(into.size).toBe(26);
    expect(into.has(w('skip'))).toBe(false);
    expect(order).toEqual([w()]);
    expect(yields).toBe(2);
    expect(await lister.walk(w('absent'), into)).toBe(false);
  });

  it('reports unreadable folders', async () => {
    const fs = new MapFs([[w(), folder()]]);
    fs.names = () => {
      throw Object.assign(new Error('denied'), { code: 'EACCES' });
    };
    const unreadable: string[] = [];
    await new FolderLister({ fs, covers: () => true }).walk(w(), new Map(), {
      unreadable: (dir, error) => unreadable.push(`${dir} ${(error as NodeJS.ErrnoException).code}`),
    });
    expect(unreadable).toEqual([`${w()} EACCES`]);
  });

  it('finds names created or removed without an event by listing a folder again', () => {
    const tree = new FileTree();
    tree.set(w(), folder());
    tree.set(w('kept'), file());
    tree.set(w('deleted'), file());
    const fs = new MapFs([
      [w(), folder()],
      [w('kept'), file()],
      [w('created'), file()],
    ]);
    const hints = new Map<string, number>([[w('kept'), 1]]);
    const found = new FolderLister({ fs, covers: () => true }).listAgain([w()], tree, hints, 5);
    expect(found).toBe(2);
    expect([...hints]).toEqual([
      [w('kept'), 1],
      [w('created'), 5],
      [w('deleted'), 5],
    ]);
  });

  it('lists a folder that is new at its path, counting what the tree knew there as before', async () => {
    const tree = new FileTree();
    tree.set(w(), folder(1));
    tree.set(w('x'), folder(2));
    tree.set(w('x', 'old.txt'), file(3));
    const fs = new MapFs([
      [w(), folder(1)],
      [w('x'), folder(4)],
      [w('x', 'new.txt'), file(5)],
    ]);
    const before = new Map<string, SnapshotEntry>([[w('x'), folder(2)]]);
    const after = new Map<string, SnapshotEntry>([[w('x'), folder(4)]]);
    await new FolderLister({ fs, covers: () => true }).expandNewFolders(tree, before, after);
    expect([...before.keys()]).toEqual([w('x'), w('x', 'old.txt')]);
    expect([...after.keys()]).toEqual([w('x'), w('x', 'new.txt')]);
  });
});
