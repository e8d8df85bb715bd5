/**
 * The error rows of docs/audit-api.md, each with its exact status, category, namespace and
 * body rule, in XML and JSON; authentication and roles; limits; the netwrix vendor profile.
 * Every XML error body is validated against docs/schemas/<vendor>/error-list.xsd.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuditFixture, recordsNs, xmlError, PASSWORD, type AuditFixture } from '../helpers/audit-fixture.js';
import { validateResponse } from '../helpers/xml-schema.js';
import { AuditClient } from '../helpers/audit-client.js';

let fx: AuditFixture;
beforeAll(async () => {
  fx = await startAuditFixture();
});
afterAll(() => fx?.stop());

const ERRORS_NS = 'http://schemas.vigil.dev/api/v1/';

function expectXmlError(
  res: { status: number; body: string; headers: Record<string, unknown> },
  status: number,
  category: string,
) {
  expect(res.status, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/xml; charset=utf-8/);
  expect(res.body).toMatch(/^<\?xml version="1.0" encoding="UTF-8"/);
  expect(res.body).toContain(`<ErrorList xmlns="${ERRORS_NS}">`);
  validateResponse(res.body);
  const error = xmlError(res.body);
  expect(error.category).toBe(category);
  expect(error.description).toMatch(/^0x[0-9A-F]{8} \S/);
  return error;
}

function expectJsonError(
  res: { status: number; body: string; headers: Record<string, unknown> },
  status: number,
  category: string,
) {
  expect(res.status, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(res.body) as {
    ErrorList: Array<{ Category: string; Description: string; Location?: string }>;
  };
  expect(body.ErrorList).toHaveLength(1);
  const error = body.ErrorList[0]!;
  expect(error.Category).toBe(category);
  expect(error.Description).toMatch(/^0x[0-9A-F]{8} \S/);
  return error;
}

function expectEmpty(res: { status: number; body: string }, status: number) {
  expect(res.status).toBe(status);
  expect(res.body).toBe('');
}

describe('400 XMLError: malformed XML', () => {
  it('an end tag that does not match: the parser message, with line and column', async () => {
    const body = `<?xml version="1.0"?>\n<ActivityRecordSearch xmlns="${recordsNs()}">\n  <FilterList>\n    <DataSource>x</FilterList>\n</ActivityRecordSearch>`;
    const error = expectXmlError(await fx.reader.postXml('activity_records/search', body), 400, 'XMLError');
    expect(error.description).toMatch(/^0xC00CE56D .*closing tag/i);
    expect(error.location).toMatch(/^line 4, column \d+$/);
  });

  it.each([
    ['two roots', `<ContinuationMark xmlns="${recordsNs()}">a</ContinuationMark><x/>`],
    ['an empty body', ''],
    ['text only', 'hello'],
    ['a NUL character', `<ContinuationMark xmlns="${recordsNs()}">a\u0000</ContinuationMark>`],
    ['an undefined entity', `<ContinuationMark xmlns="${recordsNs()}">&x;</ContinuationMark>`],
    ['bytes that are not UTF-8', Buffer.from([0x3c, 0x61, 0xff, 0xfe, 0x3e])],
    ['a wrong root', `<ActivityRecordSearch xmlns="${recordsNs()}"/>`],
    ['another namespace', `<ContinuationMark xmlns="http://example.com/">abc</ContinuationMark>`],
  ])('%s', async (_name, body) => {
    expectXmlError(await fx.reader.postXml('activity_records/enum', body as string), 400, 'XMLError');
  });

  it('a JSON body sent without format=json gets a hint', async () => {
    const res = await fx.reader.request({ path: 'activity_records/search', body: '{"FilterList":{"Who":"a"}}' });
    expect(expectXmlError(res, 400, 'XMLError').description).toMatch(/format=json/);
  });
});

describe('500 with an empty body: corrupted JSON', () => {
  it.each(['{"FilterList": {', '{"a":1,}', '<xml/>', "{'single': 1}"])('%s', async (body) => {
    const res = await fx.reader.request({
      path: 'activity_records/search?format=json',
      body,
      contentType: 'application/json',
    });
    expectEmpty(res, 500);
  });

  it('also on enum and write', async () => {
    expectEmpty(await fx.reader.request({ path: 'activity_records/enum?format=json', body: '"unterminated' }), 500);
    expectEmpty(await fx.writer.request({ path: 'activity_records/?format=json', body: '[{"Who":' }), 500);
  });
});

describe('400 InputError: parameters and values that do not convert or do not fit', () => {
  it.each(['FIVE', '0', '-1', '1e9', '1.5', '', '10001'])('count=%s names count', async (count) => {
    const xml = expectXmlError(
      await fx.reader.request({ path: `activity_records/enum?count=${count}` }),
      400,
      'InputError',
    );
    expect(xml.description).toMatch(/count/);
    expect(xml.location).toBe('?count');
    const json = expectJsonError(
      await fx.reader.request({ path: `activity_records/enum?format=json&count=${count}` }),
      400,
      'InputError',
    );
    expect(json.Description).toMatch(/count/);
  });

  it('count=FIVE carries the conversion code of docs/audit-api.md "Errors"', async () => {
    const error = expectXmlError(
      await fx.reader.request({ path: 'activity_records/enum?count=FIVE' }),
      400,
      'InputError',
    );
    expect(error.description).toMatch(/^0x80040204 Invalid count parameter specified/);
  });

  it('a format that does not convert is named (parameters the API does not define are ignored: audit-api-compat)', async () => {
    expect(
      expectXmlError(await fx.reader.request({ path: 'activity_records/enum?format=yaml' }), 400, 'InputError')
        .description,
    ).toMatch(/format/);
  });

  it('an unknown filter, operator or timeframe, a bad date: named, in XML and JSON', async () => {
    const ns = recordsNs();
    const cases: Array<[string, unknown, RegExp]> = [
      [`<Foo>x</Foo>`, { Foo: 'x' }, /Foo/],
      [`<Who Operator="Resembles">x</Who>`, { Who: { Resembles: 'x' } }, /Resembles/],
      [`<Action Operator="Contains">x</Action>`, { Action: { Contains: 'x' } }, /Contains.*Action/],
      [`<Where Operator="InGroup">x</Where>`, { Where: { InGroup: 'x' } }, /InGroup.*Where/],
      [`<When><LastYear/></When>`, { When: { LastYear: '' } }, /LastYear/],
      [`<When><From>2026-13-01T00:00:00Z</From></When>`, { When: { From: '2026-13-01T00:00:00Z' } }, /2026-13-01/],
      [`<When><From>yesterday</From></When>`, { When: { From: 'yesterday' } }, /yesterday/],
      [`<When><From>2026-01-01T00:00:00</From></When>`, { When: { From: '2026-01-01T00:00:00' } }, /offset/],
      [
        `<WorkingHours><From>9am</From><To>17:00:00Z</To></WorkingHours>`,
        { WorkingHours: { From: '9am', To: '17:00:00Z' } },
        /9am/,
      ],
      [`<Who></Who>`, { Who: '' }, /needs a value/],
      [`<Who>${'x'.repeat(256)}</Who>`, { Who: 'x'.repeat(256) }, /longer than 255/],
    ];
    for (const [xmlFilter, jsonFilter, pattern] of cases) {
      const xml = await fx.reader.postXml(
        'activity_records/search',
        `<ActivityRecordSearch xmlns="${ns}"><FilterList>${xmlFilter}</FilterList></ActivityRecordSearch>`,
      );
      const x = expectXmlError(xml, 400, 'InputError');
      expect(x.description, xmlFilter).toMatch(pattern);
      expect(x.location).toMatch(/^\/ActivityRecordSearch\/FilterList\//);
      const json = await fx.reader.postJson('activity_records/search', { FilterList: jsonFilter });
      const j = expectJsonError(json, 400, 'InputError');
      expect(j.Description, JSON.stringify(jsonFilter)).toMatch(pattern);
      expect(j.Location).toMatch(/^\/ActivityRecordSearch\/FilterList\//);
    }
  });

  it('a date that does not convert carries the conversion code', async () => {
    const j = expectJsonError(
      await fx.reader.postJson('activity_records/search', { FilterList: { When: { From: 'soon' } } }),
      400,
      'InputError',
    );
    expect(j.Description).toMatch(/^0x80040204 /);
  });

  it('JSON of the wrong shape is an InputError, never a 500', async () => {
    for (const body of [
      [],
      42,
      'text',
      null,
      { FilterList: [] },
      { FilterList: { Who: 7 } },
      { FilterList: { Who: [[['x']]] } },
      { Filters: [] },
    ]) {
      expectJsonError(await fx.reader.postJson('activity_records/search', body), 400, 'InputError');
    }
  });

  it('a search without FilterList or mark is refused', async () => {
    expectXmlError(
      await fx.reader.postXml('activity_records/search', `<ActivityRecordSearch xmlns="${recordsNs()}"/>`),
      400,
      'InputError',
    );
    expectJsonError(await fx.reader.postJson('activity_records/search', {}), 400, 'InputError');
    expectXmlError(await fx.reader.request({ path: 'activity_records/search' }), 400, 'InputError');
  });
});

describe('empty-body statuses', () => {
  it('404 for an unknown path or vendor segment', async () => {
    for (const path of [
      '/vigil/api/v1/mynewendpoint/',
      '/netwrix/api/v1/activity_records/enum',
      '/vigil/api/v2/activity_records/enum',
      '/',
      '/vigil/api/v1/activity_records/enum/extra',
    ]) {
      expectEmpty(await fx.reader.request({ path }), 404);
    }
  });

  it('405 with Allow for a method the endpoint does not take', async () => {
    for (const [method, path, allow] of [
      ['PUT', 'activity_records/enum', 'GET, POST'],
      ['DELETE', 'activity_records/search', 'GET, POST'],
      ['GET', 'activity_records/', 'POST'],
      ['PATCH', 'activity_records/', 'POST'],
    ] as const) {
      const res = await fx.auditor.request({ method, path });
      expectEmpty(res, 405);
      expect(res.headers['allow']).toBe(allow);
    }
  });

  it('413 for a body over the limit, declared or streamed', async () => {
    const big = `<ContinuationMark xmlns="${recordsNs()}">${'a'.repeat(70 * 1024)}</ContinuationMark>`;
    expectEmpty(await fx.reader.postXml('activity_records/enum', big), 413);
    expectEmpty(await fx.reader.postJson('activity_records/search', { FilterList: { Who: 'x'.repeat(70_000) } }), 413);
    const write = JSON.stringify([{ Who: 'x'.repeat(5 * 1024 * 1024) }]);
    expectEmpty(await fx.writer.request({ path: 'activity_records/?format=json', body: write }), 413);
  });

  it('415 for a charset other than UTF-8, or a Content-Type naming the other format', async () => {
    expectEmpty(
      await fx.reader.postXml('activity_records/enum', '<a/>', { contentType: 'application/xml; charset=utf-16' }),
      415,
    );
    expectEmpty(await fx.reader.postJson('activity_records/enum', 'mark', { contentType: 'application/xml' }), 415);
  });

  it('401 with a Basic challenge for missing, malformed or wrong credentials', async () => {
    const anonymous = await fx.reader.request({ path: 'activity_records/enum', auth: null });
    expectEmpty(anonymous, 401);
    expect(anonymous.headers['www-authenticate']).toBe('Basic realm="Vigil", charset="UTF-8"');
    for (const auth of [`reader:wrong password`, `nobody:${PASSWORD}`, 'reader', `READER:${PASSWORD.toUpperCase()}`]) {
      const res = await fx.reader.request({ path: 'activity_records/enum', auth });
      expectEmpty(res, 401);
      expect(res.headers['www-authenticate']).toMatch(/^Basic /);
    }
    const garbage = await fx.reader.request({
      path: 'activity_records/enum',
      auth: null,
      headers: { Authorization: 'Bearer abc' },
    });
    expectEmpty(garbage, 401);
  });

  it('user names match without regard to case', async () => {
    expect((await fx.reader.request({ path: 'activity_records/enum', auth: `READER:${PASSWORD}` })).status).toBe(200);
  });

  it('403 for a user without the role the endpoint needs', async () => {
    expectEmpty(await fx.writer.request({ path: 'activity_records/enum' }), 403);
    expectEmpty(await fx.writer.postJson('activity_records/search', { FilterList: { Who: 'a' } }), 403);
    expectEmpty(await fx.reader.postJson('activity_records/', []), 403);
  });
});

describe('the netwrix vendor profile', () => {
  it('serves /netwrix/api/v1 with the netwrix namespaces, and accepts them', async () => {
    await fx.agent.settings.update((s) => {
      s.auditApi.vendor = 'netwrix';
    });
    try {
      const client = new AuditClient(fx.agent, `auditor:${PASSWORD}`);
      const enumRes = await client.request({ path: 'activity_records/enum?count=5' });
      expect(enumRes.status).toBe(200);
      expect(enumRes.body).toContain(
        '<ActivityRecordList xmlns="http://schemas.netwrix.com/api/v1/activity_records/">',
      );
      validateResponse(enumRes.body, 'netwrix');
      const ns = 'http://schemas.netwrix.com/api/v1/activity_records/';
      const search = await client.postXml(
        'activity_records/search',
        `<ActivityRecordSearch xmlns="${ns}"><FilterList><Who>a</Who></FilterList></ActivityRecordSearch>`,
      );
      expect(search.status).toBe(200);
      validateResponse(search.body, 'netwrix');
      const error = await client.request({ path: 'activity_records/enum?count=FIVE' });
      expect(error.status).toBe(400);
      expect(error.body).toContain('<ErrorList xmlns="http://schemas.netwrix.com/api/v1/">');
      validateResponse(error.body, 'netwrix');
      // Vigil's own namespace is not the netwrix profile's.
      const foreign = await client.postXml(
        'activity_records/search',
        `<ActivityRecordSearch xmlns="${recordsNs('vigil')}"><FilterList><Who>a</Who></FilterList></ActivityRecordSearch>`,
      );
      expect(foreign.status).toBe(400);
      expect(xmlError(foreign.body).category).toBe('XMLError');
      // The old segment is gone.
      expectEmpty(await client.request({ path: '/vigil/api/v1/activity_records/enum' }), 404);
      client.close();
    } finally {
      await fx.agent.settings.update((s) => {
        s.auditApi.vendor = 'vigil';
      });
    }
  });
});

describe('429 after repeated failures', () => {
  it('an address that keeps guessing is told to wait, with Retry-After', async () => {
    let last = await fx.reader.request({ path: 'activity_records/enum', auth: 'reader:nope' });
    for (let i = 0; i < 12 && last.status === 401; i++) {
      last = await fx.reader.request({ path: 'activity_records/enum', auth: 'reader:nope' });
    }
    expectEmpty(last, 429);
    expect(Number(last.headers['retry-after'])).toBeGreaterThan(0);
    // Even the right password waits until the window ends.
    expectEmpty(await fx.reader.request({ path: 'activity_records/enum' }), 429);
  });
});
