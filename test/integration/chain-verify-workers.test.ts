/**
 * `vigil verify` splits the audit database over worker threads, each checking one `seq` range
 * (agent/integrity/verify-range.ts): it must find exactly what one thread finds, tampering at
 * the ranges' edges included, and pass an untouched store and one cut by signed retention.
 */
import crypto from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyStore } from '../../agent/integrity/verify-store.js';
import { ChainCheckpoints } from '../../agent/integrity/chain-checkpoints.js';
import { SigningKey } from '../../agent/integrity/signing-key.js';
import { silentLogger } from '../../agent/log/logger.js';
import { AuditStore } from '../../agent/store/audit-store.js';
import { RecordRetention } from '../../agent/store/record-retention.js';
import type { NewActivityRecord } from '../../shared/activity-record.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const open: Array<{ close(): void }> = [];
afterEach(() => {
  for (const item of open.splice(0)) item.close();
});

/** 3 workers over 3,000 records: ranges start at seq 1, 1001 and 2001. */
const RECORDS = 3000;
const WORKERS = 3;
/** Threads started from the TypeScript sources compile their modules first: seconds each on a busy machine. */
const WITH_THREADS = { timeout: 120_000 };

function record(i: number, when = '2026-11-20T10:00:00Z'): NewActivityRecord {
  return {
    Who: 'HOST\\alice',
    Action: 'Modified',
    What: `/home/alice/file-${i}.txt`,
    When: when,
    Where: 'HOST',
    ObjectType: 'File',
    DataSource: 'File System',
    ...(i % 7 === 0 ? { DetailList: [{ PropertyName: 'Size', Before: String(i), After: String(i + 1) }] } : {}),
  };
}

async function storeWithRecords(): Promise<{ file: string; publicKey: crypto.KeyObject }> {
  const dataDir = makeTempDir();
  const file = path.join(dataDir, 'audit.db');
  const store = AuditStore.open({ file });
  open.push(store);
  const key = await SigningKey.load(path.join(dataDir, 'secrets'));
  for (let at = 0; at < RECORDS; at += 500) store.insertBatch(Array.from({ length: 500 }, (_, i) => record(at + i)));
  new ChainCheckpoints(store, key, silentLogger).checkpoint();
  return { file, publicKey: crypto.createPublicKey(key.publicKeyPem) };
}

function tamper(file: string, ...statements: string[]): void {
  const db = new Database(file);
  db.transaction(() => {
    for (const statement of statements) db.prepare(statement).run();
  })();
  db.close();
}

describe('vigil verify over worker threads', () => {
  it('names the same problems as one thread, at the edges between ranges too', WITH_THREADS, async () => {
    const { file, publicKey } = await storeWithRecords();
    tamper(
      file,
      // changed: the first record of the third range, and one inside the first
      "UPDATE activity_records SET what = what || 'x' WHERE seq IN (500, 2001)",
      // removed: the record just before the second range
      'DELETE FROM activity_records WHERE seq = 1000',
      // reordered: inside the second range
      'UPDATE activity_records SET seq = -1 WHERE seq = 1500',
      'UPDATE activity_records SET seq = 1500 WHERE seq = 1501',
      'UPDATE activity_records SET seq = 1501 WHERE seq = -1',
    );
    const one = await verifyStore(file, publicKey, { workers: 1 });
    const many = await verifyStore(file, publicKey, { workers: WORKERS });
    expect(many).toEqual(one);
    expect(one.records).toBe(RECORDS - 1);
    const kinds = new Map(one.problems.map((p) => [p.line, p.kind]));
    expect(kinds.get(500)).toBe('changed');
    expect(kinds.get(2001)).toBe('changed');
    expect(kinds.get(1001)).toBe('removed');
    expect([kinds.get(1500), kinds.get(1501)]).toContain('reordered');
  });

  it(
    'names the same when this thread takes ranges too once its other work (the log files) is done',
    WITH_THREADS,
    async () => {
      const { file, publicKey } = await storeWithRecords();
      tamper(
        file,
        "UPDATE activity_records SET what = what || 'x' WHERE seq IN (2, 1700)",
        'DELETE FROM activity_records WHERE seq = 2999',
      );
      const one = await verifyStore(file, publicKey, { workers: 1 });
      // The other work ends at once (this thread checks most ranges) or late (the worker does).
      for (const alongside of [Promise.resolve(), new Promise((resolve) => setTimeout(resolve, 1500))]) {
        expect(await verifyStore(file, publicKey, { workers: 1, alongside })).toEqual(one);
      }
      expect(one.problems.map((p) => [p.line, p.kind])).toEqual([
        [2, 'changed'],
        [1700, 'changed'],
        [3000, 'removed'],
      ]);
    },
  );

  it(
    'passes a store whose oldest records signed retention deleted, and names an intruder deleting more',
    WITH_THREADS,
    async () => {
      const dataDir = makeTempDir();
      const file = path.join(dataDir, 'audit.db');
      const store = AuditStore.open({ file });
      open.push(store);
      const key = await SigningKey.load(path.join(dataDir, 'secrets'));
      const checkpoints = new ChainCheckpoints(store, key, silentLogger);
      store.insertBatch(Array.from({ length: 1000 }, (_, i) => record(i, '2026-09-01T10:00:00Z')));
      store.insertBatch(Array.from({ length: 2000 }, (_, i) => record(1000 + i)));
      const retention = new RecordRetention({
        store,
        retentionDays: () => 30,
        log: silentLogger,
        batchSize: 400,
        now: () => Date.parse('2026-11-22T00:00:00Z'),
        recordDeletion: checkpoints.recordRetention,
      });
      expect(await retention.runOnce()).toBe(1000);
      checkpoints.checkpoint();
      const publicKey = crypto.createPublicKey(key.publicKeyPem);
      expect(await verifyStore(file, publicKey, { workers: WORKERS })).toEqual({
        problems: [],
        verified: [{ file: 'audit.db', from: 1001, to: 3000 }],
        records: 2000,
      });

      tamper(file, 'DELETE FROM activity_records WHERE seq < 1200');
      const many = await verifyStore(file, publicKey, { workers: WORKERS });
      expect(many).toEqual(await verifyStore(file, publicKey, { workers: 1 }));
      expect(many.problems).toEqual([expect.objectContaining({ line: 1200, kind: 'removed' })]);
    },
  );

  it('judges each record by its values, not by how SQLite writes them: same values pass, a value SQLite cannot write as JSON is named', async () => {
    const dataDir = makeTempDir();
    const file = path.join(dataDir, 'audit.db');
    const store = AuditStore.open({ file });
    open.push(store);
    const odd = ['quote " and back\\slash', 'controls \u0001\b\t\n\f\r\u001f\u007f', 'line \u2028 \u00e9 \u{1f600}'];
    store.insertBatch(Array.from({ length: 300 }, (_, i) => ({ ...record(i), What: `${odd[i % 3]!} ${i}` })));
    // The same times stored as floating point: SQLite's JSON writes them as 1.7e12-style reals
    tamper(file, 'UPDATE activity_records SET when_ms = when_ms + 0.0 WHERE seq BETWEEN 100 AND 120');
    expect(await verifyStore(file, null, { workers: 1 })).toEqual({
      problems: [],
      verified: [{ file: 'audit.db', from: 1, to: 300 }],
      records: 300,
    });
    tamper(file, 'UPDATE activity_records SET what = CAST(what AS BLOB) WHERE seq = 200');
    const check = await verifyStore(file, null, { workers: 1 });
    expect(check.problems).toEqual([expect.objectContaining({ line: 200, kind: 'changed' })]);
  });
});
