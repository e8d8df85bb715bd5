/**
 * Hostile XML and JSON against the audit API (docs/security.md, X03–X12): DOCTYPEs and
 * entities are refused before parsing (no file read, no connection made, no expansion), nesting
 * and size are bounded, prototype keys do nothing, malformed input is a 400 and never a crash.
 */
import net from 'node:net';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuditFixture, recordsNs, xmlError, type AuditFixture } from '../helpers/audit-fixture.js';
import { validateResponse } from '../helpers/xml-schema.js';
import { makeTempDir } from '../helpers/temp-dir.js';

let fx: AuditFixture;
let trap: net.Server;
let trapConnections = 0;
let trapPort = 0;
let secretFile: string;

beforeAll(async () => {
  fx = await startAuditFixture();
  trap = net.createServer((socket) => {
    trapConnections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
  trapPort = (trap.address() as net.AddressInfo).port;
  secretFile = path.join(makeTempDir(), 'secret.txt');
  fs.writeFileSync(secretFile, 'TOP-SECRET-CONTENT');
  // The first request of a user pays for scrypt; timings below are of the parsing alone.
  expect((await fx.reader.request({ path: 'activity_records/enum' })).status).toBe(200);
  expect((await fx.writer.postJson('activity_records/', [])).status).toBe(200);
});
afterAll(async () => {
  await new Promise<void>((resolve) => trap.close(() => resolve()));
  await fx?.stop();
});

const ns = (): string => recordsNs();
const search = (inner: string, prolog = ''): string =>
  `<?xml version="1.0"?>${prolog}<ActivityRecordSearch xmlns="${ns()}"><FilterList>${inner}</FilterList></ActivityRecordSearch>`;

async function expectXmlErrorFast(body: string, pattern: RegExp): Promise<void> {
  const started = performance.now();
  const res = await fx.reader.postXml('activity_records/search', body);
  const took = performance.now() - started;
  expect(res.status, res.body).toBe(400);
  validateResponse(res.body);
  const error = xmlError(res.body);
  expect(error.category).toBe('XMLError');
  expect(error.description).toMatch(pattern);
  expect(res.body).not.toContain('TOP-SECRET');
  expect(took).toBeLessThan(250); // refused up front, not after expansion (X03: well under a second)
}

describe('DTDs and entities (X03, X04, X05)', () => {
  it('billion laughs', async () => {
    const lol = ['<!ENTITY lol "lol">'];
    for (let i = 1; i < 10; i++) lol.push(`<!ENTITY lol${i} "${`&lol${i === 1 ? '' : i - 1};`.repeat(10)}">`);
    await expectXmlErrorFast(
      search('<Who>&lol9;</Who>', `<!DOCTYPE lolz [${lol.join('')}]>`),
      /^0xC00CE584 DTDs are not allowed/,
    );
  });

  it('quadratic blow-up', async () => {
    const big = 'x'.repeat(9000);
    await expectXmlErrorFast(
      search(`<Who>${'&a;'.repeat(2000)}</Who>`, `<!DOCTYPE d [<!ENTITY a "${big}">]>`),
      /DTDs are not allowed/,
    );
  });

  it('external entities to a file and to a listening socket: nothing is read, nothing connects', async () => {
    await expectXmlErrorFast(
      search('<Who>&x;</Who>', `<!DOCTYPE d [<!ENTITY x SYSTEM "file://${secretFile}">]>`),
      /DTDs/,
    );
    await expectXmlErrorFast(
      search('<Who>&x;</Who>', `<!DOCTYPE d [<!ENTITY x SYSTEM "http://127.0.0.1:${trapPort}/x">]>`),
      /DTDs/,
    );
    await expectXmlErrorFast(
      search('<Who>x</Who>', `<!DOCTYPE d [<!ENTITY % p SYSTEM "http://127.0.0.1:${trapPort}/p.dtd"> %p;]>`),
      /DTDs/,
    );
    await expectXmlErrorFast(
      search('<Who>x</Who>', `<!DOCTYPE d SYSTEM "http://127.0.0.1:${trapPort}/d.dtd">`),
      /DTDs/,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(trapConnections).toBe(0);
  });

  it('a harmless DOCTYPE is refused too (no DTDs at all)', async () => {
    await expectXmlErrorFast(search('<Who>x</Who>', '<!DOCTYPE ActivityRecordSearch>'), /DTDs/);
    await expectXmlErrorFast(search('<Who>x</Who>', '<!doctype ActivityRecordSearch>'), /DTDs/);
  });

  it('the five XML entities and character references still work', async () => {
    const res = await fx.reader.postXml(
      'activity_records/search',
      search('<Who>&lt;&amp;&gt;&quot;&apos;&#65;&#x42;</Who>'),
    );
    expect(res.status, res.body).toBe(200);
  });
});

describe('nesting and size (X06, X07)', () => {
  it.each([13, 100, 150, 10_000])(
    '%i levels of nesting: 400 (or 413 when larger than the body limit), no crash',
    async (depth) => {
      const body = search(`<Who>${'<a>'.repeat(depth)}x${'</a>'.repeat(depth)}</Who>`);
      const res = await fx.reader.postXml('activity_records/search', body);
      if (body.length > 64 * 1024) {
        expect(res.status).toBe(413);
        return;
      }
      expect(res.status).toBe(400);
      validateResponse(res.body);
      expect(['XMLError', 'InputError']).toContain(xmlError(res.body).category);
    },
  );

  it('a deep document within the byte limit is refused by the depth limit', async () => {
    const res = await fx.reader.postXml(
      'activity_records/search',
      search(`<Who>${'<a>'.repeat(20)}x${'</a>'.repeat(20)}</Who>`),
    );
    expect(res.status).toBe(400);
    expect(xmlError(res.body)).toMatchObject({ category: 'XMLError' });
    expect(xmlError(res.body).description).toMatch(/^0xC00CE577 /);
  });

  it('a 5 MB attribute, 20,000 attributes, a 10 MB text node, one byte over the cap: 413, empty', async () => {
    const bodies = [
      search(`<Who Operator="${'C'.repeat(5 * 1024 * 1024)}">x</Who>`),
      search(`<Who ${Array.from({ length: 20_000 }, (_, i) => `a${i}="1"`).join(' ')}>x</Who>`),
      search(`<Who>${'x'.repeat(10 * 1024 * 1024)}</Who>`),
    ];
    for (const body of bodies) {
      const res = await fx.reader.postXml('activity_records/search', body);
      expect(res.status).toBe(413);
      expect(res.body).toBe('');
    }
    const limit = 64 * 1024;
    const filler = (n: number): string => {
      const base = `<ContinuationMark xmlns="${ns()}"></ContinuationMark>`;
      return `<ContinuationMark xmlns="${ns()}">${'a'.repeat(n - base.length)}</ContinuationMark>`;
    };
    expect((await fx.reader.postXml('activity_records/enum', filler(limit + 1))).status).toBe(413);
    expect((await fx.reader.postXml('activity_records/enum', filler(limit))).status).toBe(400); // parsed: not a mark
  });
});

describe('prototype pollution and type confusion (X08, X10, X12)', () => {
  it('__proto__ and constructor elements or keys do nothing', async () => {
    for (const body of [
      search('<__proto__>x</__proto__>'),
      search('<constructor>x</constructor>'),
      search('<Who __proto__="1">x</Who>'),
    ]) {
      const res = await fx.reader.postXml('activity_records/search', body);
      expect(res.status).toBe(400);
      validateResponse(res.body);
    }
    for (const body of [
      '{"FilterList": {"__proto__": {"polluted": "yes"}}}',
      '{"__proto__": {"polluted": "yes"}, "FilterList": {"Who": "x"}}',
      '{"FilterList": {"constructor": {"prototype": {"polluted": "yes"}}}}',
    ]) {
      const res = await fx.reader.request({
        path: 'activity_records/search?format=json',
        body,
        contentType: 'application/json',
      });
      expect(res.status).toBe(400);
    }
    const write = await fx.writer.request({
      path: 'activity_records/?format=json',
      body: '[{"__proto__": {"polluted": "yes"}, "Who": "w", "Action": "Added", "What": "x", "When": "2026-11-20T10:00:00Z", "Where": "h", "ObjectType": "File"}]',
    });
    expect(write.status).toBe(400);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('values stay strings: 007 and 0x10 are not numbers', async () => {
    await fx.writer.postJson('activity_records/', [
      { Who: '007', Action: 'Added', What: '0x10', When: '2026-11-20T10:00:00Z', Where: '1e3', ObjectType: 'File' },
    ]);
    const xml = await fx.reader.postXml(
      'activity_records/search',
      search('<Who Operator="Equals">007</Who><What>0x10</What>'),
    );
    expect(xml.status).toBe(200);
    expect(xml.body).toContain('<Who>007</Who>');
    expect(xml.body).toContain('<Where>1e3</Where>');
  });

  it('JSON 10,000 levels deep is a 400, not a crash', async () => {
    const deep = `{"FilterList": {"Who": ${'['.repeat(10_000)}"x"${']'.repeat(10_000)}}}`;
    const res = await fx.reader.request({
      path: 'activity_records/search?format=json',
      body: deep,
      contentType: 'application/json',
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).ErrorList[0].Category).toBe('InputError');
    // The agent is still serving.
    expect((await fx.reader.request({ path: 'activity_records/enum' })).status).toBe(200);
  });
});

describe('malformed documents (X09, X11)', () => {
  it.each([
    ['mismatched tags', search('<Who>x</What>')],
    [
      'BOM, then whitespace before the declaration',
      `\uFEFF  \n<?xml version="1.0"?><ContinuationMark xmlns="${recordsNs()}">a</ContinuationMark>`,
    ],
    ['a C0 control character', search('<Who>a\u0001b</Who>')],
    ['a character reference to NUL', search('<Who>&#0;</Who>')],
    ['an unescaped ampersand', search('<Who>a & b</Who>')],
  ])('%s: 400 XMLError with a location, never a 500', async (_name, body) => {
    const res = await fx.reader.postXml('activity_records/search', body);
    expect(res.status, res.body).toBe(400);
    validateResponse(res.body);
    expect(xmlError(res.body).category).toBe('XMLError');
  });
});
