/**
 * Paging with continuation marks (docs/audit-api.md): 10,000 records in pages of 777 with every RID
 * seen once, in XML and JSON; paging while records are being written; the empty last page; a
 * kept mark that returns records written later; a search mark continued on enum; marks that
 * survive an agent restart; forged and edited marks refused.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewActivityRecord } from '../../shared/activity-record.js';
import {
  startAuditFixture,
  recordsNs,
  xmlMark,
  xmlRids,
  xmlError,
  type AuditFixture,
} from '../helpers/audit-fixture.js';
import { validateResponse } from '../helpers/xml-schema.js';
import { AuditClient } from '../helpers/audit-client.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { startTestAgent } from '../helpers/test-agent.js';
import { addUsersOffline, PASSWORD } from '../helpers/audit-fixture.js';

const record = (i: number, who = `HOST\\user${i % 50}`): NewActivityRecord => ({
  Who: who,
  Action: i % 2 ? 'Added' : 'Modified',
  What: `/data/file-${i}.txt`,
  When: new Date(Date.UTC(2026, 10, 1) + i * 1000).toISOString(),
  Where: 'host',
  ObjectType: 'File',
  DataSource: 'File System',
});

let fx: AuditFixture;
beforeAll(async () => {
  // Searches yield after every step here, so every request also runs the "client went away" check.
  fx = await startAuditFixture({ auditStepMs: 0 });
  await fx.insert(Array.from({ length: 10_000 }, (_, i) => record(i)));
});
afterAll(() => fx?.stop());

interface JsonPage {
  ActivityRecordList: Array<{ RID: string; Who: string }>;
  ContinuationMark?: string;
}

async function enumJson(count: number, mark?: string): Promise<JsonPage> {
  const res = mark
    ? await fx.reader.postJson(`activity_records/enum?count=${count}`, mark)
    : await fx.reader.request({ path: `activity_records/enum?format=json&count=${count}` });
  expect(res.status, res.body).toBe(200);
  return JSON.parse(res.body) as JsonPage;
}

describe('paging through 10,000 records in pages of 777', () => {
  it('JSON: every RID exactly once, then an empty page', async () => {
    const seen: string[] = [];
    let page = await enumJson(777);
    let pages = 0;
    while (page.ActivityRecordList.length > 0) {
      expect(page.ActivityRecordList.length).toBeLessThanOrEqual(777);
      seen.push(...page.ActivityRecordList.map((r) => r.RID));
      expect(page.ContinuationMark).toBeTruthy();
      page = await enumJson(777, page.ContinuationMark);
      pages += 1;
      expect(pages).toBeLessThan(20);
    }
    expect(pages).toBe(Math.ceil(10_000 / 777));
    expect(seen).toHaveLength(10_000);
    expect(new Set(seen).size).toBe(10_000);
  });

  it('JSON pages of several slices (read ahead while the client parses) hold the records in order', async () => {
    const stored = fx.agent.audit.store.db.prepare('SELECT rid FROM activity_records ORDER BY seq').pluck().all();
    const seen: string[] = [];
    let page = await enumJson(2500);
    while (page.ActivityRecordList.length > 0) {
      seen.push(...page.ActivityRecordList.map((r) => r.RID));
      page = await enumJson(2500, page.ContinuationMark);
    }
    expect(seen).toEqual(stored);
  });

  it('XML: every RID exactly once; each page validates against the schema', async () => {
    const seen: string[] = [];
    let res = await fx.reader.request({ path: 'activity_records/enum?count=777' });
    for (let pages = 0; ; pages++) {
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/xml/);
      expect(res.body.startsWith('<?xml version="1.0" encoding="UTF-8"')).toBe(true);
      validateResponse(res.body);
      const rids = xmlRids(res.body);
      if (rids.length === 0) break;
      seen.push(...rids);
      const mark = xmlMark(res.body)!;
      // The mark element comes first, before the records (docs/audit-api.md).
      expect(res.body.indexOf('<ContinuationMark>')).toBeLessThan(res.body.indexOf('<ActivityRecord>'));
      res = await fx.reader.postXml(
        'activity_records/enum?count=777',
        `<?xml version="1.0" standalone="yes"?><ContinuationMark xmlns="${recordsNs()}">\n  ${mark}\n</ContinuationMark>`,
      );
      expect(pages).toBeLessThan(20);
    }
    expect(seen).toHaveLength(10_000);
    expect(new Set(seen).size).toBe(10_000);
  });

  it('a search pages too, and its mark carries the search when posted to enum', async () => {
    const filter = { FilterList: { Who: { EndsWith: 'user7' } } };
    const first = await fx.reader.postJson('activity_records/search?count=50', filter);
    const body = JSON.parse(first.body) as JsonPage;
    expect(body.ActivityRecordList).toHaveLength(50);
    // Continued on enum (as existing clients do, docs/audit-api.md): still only user7.
    const next = await enumJson(1000, body.ContinuationMark);
    expect(next.ActivityRecordList.length).toBe(200 - 50);
    expect(next.ActivityRecordList.every((r) => r.Who === 'HOST\\user7')).toBe(true);
    // Continued on search with the same FilterList (lower-case key, as that client sends it).
    const again = await fx.reader.postJson('activity_records/search?count=1000', {
      ContinuationMark: body.ContinuationMark,
      filterlist: { who: { endswith: 'user7' } },
    });
    expect((JSON.parse(again.body) as JsonPage).ActivityRecordList.map((r) => r.RID)).toEqual(
      next.ActivityRecordList.map((r) => r.RID),
    );
  });

  it('refuses a mark sent with a different FilterList', async () => {
    const first = JSON.parse(
      (await fx.reader.postJson('activity_records/search?count=5', { FilterList: { Who: 'user7' } })).body,
    );
    const res = await fx.reader.postJson('activity_records/search', {
      ContinuationMark: first.ContinuationMark,
      FilterList: { Who: 'user8' },
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).ErrorList[0].Category).toBe('InputError');
  });
});

describe('marks over time', () => {
  it('a mark kept after the last page returns the records written since', async () => {
    let page = await enumJson(10_000);
    let mark = page.ContinuationMark!;
    for (;;) {
      const next = await enumJson(10_000, mark);
      mark = next.ContinuationMark ?? mark;
      if (next.ActivityRecordList.length === 0) break;
    }
    const write = await fx.writer.postJson('activity_records/', [
      record(1, 'HOST\\latecomer'),
      record(2, 'HOST\\latecomer'),
    ]);
    expect(write.status).toBe(200);
    page = await enumJson(10_000, mark);
    expect(page.ActivityRecordList.map((r) => r.Who)).toEqual(['HOST\\latecomer', 'HOST\\latecomer']);
    expect((await enumJson(10_000, page.ContinuationMark)).ActivityRecordList).toEqual([]);
  });

  it('paging while records are being written never repeats or skips one', async () => {
    const before = fx.agent.audit.store.count();
    const seen: string[] = [];
    let page = await enumJson(777);
    let written = 0;
    while (page.ActivityRecordList.length > 0) {
      seen.push(...page.ActivityRecordList.map((r) => r.RID));
      const pending = enumJson(777, page.ContinuationMark);
      // A writer adds records between and during page requests, for a while.
      if (written < 3000) {
        fx.agent.audit.store.insertBatch(Array.from({ length: 301 }, (_, i) => record(20_000 + written + i)));
        written += 301;
      }
      page = await pending;
    }
    // The last batch reaches a fleet member's audit API once forwarded: the mark picks it up then.
    await fx.settle();
    const rest = await enumJson(10_000, page.ContinuationMark);
    seen.push(...rest.ActivityRecordList.map((r) => r.RID));
    expect(fx.agent.audit.store.count()).toBe(before + written);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe(before + written);
  });

  it('forged, edited or truncated marks are refused with InputError', async () => {
    const mark = (await enumJson(5)).ContinuationMark!;
    const [payload, mac] = mark.split('.') as [string, string];
    const json = JSON.parse(Buffer.from(payload, 'base64url').toString());
    json.s = 0; // rewind
    const edited = `${Buffer.from(JSON.stringify(json)).toString('base64url')}.${mac}`;
    // The second-to-last character holds six bits of the MAC (the last one fewer): change it.
    const flipped = `${payload}.${mac.slice(0, -2)}${mac.at(-2) === 'A' ? 'B' : 'A'}${mac.slice(-1)}`;
    for (const bad of [edited, flipped, mark.slice(0, 20), 'PG5yPjxuIG49IntFNzA', 'x'.repeat(200)]) {
      const res = await fx.reader.postJson('activity_records/enum', bad);
      expect(res.status, bad).toBe(400);
      const error = JSON.parse(res.body).ErrorList[0];
      expect(error.Category).toBe('InputError');
      expect(error.Description).toMatch(/^0x8007000D .*ContinuationMark/);
      const xml = await fx.reader.postXml(
        'activity_records/enum',
        `<ContinuationMark xmlns="${recordsNs()}">${bad}</ContinuationMark>`,
      );
      expect(xml.status).toBe(400);
      validateResponse(xml.body);
      expect(xmlError(xml.body).category).toBe('InputError');
    }
  });
});

describe('marks after a restart', () => {
  it('a mark issued before a restart continues after it (same data dir)', async () => {
    // An existing settings file: no first-run host, so the store holds just these 30 records.
    const emptyDir = makeTempDir();
    fs.writeFileSync(path.join(emptyDir, 'settings.json'), '{}\n');
    await addUsersOffline(emptyDir, [{ name: 'auditor', roles: ['reader'] }]);
    const first = await startTestAgent({ dataDir: emptyDir });
    first.audit.store.insertBatch(Array.from({ length: 30 }, (_, i) => record(i)));
    let client = new AuditClient(first, `auditor:${PASSWORD}`);
    const page = JSON.parse(
      (await client.request({ path: 'activity_records/enum?format=json&count=10' })).body,
    ) as JsonPage;
    client.close();
    const dataDir = first.dataDir;
    await first.stop();

    const second = await startTestAgent({ dataDir });
    try {
      client = new AuditClient(second, `auditor:${PASSWORD}`);
      const next = JSON.parse(
        (await client.postJson('activity_records/enum?count=100', page.ContinuationMark)).body,
      ) as JsonPage;
      expect(next.ActivityRecordList).toHaveLength(20);
      expect(new Set([...page.ActivityRecordList, ...next.ActivityRecordList].map((r) => r.RID)).size).toBe(30);
      client.close();
    } finally {
      await second.stop();
    }
  });
});
