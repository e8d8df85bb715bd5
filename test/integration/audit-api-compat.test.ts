/**
 * Drop-in for the clients that exist (docs/audit-api.md; docs/audit-api.md "Compatibility"): each
 * test names the client behaviour it serves. Also: prototype-named paths are a plain 404
 * (docs/security.md F11).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../agent/log/logger.js';
import type { NewActivityRecord } from '../../shared/activity-record.js';
import { recordsNs, startAuditFixture, xmlError, xmlRids, type AuditFixture } from '../helpers/audit-fixture.js';
import { validateXml } from '../helpers/xml-schema.js';

let fx: AuditFixture;
const logLines: string[] = [];

const record = (over: Partial<NewActivityRecord> = {}): NewActivityRecord => ({
  Who: 'CORP\\alice',
  Action: 'Added',
  What: '\\\\fs\\share\\report.docx',
  When: '2026-11-20T10:00:00Z',
  Where: 'fs.corp.example.com',
  ObjectType: 'File',
  DataSource: 'File System',
  ...over,
});

beforeAll(async () => {
  fx = await startAuditFixture({ log: createLogger({ level: 'debug', write: (line) => logLines.push(line) }) });
  await fx.insert([
    record({ MonitoringPlan: { Name: 'File servers' } }),
    record({ Who: 'CORP\\bob', Action: 'Removed' }),
  ]);
});
afterAll(() => fx?.stop());

describe('F11: prototype-named paths', () => {
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'activity_records/constructor'])(
    '/vigil/api/v1/%s is 404 with an empty body and no ERROR log line (was 500 with a stack in the log)',
    async (name) => {
      const before = logLines.length;
      const res = await fx.reader.request({ path: `/vigil/api/v1/${name}` });
      expect(res.status).toBe(404);
      expect(res.body).toBe('');
      expect(logLines.slice(before).filter((line) => / ERROR /.test(line))).toEqual([]);
    },
  );
});

describe('format from Content-Type', () => {
  it('Python netwrix_api library: a JSON search with Content-Type application/json and no ?format=json is answered in JSON', async () => {
    const res = await fx.reader.request({
      path: 'activity_records/search',
      body: JSON.stringify({ FilterList: { Who: { Contains: 'alice' } } }),
      contentType: 'application/json',
    });
    expect(res.status, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const page = JSON.parse(res.body) as { ActivityRecordList: Array<{ Who: string }> };
    expect(page.ActivityRecordList.map((r) => r.Who)).toEqual(['CORP\\alice']);
  });

  it('the same library reads errors as JSON too: a bad filter is a JSON ErrorList', async () => {
    const res = await fx.reader.request({
      path: 'activity_records/search',
      body: JSON.stringify({ FilterList: { Colour: 'red' } }),
      contentType: 'application/json; charset=utf-8',
    });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = JSON.parse(res.body) as { ErrorList: Array<{ Category: string; Description: string }> };
    expect(body.ErrorList[0]!.Category).toBe('InputError');
    expect(body.ErrorList[0]!.Description).toMatch(/Colour/);
  });

  it('the vendor MCP server always sends ?format=json: format wins over the declared type; with neither, XML', async () => {
    const json = await fx.reader.request({
      path: 'activity_records/enum?format=json&count=1',
      contentType: 'text/plain',
    });
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    const xml = await fx.reader.request({ path: 'activity_records/enum?count=1' });
    expect(xml.headers['content-type']).toMatch(/^application\/xml/);
    // format=xml with a body declared JSON: they disagree, so 415 as before.
    const clash = await fx.reader.request({
      path: 'activity_records/enum?format=xml',
      method: 'POST',
      body: '"mark"',
      contentType: 'application/json',
    });
    expect(clash.status).toBe(415);
  });

  it('Python IIS-log shipper: a write with ?format=json and no Content-Type at all is read as JSON', async () => {
    const res = await fx.writer.request({
      path: 'activity_records/?format=json',
      method: 'POST',
      body: JSON.stringify([record({ Who: 'IIS\\shipper' })]),
    });
    expect(res.status, res.body).toBe(200);
    const found = await fx.reader.postJson('activity_records/search', { FilterList: { Who: 'IIS\\shipper' } });
    expect((JSON.parse(found.body) as { ActivityRecordList: unknown[] }).ActivityRecordList).toHaveLength(1);
  });
});

describe('query parameters', () => {
  it('Ruby dashboard: parameters the API does not define (who, from, objectType) are ignored and logged at debug level', async () => {
    const plain = await fx.reader.request({ path: 'activity_records/enum?format=json' });
    const before = logLines.length;
    const res = await fx.reader.request({
      path: 'activity_records/enum?format=json&who=alice&from=2026-01-01&objectType=File',
    });
    expect(res.status, res.body).toBe(200);
    const rids = (body: string): string[] =>
      (JSON.parse(body) as { ActivityRecordList: Array<{ RID: string }> }).ActivityRecordList.map((r) => r.RID);
    expect(rids(res.body)).toEqual(rids(plain.body));
    const logged = logLines.slice(before).filter((line) => / DEBUG .*not define/.test(line));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/who.*from.*objectType/);
  });

  it('a defined parameter that does not convert is still 400 InputError naming it', async () => {
    const res = await fx.reader.request({ path: 'activity_records/enum?who=alice&count=ten' });
    expect(res.status).toBe(400);
    const error = xmlError(res.body);
    expect(error.category).toBe('InputError');
    expect(error.location).toBe('?count');
  });
});

describe('filter names', () => {
  it('Python netwrix_api library sends "Monitoring Plan" (with a space): matched like MonitoringPlan, any case, XML and JSON', async () => {
    const json = await fx.reader.postJson('activity_records/search', {
      FilterList: { 'monitoring plan': { Equals: 'File servers' } },
    });
    expect(json.status, json.body).toBe(200);
    expect((JSON.parse(json.body) as { ActivityRecordList: unknown[] }).ActivityRecordList).toHaveLength(1);
    const xml = await fx.reader.postXml(
      'activity_records/search',
      `<ActivityRecordSearch xmlns="${recordsNs()}"><FilterList><monitoringplan Operator="Equals">File servers</monitoringplan><WHO>alice</WHO></FilterList></ActivityRecordSearch>`,
    );
    expect(xml.status, xml.body).toBe(200);
    expect(xmlRids(xml.body)).toHaveLength(1);
  });
});

describe('authentication', () => {
  it('HTTP clients that send credentials only when challenged (Python requests, Ruby Net::HTTP): 401 with a Basic challenge, then 200, and again later', async () => {
    for (let round = 0; round < 2; round++) {
      const challenged = await fx.reader.request({ path: 'activity_records/enum?count=1', auth: null });
      expect(challenged.status).toBe(401);
      expect(challenged.body).toBe('');
      expect(challenged.headers['www-authenticate']).toBe('Basic realm="Vigil", charset="UTF-8"');
      const answered = await fx.reader.request({ path: 'activity_records/enum?count=1' });
      expect(answered.status, answered.body).toBe(200);
    }
  });
});

describe('written records are checked', () => {
  it('an Action outside the documented list is 400 InputError naming the value and the record, in XML and JSON; nothing is written', async () => {
    const json = await fx.writer.postJson('activity_records/', [record(), record({ Action: 'Deleted' })]);
    expect(json.status).toBe(400);
    const error = (JSON.parse(json.body) as { ErrorList: Array<{ Description: string; Location: string }> })
      .ErrorList[0]!;
    expect(error.Description).toMatch(/^0x80070057 record 2: Action "Deleted" is not one of the documented actions/);
    expect(error.Location).toBe('/ActivityRecordList/ActivityRecord[2]/Action');
    const xml = await fx.writer.postXml(
      'activity_records/',
      `<ActivityRecordList xmlns="${recordsNs()}"><ActivityRecord><Who>w</Who><Action>added</Action><What>x</What><When>2026-11-20T10:00:00Z</When><Where>h</Where><ObjectType>File</ObjectType></ActivityRecord></ActivityRecordList>`,
    );
    expect(xml.status).toBe(400);
    expect(xmlError(xml.body)).toMatchObject({ category: 'InputError' });
    expect(xmlError(xml.body).description).toMatch(/record 1: Action "added"/);
  });

  it('every documented action is accepted, and the published schemas list exactly those', async () => {
    const { RECORD_ACTIONS } = await import('../../agent/audit/record-actions.js');
    const res = await fx.writer.postJson(
      'activity_records/',
      RECORD_ACTIONS.map((Action) => record({ Action, Who: 'CORP\\actions' })),
    );
    expect(res.status, res.body).toBe(200);
    const fs = await import('node:fs');
    for (const vendor of ['vigil', 'netwrix']) {
      const xsd = fs.readFileSync(`docs/schemas/${vendor}/activity-records.xsd`, 'utf8');
      expect([...xsd.matchAll(/<xs:enumeration value="([^"]+)"\/>/g)].map((m) => m[1])).toEqual(RECORD_ACTIONS);
    }
    const schema = JSON.parse(fs.readFileSync('docs/schemas/activity-records.schema.json', 'utf8')) as {
      definitions: { Action: { enum: string[] } };
    };
    expect(schema.definitions.Action.enum).toEqual(RECORD_ACTIONS);
    // xmllint refuses an undocumented action against the schema too.
    expect(() =>
      validateXml(
        `<ActivityRecordList xmlns="${recordsNs()}"><ActivityRecord><Who>w</Who><Action>Deleted</Action><What>x</What><When>2026-11-20T10:00:00Z</When><Where>h</Where><ObjectType>File</ObjectType></ActivityRecord></ActivityRecordList>`,
        'activity-records',
      ),
    ).toThrow(/Deleted/);
  });

  it('JSON answers validate against docs/schemas/activity-records.schema.json', async () => {
    const ajv = (await import('ajv')).default as unknown as new (options: object) => import('ajv').default;
    const fs = await import('node:fs');
    const validate = new ajv({ allErrors: true }).compile(
      JSON.parse(fs.readFileSync('docs/schemas/activity-records.schema.json', 'utf8')) as object,
    );
    const res = await fx.reader.request({ path: 'activity_records/enum?format=json' });
    const ok = validate(JSON.parse(res.body));
    expect(validate.errors ?? [], res.body.slice(0, 500)).toEqual([]);
    expect(ok).toBe(true);
  });

  it('the vendor documents When with an offset (2017-02-19T03:43:49-11:00): stored and answered in UTC', async () => {
    const res = await fx.writer.postJson('activity_records/', [
      record({ Who: 'CORP\\offset', When: '2026-11-20T04:15:30-06:00' }),
    ]);
    expect(res.status, res.body).toBe(200);
    const found = await fx.reader.postJson('activity_records/search', { FilterList: { Who: 'CORP\\offset' } });
    const page = JSON.parse(found.body) as { ActivityRecordList: Array<{ When: string }> };
    expect(page.ActivityRecordList.map((r) => r.When)).toEqual(['2026-11-20T10:15:30Z']);
  });
});
