/** The fast row serializers write exactly what the object path writes. */
import fc from 'fast-check';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditStore, rowToRecord, type RecordRow } from '../../agent/store/audit-store.js';
import type { RawRecordRow } from '../../agent/store/audit-reader.js';
import { RECORD_JSON_SQL, rawToRecord, recordsJson } from '../../agent/store/raw-record.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { recordArbitrary } from '../helpers/record-arbitrary.js';

const text = fc.string({ unit: 'binary', minLength: 1, maxLength: 20 });
const recordArb = recordArbitrary(text);

describe('raw record serializers', () => {
  it('equal JSON.stringify(rowToRecord(row)) and rowToRecord for any stored record, in JS and in SQL', () => {
    const store = AuditStore.open({ file: path.join(makeTempDir(), 'audit.db'), synchronous: 'NORMAL' });
    const objects = store.db.prepare('SELECT * FROM activity_records WHERE seq = ?');
    const raw = store.db
      .prepare(
        'SELECT seq, rid, when_ms, who, action, what, location, object_type, data_source, plan_name, plan_id, item_name, workstation, details FROM activity_records WHERE seq = ?',
      )
      .raw(true);
    const sqlJson = store.db.prepare(`SELECT ${RECORD_JSON_SQL} FROM activity_records WHERE seq = ?`).pluck();
    fc.assert(
      fc.property(recordArb, (record) => {
        store.insertBatch([record]);
        const seq = store.db.prepare('SELECT max(seq) FROM activity_records').pluck().get() as number;
        const row = objects.get(seq) as RecordRow;
        const array = raw.get(seq) as RawRecordRow;
        expect(sqlJson.get(seq)).toBe(JSON.stringify(rowToRecord(row)));
        expect(rawToRecord(array)).toEqual(rowToRecord(row));
      }),
      { numRuns: 300 },
    );
    store.close();
  });

  it('join the records of a slice in seq order, contiguous or not', () => {
    const store = AuditStore.open({ file: path.join(makeTempDir(), 'audit.db'), synchronous: 'NORMAL' });
    const records = fc.sample(recordArb, { numRuns: 2500, seed: 42 });
    for (let i = 0; i < records.length; i += 500) store.insertBatch(records.slice(i, i + 500));
    const rows = store.db.prepare('SELECT * FROM activity_records ORDER BY seq').all() as RecordRow[];
    const expected = (seqs: number[]): string =>
      seqs.map((seq) => JSON.stringify(rowToRecord(rows.find((row) => row.seq === seq)!))).join(',');
    const prepare = (sql: string) => store.db.prepare(sql);
    const contiguous = Array.from({ length: 1000 }, (_, i) => 700 + i);
    expect(recordsJson(contiguous, prepare).toString('utf8')).toBe(expected(contiguous));
    const sparse = contiguous.filter((seq) => seq % 3 !== 0 && seq % 7 !== 1);
    expect(recordsJson(sparse, prepare).toString('utf8')).toBe(expected(sparse));
    expect(recordsJson([999_999], prepare)).toHaveLength(0);
    store.close();
  });
});
