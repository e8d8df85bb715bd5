/**
 * Tamper evidence (docs/integrity.md): `vigil verify`, run as the real command, passes an
 * untouched audit database and names each kind of tampering; the chain survives a schema
 * migration, the audit API's writer thread and retention without a false alarm.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditStore } from '../../agent/store/audit-store.js';
import { AuditWriter } from '../../agent/store/audit-writer.js';
import { MIGRATIONS } from '../../agent/store/audit-schema.js';
import { RecordRetention } from '../../agent/store/record-retention.js';
import { ChainCheckpoints } from '../../agent/integrity/chain-checkpoints.js';
import { SigningKey } from '../../agent/integrity/signing-key.js';
import { silentLogger } from '../../agent/log/logger.js';
import type { NewActivityRecord } from '../../shared/activity-record.js';
import { runVigil } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';

interface Report {
  ok: boolean;
  verified: Array<{ file: string; from: number; to: number }>;
  problems: Array<{ file?: string; rid?: string; line?: number; kind: string; detail: string }>;
}

const open: Array<{ close(): void }> = [];
afterEach(() => {
  for (const item of open.splice(0)) item.close();
});

function record(i: number, when = '2026-11-20T10:00:00Z'): NewActivityRecord {
  return {
    Who: 'HOST\\alice',
    Action: 'Modified',
    What: `/home/alice/file-${i}.txt`,
    When: when,
    Where: 'HOST',
    ObjectType: 'File',
    DataSource: 'File System',
    ...(i % 3 === 0 ? { DetailList: [{ PropertyName: 'Size', Before: String(i), After: String(i + 1) }] } : {}),
  };
}

/** A data dir with `count` records in batches and a signed head checkpoint. */
async function dataDirWithRecords(count = 60): Promise<{ dataDir: string; store: AuditStore; key: SigningKey }> {
  const dataDir = makeTempDir();
  const store = AuditStore.open({ file: path.join(dataDir, 'audit.db') });
  open.push(store);
  const key = await SigningKey.load(path.join(dataDir, 'secrets'));
  for (let at = 0; at < count; at += 20) {
    store.insertBatch(Array.from({ length: Math.min(20, count - at) }, (_, i) => record(at + i)));
  }
  new ChainCheckpoints(store, key, silentLogger).checkpoint();
  return { dataDir, store, key };
}

async function verify(args: string[], expectedCode: number): Promise<Report> {
  const run = await runVigil(['verify', ...args]);
  expect(run.stderr).toBe('');
  expect(run.code, run.stdout).toBe(expectedCode);
  return JSON.parse(run.stdout) as Report;
}

function sql(dataDir: string, statement: string, ...params: unknown[]): void {
  const db = new Database(path.join(dataDir, 'audit.db'));
  db.prepare(statement).run(...params);
  db.close();
}

function rid(dataDir: string, seq: number): string {
  const db = new Database(path.join(dataDir, 'audit.db'), { readonly: true });
  const row = db.prepare('SELECT rid FROM activity_records WHERE seq = ?').get(seq) as { rid: string };
  db.close();
  return row.rid;
}

describe('vigil verify: the audit database', () => {
  it('passes an untouched store, reporting the records it checked', async () => {
    const { dataDir } = await dataDirWithRecords();
    const report = await verify(['--data-dir', dataDir], 0);
    expect(report).toEqual({ ok: true, verified: [{ file: 'audit.db', from: 1, to: 60 }], problems: [] });
  });

  it('passes records holding half a surrogate pair, stored by SQLite as U+FFFD (no false alarm)', async () => {
    const { dataDir, store, key } = await dataDirWithRecords(20);
    store.insertBatch([
      { ...record(100), What: '/home/alice/half \ud83d pair', Who: 'HOST\\\udc00' },
      { ...record(101), DetailList: [{ PropertyName: 'Name', Before: '\ud800', After: 'x' }] },
    ]);
    new ChainCheckpoints(store, key, silentLogger).checkpoint();
    const report = await verify(['--data-dir', dataDir], 0);
    expect(report.problems).toEqual([]);
  });

  it('names a record one byte of which was changed with SQL', async () => {
    const { dataDir } = await dataDirWithRecords();
    sql(dataDir, "UPDATE activity_records SET what = replace(what, 'file-17', 'file-18') WHERE seq = 18");
    const report = await verify(['--data-dir', dataDir], 1);
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([expect.objectContaining({ rid: rid(dataDir, 18), line: 18, kind: 'changed' })]);
    expect(report.verified).toEqual([
      { file: 'audit.db', from: 1, to: 17 },
      { file: 'audit.db', from: 19, to: 60 },
    ]);
  });

  it('names a record removed from the database', async () => {
    const { dataDir } = await dataDirWithRecords();
    sql(dataDir, 'DELETE FROM activity_records WHERE seq = 30');
    const report = await verify(['--data-dir', dataDir], 1);
    expect(report.problems).toEqual([expect.objectContaining({ rid: rid(dataDir, 31), line: 31, kind: 'removed' })]);
  });

  it('names two records that swapped places', async () => {
    const { dataDir } = await dataDirWithRecords();
    const db = new Database(path.join(dataDir, 'audit.db'));
    db.transaction(() => {
      db.prepare('UPDATE activity_records SET seq = -1 WHERE seq = 10').run();
      db.prepare('UPDATE activity_records SET seq = 10 WHERE seq = 11').run();
      db.prepare('UPDATE activity_records SET seq = 11 WHERE seq = -1').run();
    })();
    db.close();
    const report = await verify(['--data-dir', dataDir], 1);
    expect(report.problems.map((p) => p.kind)).toContain('reordered');
    expect(new Set(report.problems.map((p) => p.kind))).toEqual(new Set(['reordered']));
    expect(report.problems.map((p) => p.line)).toEqual(expect.arrayContaining([10, 11]));
  });

  it('names a record inserted between two others', async () => {
    const { dataDir } = await dataDirWithRecords();
    // Make room at seq 21 by removing nothing: move the tail up by one.
    const db = new Database(path.join(dataDir, 'audit.db'));
    db.transaction(() => {
      db.prepare('UPDATE activity_records SET seq = -seq WHERE seq > 20').run();
      db.prepare('UPDATE activity_records SET seq = 1 - seq WHERE seq < 0').run();
      db.prepare(
        `INSERT INTO activity_records (seq, rid, when_ms, who, action, what, location, object_type, data_source, chain)
         SELECT 21, rid || 'x', when_ms, who, 'Removed', what, location, object_type, data_source, randomblob(32)
           FROM activity_records WHERE seq = 20`,
      ).run();
      db.prepare("DELETE FROM chain_checkpoints WHERE kind = 'head'").run();
    })();
    db.close();
    const report = await verify(['--data-dir', dataDir], 1);
    expect(report.problems).toEqual([expect.objectContaining({ line: 21, kind: 'inserted' })]);
  });

  it('reports the newest records cut off past a signed checkpoint as truncated', async () => {
    const { dataDir } = await dataDirWithRecords();
    sql(dataDir, 'DELETE FROM activity_records WHERE seq > 50');
    const report = await verify(['--data-dir', dataDir], 1);
    expect(report.problems).toEqual([expect.objectContaining({ line: 60, kind: 'truncated' })]);
  });

  it('catches a chain recomputed after an edit: it no longer matches the signed checkpoint', async () => {
    const { dataDir, store } = await dataDirWithRecords();
    store.close();
    const db = new Database(path.join(dataDir, 'audit.db'));
    db.prepare("UPDATE activity_records SET who = 'HOST\\mallory' WHERE seq = 5").run();
    // Recompute every chain value after the edit, as an intruder who read docs/integrity.md would.
    const { CANONICAL_COLUMNS, GENESIS, canonicalRecord, nextChain, rowValues } =
      await import('../../agent/store/record-chain.js');
    let chain = GENESIS;
    for (const row of db.prepare(`SELECT seq, ${CANONICAL_COLUMNS} FROM activity_records ORDER BY seq`).all()) {
      chain = nextChain(chain, canonicalRecord(rowValues(row as Parameters<typeof rowValues>[0])));
      db.prepare('UPDATE activity_records SET chain = ? WHERE seq = ?').run(chain, (row as { seq: number }).seq);
    }
    db.close();
    const report = await verify(['--data-dir', dataDir], 1);
    expect(report.problems).toEqual([expect.objectContaining({ line: 60, kind: 'changed' })]);
  });

  it('names a checkpoint whose signature was altered', async () => {
    const { dataDir } = await dataDirWithRecords();
    sql(dataDir, 'UPDATE chain_checkpoints SET time_ms = time_ms + 1');
    const report = await verify(['--data-dir', dataDir], 1);
    expect(report.problems).toEqual([expect.objectContaining({ line: 60, kind: 'signature' })]);
  });

  it('checks a copy taken elsewhere with the public key alone, and refuses another key', async () => {
    const { dataDir, key, store } = await dataDirWithRecords();
    store.close();
    const elsewhere = makeTempDir();
    fs.copyFileSync(path.join(dataDir, 'audit.db'), path.join(elsewhere, 'audit.db'));
    const pem = path.join(makeTempDir(), 'agent.pem');
    fs.writeFileSync(pem, key.publicKeyPem);
    expect((await verify(['--data-dir', elsewhere, '--public-key', pem], 0)).ok).toBe(true);

    const other = crypto.generateKeyPairSync('ed25519').publicKey.export({ format: 'pem', type: 'spki' });
    fs.writeFileSync(pem, other);
    const report = await verify(['--data-dir', elsewhere, '--public-key', pem], 1);
    expect(report.problems.map((p) => p.kind)).toEqual(['signature']);
  });

  it('tells retention from an intruder: a signed retention deletion passes, deleting the oldest records does not', async () => {
    const dataDir = makeTempDir();
    const store = AuditStore.open({ file: path.join(dataDir, 'audit.db') });
    open.push(store);
    const key = await SigningKey.load(path.join(dataDir, 'secrets'));
    const checkpoints = new ChainCheckpoints(store, key, silentLogger);
    store.insertBatch(Array.from({ length: 30 }, (_, i) => record(i, '2026-09-01T10:00:00Z')));
    store.insertBatch(Array.from({ length: 30 }, (_, i) => record(100 + i, '2026-11-20T10:00:00Z')));
    const retention = new RecordRetention({
      store,
      retentionDays: () => 30,
      log: silentLogger,
      batchSize: 7,
      now: () => Date.parse('2026-11-22T00:00:00Z'),
      recordDeletion: checkpoints.recordRetention,
    });
    expect(await retention.runOnce()).toBe(30);
    checkpoints.checkpoint();
    expect(await verify(['--data-dir', dataDir], 0)).toEqual({
      ok: true,
      verified: [{ file: 'audit.db', from: 31, to: 60 }],
      problems: [],
    });

    sql(dataDir, 'DELETE FROM activity_records WHERE seq < 35');
    const report = await verify(['--data-dir', dataDir], 1);
    expect(report.problems).toEqual([expect.objectContaining({ line: 35, kind: 'removed' })]);
  });
});

describe('the chain', () => {
  it('chains the records of a database written before tamper evidence, once, at migration', async () => {
    const dataDir = makeTempDir();
    const file = path.join(dataDir, 'audit.db');
    const old = new Database(file);
    MIGRATIONS[0]!(old);
    MIGRATIONS[1]!(old);
    old.pragma('user_version = 2');
    const insert = old.prepare(
      `INSERT INTO activity_records (rid, when_ms, who, action, what, location, object_type, data_source)
       VALUES (?, ?, 'H\\u', 'Added', ?, 'H', 'File', 'File System')`,
    );
    for (let i = 0; i < 25; i++) insert.run(`old-${i}`, 1_700_000_000_000 + i, `/old/${i}`);
    old.close();

    const store = AuditStore.open({ file });
    open.push(store);
    store.insertBatch([record(1)]);
    store.close();
    expect(await verify(['--data-dir', dataDir], 0)).toMatchObject({
      ok: true,
      verified: [{ file: 'audit.db', from: 1, to: 26 }],
    });
  });

  it('is one chain across the pipeline connection and the audit writer thread writing at the same time', async () => {
    const dataDir = makeTempDir();
    const file = path.join(dataDir, 'audit.db');
    const store = AuditStore.open({ file });
    open.push(store);
    const writer = new AuditWriter(file);
    const writes: Array<Promise<unknown>> = [];
    for (let i = 0; i < 40; i++) {
      writes.push(writer.write(Array.from({ length: 25 }, (_, j) => record(10_000 + i * 25 + j))));
      store.insertBatch(Array.from({ length: 25 }, (_, j) => record(i * 25 + j)));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(writes);
    await writer.close();
    expect(store.count()).toBe(2000);
    expect(await verify(['--data-dir', dataDir], 0)).toMatchObject({
      ok: true,
      verified: [{ file: 'audit.db', from: 1, to: 2000 }],
    });
  });
});
