/**
 * F10 (docs/security.md): a long read transaction held open while records keep arriving
 * (a slow export, a backup) makes the audit database's WAL grow, since no checkpoint can pass
 * the reader. Once the reader ends, the WAL must shrink back to a bounded size instead of
 * keeping its peak size on disk for ever (`journal_size_limit`).
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import type { NewActivityRecord } from '../../../shared/activity-record.js';
import { AuditStore, WAL_SIZE_LIMIT } from '../../../agent/store/audit-store.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

const batch = (n: number, label: string): NewActivityRecord[] =>
  Array.from({ length: n }, (_, i) => ({
    Who: `HOST\\${label}`,
    Action: 'Added',
    What: `/wal/${label}/${i}/${'w'.repeat(4000)}`,
    When: '2026-11-20T10:00:00Z',
    Where: 'wal-host',
    ObjectType: 'File',
    DataSource: 'File System',
  }));

it('F10 a reader held open while writing lets the WAL grow; after it ends the WAL shrinks back under the limit', () => {
  const file = path.join(makeTempDir(), 'audit.db');
  const store = AuditStore.open({ file });
  const wal = `${file}-wal`;
  try {
    store.insertBatch(batch(10, 'first'));
    const reader = new Database(file, { readonly: true });
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM activity_records').get(); // the snapshot is taken here
    const perBatch = 1000;
    while (fs.statSync(wal).size <= WAL_SIZE_LIMIT * 1.25) store.insertBatch(batch(perBatch, 'during'));
    const peak = fs.statSync(wal).size;
    reader.exec('COMMIT');
    reader.close();
    // The next commits checkpoint everything, restart the WAL and cut it back.
    for (let i = 0; i < 3; i++) store.insertBatch(batch(5, `after-${i}`));
    const after = fs.statSync(wal).size;
    expect(peak).toBeGreaterThan(WAL_SIZE_LIMIT);
    expect(after).toBeLessThanOrEqual(WAL_SIZE_LIMIT);
    expect(store.db.pragma('integrity_check', { simple: true })).toBe('ok');
  } finally {
    store.close();
  }
}, 60_000);
