/** The audit store keeps what it is given, assigns RIDs in the product's shape, and reopens. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { AuditStore, rowToRecord, type RecordRow } from '../../agent/store/audit-store.js';
import { RID_PATTERN } from '../../agent/store/rid.js';
import { SCHEMA_VERSION } from '../../agent/store/audit-schema.js';
import type { NewActivityRecord } from '../../shared/activity-record.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const sample = (i: number): NewActivityRecord => ({
  Who: 'HOST\\alice',
  Action: 'Added',
  What: `/home/alice/file-${i}.txt`,
  When: '2026-11-20T10:15:30+02:00',
  Where: 'HOST',
  ObjectType: 'File',
  DataSource: 'File System',
  MonitoringPlan: { Name: 'Local files', ID: '{42F64379-163E-4A43-A9C5-4514C5A23798}' },
  Workstation: 'HOST',
  DetailList: [{ PropertyName: 'Size', After: String(i) }],
});

describe('AuditStore', () => {
  it('stores a batch with RIDs from the record time, in UTC', () => {
    const file = path.join(makeTempDir(), 'audit.db');
    const store = AuditStore.open({ file });
    const stored = store.insertBatch([sample(1), sample(2)]);
    expect(stored).toHaveLength(2);
    for (const record of stored) {
      expect(record.RID).toMatch(RID_PATTERN);
      expect(record.RID.slice(0, 17)).toBe('20261120081530000');
      expect(record.When).toBe('2026-11-20T08:15:30Z');
    }
    expect(new Set(stored.map((r) => r.RID)).size).toBe(2);
    expect(store.count()).toBe(2);
    store.close();
  });

  it('returns exactly what it stored, in order, for batches larger than one INSERT statement', () => {
    const store = AuditStore.open({ file: path.join(makeTempDir(), 'audit.db') });
    // Mixed shapes and times (several seconds, an offset) across 3 multi-row slices and a rest.
    const input: NewActivityRecord[] = Array.from({ length: 101 }, (_, i) => {
      const { MonitoringPlan, DetailList, ...base } = sample(i);
      const record: NewActivityRecord = {
        ...base,
        When: `2026-11-20T10:15:${String(30 + (i % 7)).padStart(2, '0')}+02:00`,
      };
      if (i % 2 === 0) record.MonitoringPlan = i % 4 === 0 ? MonitoringPlan! : { Name: 'No id' };
      if (i % 3 === 0) record.DetailList = DetailList!;
      if (i % 5 === 0) record.Item = { Name: `/home/alice/${i}` };
      if (i % 11 === 0) delete record.Workstation;
      return record;
    });
    const first = store.insertBatch(input.slice(0, 40));
    const second = store.insertBatch(input.slice(40));
    const rows = store.db.prepare('SELECT * FROM activity_records ORDER BY seq').all() as RecordRow[];
    expect(rows.map(rowToRecord)).toEqual([...first, ...second]);
    expect(first[7]!.When).toBe('2026-11-20T08:15:30Z');
    expect(rows[99]!.what).toBe('/home/alice/file-99.txt');
    store.close();
  });

  it('reopens with the records kept, in WAL mode at the current schema version', () => {
    const file = path.join(makeTempDir(), 'audit.db');
    const first = AuditStore.open({ file });
    first.insertBatch(Array.from({ length: 100 }, (_, i) => sample(i)));
    first.close();
    const second = AuditStore.open({ file });
    expect(second.count()).toBe(100);
    expect(second.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(second.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    second.close();
  });

  it('rolls back the whole batch when one record is bad', () => {
    const store = AuditStore.open({ file: path.join(makeTempDir(), 'audit.db') });
    expect(() => store.insertBatch([sample(1), { ...sample(2), When: 'yesterday' }])).toThrow(/not a date/);
    expect(store.count()).toBe(0);
    store.close();
  });

  it('refuses a database written by a newer version', () => {
    const file = path.join(makeTempDir(), 'audit.db');
    const raw = new Database(file);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 5}`);
    raw.close();
    expect(() => AuditStore.open({ file })).toThrow(/newer than this Vigil understands/);
  });
});
