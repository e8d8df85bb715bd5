/**
 * Export slices are cut by size as well as by count (docs/security.md F19): a page of large
 * records is built a few records at a time, never as one value of gigabytes that SQLite
 * (SQLITE_MAX_LENGTH) or V8 cannot hold, which would fail that page on every attempt.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewActivityRecord } from '../../shared/activity-record.js';
import { pageSlices } from '../../agent/audit/record-stream.js';
import { AuditReader } from '../../agent/store/audit-reader.js';
import { xmlMark, xmlRids, startAuditFixture, type AuditFixture } from '../helpers/audit-fixture.js';

const MiB = 1024 * 1024;
const SLICE_BYTES = 3 * MiB;
let fx: AuditFixture;
let rids: string[];
/** A reader on the agent's database file (the agent's own is not exposed): the same rows. */
let reader: AuditReader;

beforeAll(async () => {
  fx = await startAuditFixture({ auditLimits: { sliceBytes: SLICE_BYTES } });
  const records: NewActivityRecord[] = Array.from({ length: 20 }, (_, i) => ({
    Who: `CORP\\user${i}`,
    Action: 'Modified',
    What: `${String(i).padStart(2, '0')}${'x'.repeat(MiB - 2)}`, // 1 MiB fields, as writes allow
    When: '2026-11-20T10:00:00Z',
    Where: 'fs',
    ObjectType: 'File',
    DataSource: 'Vigil API',
    ...(i === 7 ? { DetailList: [{ PropertyName: 'Content', Before: 'b'.repeat(MiB), After: 'a'.repeat(MiB) }] } : {}),
  }));
  await fx.insert(records);
  reader = new AuditReader({ file: fx.agent.paths.auditDb });
  rids = (
    fx.agent.audit.store.db.prepare('SELECT rid FROM activity_records ORDER BY seq').pluck().all() as string[]
  ).slice(-20);
}, 60_000);
afterAll(async () => {
  reader?.close(true);
  await fx?.stop();
});

describe('F19: slices cut by size', () => {
  it('cuts a page of 1 MiB records into slices of at most the cap; a record over the cap alone is a slice of one', async () => {
    const seqs = fx.agent.audit.store.db
      .prepare('SELECT seq FROM activity_records ORDER BY seq')
      .pluck()
      .all() as number[];
    const slices = await pageSlices(reader, seqs, SLICE_BYTES);
    expect(slices.flat()).toEqual(seqs);
    expect(slices.length).toBeGreaterThanOrEqual(7); // 20 MiB and one of 3 MiB in slices of 3 MiB
    for (const slice of slices) expect(slice.length === 1 || slice.length <= 3).toBe(true);
    const big = slices.find((s) => s.includes(seqs[seqs.length - 20 + 7]!))!;
    expect(big).toHaveLength(1);
    // Ordinary records stay 1,000 to a slice.
    expect(await pageSlices(reader, seqs, 64 * MiB)).toEqual([seqs]);
  });

  it('enumerates every record exactly once across pages, in JSON and in XML', async () => {
    const json = await fx.reader.request({ path: 'activity_records/enum?format=json&count=1000' });
    expect(json.status).toBe(200);
    const page = JSON.parse(json.body) as { ActivityRecordList: Array<{ RID: string; What: string }> };
    expect(page.ActivityRecordList.map((r) => r.RID)).toEqual(rids);
    expect(page.ActivityRecordList.every((r) => r.What.length === MiB)).toBe(true);

    const seen: string[] = [];
    let res = await fx.reader.request({ path: 'activity_records/enum?count=6' });
    for (let i = 0; i < 10 && xmlRids(res.body).length > 0; i++) {
      expect(res.status).toBe(200);
      seen.push(...xmlRids(res.body));
      const mark = xmlMark(res.body)!;
      res = await fx.reader.postXml(
        'activity_records/enum?count=6',
        `<ContinuationMark xmlns="http://schemas.vigil.dev/api/v1/activity_records/">${mark}</ContinuationMark>`,
      );
    }
    expect(seen).toEqual(rids);
  }, 60_000);
});
