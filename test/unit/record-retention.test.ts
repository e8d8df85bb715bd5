/** Retention deletes records older than the configured age, in small batches, and nothing newer. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditStore } from '../../agent/store/audit-store.js';
import { RecordRetention } from '../../agent/store/record-retention.js';
import { silentLogger } from '../../agent/log/logger.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const DAY = 86_400_000;

describe('RecordRetention', () => {
  it('deletes records past retention in batches and keeps the rest', async () => {
    const store = AuditStore.open({ file: path.join(makeTempDir(), 'audit.db') });
    const now = Date.parse('2026-11-22T12:00:00Z');
    const record = (ageDays: number, i: number) => ({
      Who: 'H\\u',
      Action: 'Added',
      What: `/f/${ageDays}-${i}`,
      When: new Date(now - ageDays * DAY).toISOString(),
      Where: 'H',
      ObjectType: 'File',
      DataSource: 'File System',
    });
    store.insertBatch(Array.from({ length: 2500 }, (_, i) => record(40, i)));
    store.insertBatch(Array.from({ length: 300 }, (_, i) => record(29, i)));
    let batches = 0;
    const original = store.deleteOlderThan.bind(store);
    store.deleteOlderThan = (cutoff, limit) => {
      batches++;
      return original(cutoff, limit);
    };
    const retention = new RecordRetention({
      store,
      retentionDays: () => 30,
      log: silentLogger,
      batchSize: 1000,
      now: () => now,
    });
    expect(await retention.runOnce()).toBe(2500);
    expect(batches).toBe(3);
    expect(store.count()).toBe(300);
    expect(await retention.runOnce()).toBe(0);
    await retention.stop();
    store.close();
  });
});
