/**
 * Background WAL checkpoints (agent/store/wal-checkpointer.ts): with them on, committed pages
 * reach the database file without the writer checkpointing inside a commit; with them off (the
 * control), the same commits stay in the WAL until SQLite's own 1000-page threshold.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditStore } from '../../agent/store/audit-store.js';
import type { NewActivityRecord } from '../../shared/activity-record.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const record = (i: number): NewActivityRecord => ({
  Who: 'HOST\\alice',
  Action: 'Added',
  What: `/home/alice/${'long-folder-name/'.repeat(4)}file-${i}.txt`,
  When: '2026-11-20T10:15:30Z',
  Where: 'HOST',
  ObjectType: 'File',
  DataSource: 'File System',
});

/** Writes 4 commits of 500 records (about 1 MB of WAL: under SQLite's 1000-page threshold). */
function write(store: AuditStore): void {
  for (let batch = 0; batch < 4; batch++) {
    store.insertBatch(Array.from({ length: 500 }, (_, i) => record(batch * 500 + i)));
  }
}

async function sizeAfter(file: string, ms: number, until: (size: number) => boolean): Promise<number> {
  const deadline = Date.now() + ms;
  let size = fs.statSync(file).size;
  while (!until(size) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    size = fs.statSync(file).size;
  }
  return size;
}

describe('background WAL checkpoints', () => {
  it('copy committed pages into the database file from a worker thread', async () => {
    const file = path.join(makeTempDir(), 'audit.db');
    const store = AuditStore.open({ file, backgroundCheckpoints: true });
    const before = fs.statSync(file).size;
    write(store);
    expect(fs.statSync(`${file}-wal`).size).toBeGreaterThan(500_000);
    const after = await sizeAfter(file, 10_000, (size) => size > before + 500_000);
    expect(after).toBeGreaterThan(before + 500_000);
    expect(store.count()).toBe(2000);
    store.close();
  });

  it('(control: without them the same commits stay in the WAL)', async () => {
    const file = path.join(makeTempDir(), 'audit.db');
    const store = AuditStore.open({ file });
    const before = fs.statSync(file).size;
    write(store);
    expect(await sizeAfter(file, 1500, () => false)).toBe(before);
    store.close();
  });

  it("leaves a derived commit (the activity rollup's) unsynced and to the one-second timer", async () => {
    const file = path.join(makeTempDir(), 'audit.db');
    const store = AuditStore.open({ file, backgroundCheckpoints: true });
    const before = fs.statSync(file).size;
    const modes: unknown[] = [];
    for (let batch = 0; batch < 4; batch++) {
      store.derivedTransaction(() => {
        modes.push(store.db.pragma('synchronous', { simple: true }));
        store.insertInTransaction(Array.from({ length: 500 }, (_, i) => record(batch * 500 + i)));
      });
    }
    // NORMAL (1) inside, FULL (2) again for the commits that follow.
    expect(modes).toEqual([1, 1, 1, 1]);
    expect(store.db.pragma('synchronous', { simple: true })).toBe(2);
    // Four ordinary commits start a checkpoint at once (the test above); these wait for the timer.
    expect(await sizeAfter(file, 300, () => false)).toBe(before);
    expect(await sizeAfter(file, 10_000, (size) => size > before + 500_000)).toBeGreaterThan(before + 500_000);
    store.close();
  });

  it('reopens the database and every record is there', async () => {
    const file = path.join(makeTempDir(), 'audit.db');
    const store = AuditStore.open({ file, backgroundCheckpoints: true });
    write(store);
    await sizeAfter(file, 10_000, (size) => size > 500_000);
    store.close();
    const again = AuditStore.open({ file });
    expect(again.count()).toBe(2000);
    again.close();
  });
});
