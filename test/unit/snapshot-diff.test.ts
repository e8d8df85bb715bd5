/** The snapshot comparison that names file changes: renames by inode, not by guess. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffSnapshots } from '../../agent/monitor/snapshot-diff.js';
import type { SnapshotEntry } from '../../agent/store/monitor-state.js';

const p = (...parts: string[]): string => path.join(path.sep, 'w', ...parts);
const file = (ino: number, size = 1, mtimeMs = 1000, birthMs = ino * 10): SnapshotEntry => ({
  dir: false,
  dev: 1,
  ino,
  size,
  mtimeMs,
  birthMs,
});
const folder = (ino: number): SnapshotEntry => ({ dir: true, dev: 1, ino, size: 0, mtimeMs: 0, birthMs: ino * 10 });
const map = (entries: Array<[string, SnapshotEntry]>): Map<string, SnapshotEntry> => new Map(entries);

describe('diffSnapshots', () => {
  it('names additions, removals and modifications; folders are never modified', () => {
    const diff = diffSnapshots(
      map([
        [p('gone.txt'), file(1)],
        [p('edited.txt'), file(2, 10)],
        [p('dir'), folder(3)],
      ]),
      map([
        [p('edited.txt'), file(2, 20, 2000)],
        [p('dir'), { ...folder(3), mtimeMs: 99 }],
        [p('new.txt'), file(4)],
      ]),
    );
    expect(diff.removed.map(([x]) => x)).toEqual([p('gone.txt')]);
    expect(diff.added.map(([x]) => x)).toEqual([p('new.txt')]);
    expect(diff.modified.map(([x]) => x)).toEqual([p('edited.txt')]);
    expect(diff.renamed).toEqual([]);
  });

  it('pairs a vanished and an appeared path with the same inode and birth time as one rename', () => {
    const diff = diffSnapshots(map([[p('a.txt'), file(7)]]), map([[p('sub', 'b.txt'), file(7)]]));
    expect(diff.renamed.map((r) => [r.from, r.to])).toEqual([[p('a.txt'), p('sub', 'b.txt')]]);
    expect(diff.added).toEqual([]);
    expect(diff.removed).toEqual([]);
  });

  it('does not take a reused inode for a rename (the birth time differs)', () => {
    const diff = diffSnapshots(
      map([[p('deleted.txt'), file(7, 1, 1000, 70)]]),
      map([[p('created.txt'), file(7, 1, 5000, 99)]]),
    );
    expect(diff.renamed).toEqual([]);
    expect(diff.removed.map(([x]) => x)).toEqual([p('deleted.txt')]);
    expect(diff.added.map(([x]) => x)).toEqual([p('created.txt')]);
  });

  it('without birth times, pairs only when size and mtime are unchanged', () => {
    const noBirth = (e: SnapshotEntry): SnapshotEntry => ({ ...e, birthMs: 0 });
    const same = diffSnapshots(map([[p('a'), noBirth(file(7))]]), map([[p('b'), noBirth(file(7))]]));
    expect(same.renamed).toHaveLength(1);
    const changed = diffSnapshots(map([[p('a'), noBirth(file(7))]]), map([[p('b'), noBirth(file(7, 2))]]));
    expect(changed.renamed).toHaveLength(0);
  });

  it('reports a folder rename once, not once per file inside it', () => {
    const diff = diffSnapshots(
      map([
        [p('old'), folder(1)],
        [p('old', 'x.txt'), file(2)],
        [p('old', 'deep'), folder(3)],
        [p('old', 'deep', 'y.txt'), file(4)],
      ]),
      map([
        [p('new'), folder(1)],
        [p('new', 'x.txt'), file(2)],
        [p('new', 'deep'), folder(3)],
        [p('new', 'deep', 'y.txt'), file(4)],
      ]),
    );
    expect(diff.renamed.map((r) => [r.from, r.to])).toEqual([[p('old'), p('new')]]);
    expect([...diff.added, ...diff.removed, ...diff.modified]).toEqual([]);
  });

  it('treats a file renamed over another as a rename, and a replaced file as modified', () => {
    const over = diffSnapshots(
      map([
        [p('tmp'), file(9)],
        [p('doc'), file(8)],
      ]),
      map([[p('doc'), file(9)]]),
    );
    expect(over.renamed.map((r) => [r.from, r.to])).toEqual([[p('tmp'), p('doc')]]);
    const replaced = diffSnapshots(map([[p('doc'), file(8)]]), map([[p('doc'), file(11)]]));
    expect(replaced.modified.map(([x]) => x)).toEqual([p('doc')]);
  });

  it('orders removals deepest first and additions shallowest first', () => {
    const diff = diffSnapshots(
      map([
        [p('d'), folder(1)],
        [p('d', 'f'), file(2)],
      ]),
      map([
        [p('n', 'f'), file(30)],
        [p('n'), folder(31)],
      ]),
    );
    expect(diff.removed.map(([x]) => x)).toEqual([p('d', 'f'), p('d')]);
    expect(diff.added.map(([x]) => x)).toEqual([p('n'), p('n', 'f')]);
  });
});
