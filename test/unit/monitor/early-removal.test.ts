/**
 * A folder found gone before the removal events of what it held (agent/monitor/early-removal.ts)
 * waits for a later batch, for a bounded time; once every entry inside has its event, or the
 * wait is over, it goes through. So does a file found gone before its own delete event.
 */
import { describe, expect, it } from 'vitest';
import {
  deferEarlyFileRemovals,
  deferEarlyFolderRemovals,
  EARLY_REMOVAL_WAIT_MS,
} from '../../../agent/monitor/early-removal.js';
import { FileTree } from '../../../agent/monitor/file-tree.js';
import type { SnapshotEntry } from '../../../agent/store/monitor-state.js';

const entry = (dir: boolean, ino: number): SnapshotEntry => ({ dir, dev: 1, ino, size: 0, mtimeMs: 0, birthMs: 0 });

function treeOf(): FileTree {
  const tree = new FileTree();
  tree.set('/w', entry(true, 1));
  tree.set('/w/d', entry(true, 2));
  tree.set('/w/d/a.txt', entry(false, 3));
  tree.set('/w/d/b.txt', entry(false, 4));
  return tree;
}

describe('early folder removals', () => {
  it('holds a gone folder back while an entry inside has no event in this batch', () => {
    const tree = treeOf();
    const before = new Map([
      ['/w/d', tree.get('/w/d')!],
      ['/w/d/a.txt', tree.get('/w/d/a.txt')!],
    ]);
    const deferred: Array<[string, number]> = [];
    const hints = new Map([['/w/d', 1000]]);
    const waiting = deferEarlyFolderRemovals(
      { before, after: new Map(), hints, now: 1500, defer: (p, t) => deferred.push([p, t]) },
      tree,
    );
    expect(waiting).toEqual({ waiting: ['/w/d'], expired: 0 });
    expect(deferred).toEqual([['/w/d', 1000]]); // keeps when it was first hinted
    expect([...before.keys()]).toEqual(['/w/d/a.txt']); // a.txt's removal goes through now
  });

  it('lets it go when every entry inside has its event, when it is still there, or after the wait', () => {
    const tree = treeOf();
    const all = (): Map<string, SnapshotEntry> =>
      new Map(['/w/d', '/w/d/a.txt', '/w/d/b.txt'].map((p) => [p, tree.get(p)!] as const));
    const none = (): void => expect.unreachable('nothing is deferred');
    const nothing = { waiting: [], expired: 0 };
    expect(
      deferEarlyFolderRemovals({ before: all(), after: new Map(), hints: new Map(), now: 0, defer: none }, tree),
    ).toEqual(nothing);
    const onlyFolder = (): Map<string, SnapshotEntry> => new Map([['/w/d', tree.get('/w/d')!]]);
    const stillThere = new Map([['/w/d', tree.get('/w/d')!]]);
    expect(
      deferEarlyFolderRemovals(
        { before: onlyFolder(), after: stillThere, hints: new Map(), now: 0, defer: none },
        tree,
      ),
    ).toEqual(nothing);
    const hints = new Map([['/w/d', 0]]);
    expect(
      deferEarlyFolderRemovals(
        { before: onlyFolder(), after: new Map(), hints, now: EARLY_REMOVAL_WAIT_MS, defer: none },
        tree,
      ),
    ).toEqual({
      waiting: [],
      expired: 1,
    });
  });
  it('waits for a folder inside that waits, and lets a whole tree go once every entry has its event', () => {
    const tree = treeOf();
    tree.set('/w/d/sub', entry(true, 5));
    tree.set('/w/d/sub/c.txt', entry(false, 6));
    const known = (...paths: string[]) => new Map(paths.map((p) => [p, tree.get(p)!] as const));
    const deferred: string[] = [];
    const defer = (p: string): number => deferred.push(p);
    // sub's c.txt has no event yet: sub waits, and so does d, though its own files have theirs.
    const partial = known('/w/d', '/w/d/a.txt', '/w/d/b.txt', '/w/d/sub');
    const first = deferEarlyFolderRemovals(
      { before: partial, after: new Map(), hints: new Map(), now: 0, defer: defer },
      tree,
    );
    expect(first.waiting.sort()).toEqual(['/w/d', '/w/d/sub']);
    expect([...partial.keys()].sort()).toEqual(['/w/d/a.txt', '/w/d/b.txt']);
    // Every entry of the tree has its event: nothing waits.
    const whole = known('/w/d', '/w/d/a.txt', '/w/d/b.txt', '/w/d/sub', '/w/d/sub/c.txt');
    expect(
      deferEarlyFolderRemovals({ before: whole, after: new Map(), hints: new Map(), now: 0, defer: defer }, tree),
    ).toEqual({ waiting: [], expired: 0 });
    expect(whole.size).toBe(5);
  });
});

describe('early file removals', () => {
  const known = (...paths: Array<[string, number]>): Map<string, SnapshotEntry> =>
    new Map(paths.map(([p, ino]) => [p, entry(false, ino)] as const));

  it('holds a gone file back until its delete event is in; one whose event is in goes through', () => {
    // a.txt was hinted by its close-write event and found gone before the reader took its delete.
    const before = known(['/w/a.txt', 3], ['/w/b.txt', 4], ['/w/c.txt', 5]);
    const after = known(['/w/c.txt', 5]);
    const deferred: Array<[string, number]> = [];
    const reported = (p: string): boolean => p === '/w/b.txt';
    const hints = new Map([['/w/a.txt', 1000]]);
    const result = deferEarlyFileRemovals(
      { before, after: after, hints, now: 1200, defer: (p, t) => deferred.push([p, t]) },
      reported,
    );
    expect(result).toEqual({ waiting: ['/w/a.txt'], expired: 0 });
    expect(deferred).toEqual([['/w/a.txt', 1000]]); // keeps when it was first hinted
    expect([...before.keys()]).toEqual(['/w/b.txt', '/w/c.txt']);
  });

  it('lets a renamed file go with its new name, and a file whose event never came after the wait', () => {
    const none = (): void => expect.unreachable('nothing is deferred');
    const never = (): boolean => false;
    // The same inode under another name: half of a rename, compared now with the other half.
    const renamed = known(['/w/old.txt', 7]);
    const result = deferEarlyFileRemovals(
      { before: renamed, after: known(['/w/new.txt', 7]), hints: new Map(), now: 0, defer: none },
      never,
    );
    expect(result).toEqual({ waiting: [], expired: 0 });
    expect(renamed.has('/w/old.txt')).toBe(true);
    const late = known(['/w/a.txt', 3]);
    const hints = new Map([['/w/a.txt', 0]]);
    expect(
      deferEarlyFileRemovals({ before: late, after: new Map(), hints, now: EARLY_REMOVAL_WAIT_MS, defer: none }, never),
    ).toEqual({
      waiting: [],
      expired: 1,
    });
    expect(late.has('/w/a.txt')).toBe(true);
  });
});
