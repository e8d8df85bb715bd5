/** The pipeline: nothing accepted is lost, batches are transactions, full queues make callers wait. */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditStore } from '../../agent/store/audit-store.js';
import { Pipeline, PipelineStoppedError, type OutputStage } from '../../agent/pipeline/pipeline.js';
import type { PipelineItem, StoredItem } from '../../agent/pipeline/pipeline-item.js';
import { LiveFeed } from '../../agent/pipeline/live-feed.js';
import { silentLogger } from '../../agent/log/logger.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const stores: AuditStore[] = [];
afterEach(() => stores.splice(0).forEach((s) => s.close()));

function openStore(): AuditStore {
  const store = AuditStore.open({ file: path.join(makeTempDir(), 'audit.db') });
  stores.push(store);
  return store;
}

const item = (i: number, what = `/w/file-${i}`): PipelineItem => ({
  record: {
    Who: 'HOST\\user',
    Action: 'Added',
    What: what,
    When: '2026-11-22T10:00:00Z',
    Where: 'HOST',
    ObjectType: 'File',
    DataSource: 'File System',
  },
  timeMs: Date.parse('2026-11-22T10:00:00Z'),
  hostId: 'h1',
});

describe('Pipeline', () => {
  it('makes submitters wait when the queue is full, then commits everything in batches', async () => {
    const store = openStore();
    const pipeline = new Pipeline({ store, log: silentLogger, maxQueuedItems: 10, maxBatchItems: 4 });
    const done = Array.from({ length: 30 }, (_, i) => pipeline.write([item(i)]));
    expect(pipeline.stats()).toMatchObject({ queuedRecords: 10, waitingSubmissions: 20 });
    const stored = await Promise.all(done);
    expect(stored.flat().map((r) => r.What)).toEqual(Array.from({ length: 30 }, (_, i) => `/w/file-${i}`));
    expect(store.count()).toBe(30);
    expect(pipeline.stats()).toMatchObject({ committedRecords: 30, batches: 8, queuedRecords: 0, rejectedRecords: 0 });
  });

  it('commits state given with a submission in the same transaction, or neither', async () => {
    const store = openStore();
    store.db.exec('CREATE TABLE side (n INTEGER)');
    const pipeline = new Pipeline({ store, log: silentLogger });
    const good = pipeline.submit({ items: [item(1)], commitWith: () => store.db.exec('INSERT INTO side VALUES (1)') });
    const bad = pipeline.submit({
      items: [item(2)],
      commitWith: () => {
        store.db.exec('INSERT INTO side VALUES (2)');
        throw new Error('derived state is inconsistent');
      },
    });
    const after = pipeline.write([item(3)]);
    await expect(good).resolves.toHaveLength(1);
    await expect(bad).rejects.toThrow('derived state is inconsistent');
    await expect(after).resolves.toHaveLength(1);
    expect(store.db.prepare('SELECT n FROM side').all()).toEqual([{ n: 1 }]);
    expect(store.count()).toBe(2);
    expect(pipeline.stats().rejectedRecords).toBe(1);
  });

  it('keeps a batch and retries it while the disk is full, losing nothing', async () => {
    const store = openStore();
    const problems: Array<string | null> = [];
    const pipeline = new Pipeline({
      store,
      log: silentLogger,
      onWriteProblem: (error) => problems.push(error ? error.message : null),
    });
    const pages = store.db.pragma('page_count', { simple: true }) as number;
    store.db.pragma(`max_page_count = ${pages}`);
    const written = pipeline.write(Array.from({ length: 50 }, (_, i) => item(i, `/w/${'x'.repeat(4000)}-${i}`)));
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(store.count()).toBe(0);
    expect(pipeline.stats().failedBatches).toBeGreaterThan(0);
    expect(problems[0]).toMatch(/full/);
    store.db.pragma('max_page_count = 1073741823');
    await expect(written).resolves.toHaveLength(50);
    expect(store.count()).toBe(50);
    expect(problems.at(-1)).toBeNull();
  });

  it('undoes what an output wrote when the transaction fails, and tells outputs only after COMMIT', async () => {
    const store = openStore();
    const calls: string[] = [];
    const outputs: OutputStage = {
      writeInTransaction: (items: readonly StoredItem[]) => calls.push(`write ${items.length}`),
      rollback: () => calls.push('rollback'),
      committed: (items: readonly StoredItem[]) => calls.push(`committed ${items.length}`),
    };
    const pipeline = new Pipeline({ store, outputs, log: silentLogger });
    await pipeline.write([item(1), item(2)]);
    await pipeline
      .submit({
        items: [item(3)],
        commitWith: () => {
          throw new Error('no');
        },
      })
      .catch(() => undefined);
    expect(calls).toEqual(['write 2', 'committed 2', 'rollback']);
  });

  it('refuses a record whose time is not a date without holding up the others', async () => {
    const store = openStore();
    const pipeline = new Pipeline({ store, log: silentLogger });
    const bad = item(1);
    bad.record.When = 'yesterday';
    await expect(pipeline.write([bad])).rejects.toThrow('record 0: time "yesterday" is not a date');
    await expect(pipeline.write([item(2)])).resolves.toHaveLength(1);
  });

  it('commits what is queued on stop and then refuses new records', async () => {
    const store = openStore();
    const pipeline = new Pipeline({ store, log: silentLogger, maxBatchItems: 10 });
    const queued = Array.from({ length: 100 }, (_, i) => pipeline.write([item(i)]));
    await pipeline.stop();
    await Promise.all(queued);
    expect(store.count()).toBe(100);
    await expect(pipeline.write([item(101)])).rejects.toBeInstanceOf(PipelineStoppedError);
  });

  it('publishes committed records on the live feed, in commit order', async () => {
    const store = openStore();
    const pipeline = new Pipeline({ store, log: silentLogger });
    const seen: string[] = [];
    const unsubscribe = pipeline.feed.subscribe((records) => seen.push(...records.map((r) => r.What)));
    await Promise.all([pipeline.write([item(1)]), pipeline.write([item(2), item(3)])]);
    unsubscribe();
    await pipeline.write([item(4)]);
    expect(seen).toEqual(['/w/file-1', '/w/file-2', '/w/file-3']);
  });

  it('gives records committed by another writer the same after-commit path, with no host', () => {
    const store = openStore();
    const handed: StoredItem[] = [];
    const outputs: OutputStage = {
      writeInTransaction: () => undefined,
      rollback: () => undefined,
      committed: (items) => handed.push(...items),
    };
    const counted: StoredItem[] = [];
    const pipeline = new Pipeline({
      store,
      outputs,
      log: silentLogger,
      onCommitted: (items) => counted.push(...items),
    });
    const seen: string[] = [];
    pipeline.feed.subscribe((records) => seen.push(...records.map((r) => r.What)));
    const [stored] = store.insertBatch([{ ...item(7).record, DataSource: 'Vigil API' }]);
    pipeline.committedElsewhere([stored!]);
    expect(seen).toEqual(['/w/file-7']);
    expect(handed).toHaveLength(1);
    expect(handed[0]).toMatchObject({ stored, timeMs: Date.parse(stored!.When) });
    expect(handed[0]!.hostId).toBeUndefined();
    expect(counted).toHaveLength(1);
    expect(pipeline.stats().committedRecords).toBe(0);
  });
});

describe('LiveFeed.stream', () => {
  it('gives a slow reader the newest records and counts what it missed, without blocking the writer', async () => {
    const feed = new LiveFeed();
    const controller = new AbortController();
    const reader = feed.stream({ signal: controller.signal, maxBuffered: 3 });
    const first = reader.next();
    const record = (n: number) => ({ ...item(n).record, RID: String(n) });
    feed.publish([record(1)]);
    expect((await first).value).toEqual({ records: [record(1)], dropped: 0 });
    feed.publish([record(2), record(3), record(4), record(5), record(6)]);
    expect((await reader.next()).value).toEqual({ records: [record(4), record(5), record(6)], dropped: 2 });
    controller.abort();
    const end = await reader.next();
    expect(end.done).toBe(true);
    expect(feed.subscriberCount).toBe(0);
  });
});
