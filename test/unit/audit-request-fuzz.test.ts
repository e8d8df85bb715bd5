/**
 * Random and mutated request bodies through the readers (docs/security.md, X18, short form for CI):
 * every input is either accepted or refused with an AuditError/EmptyResponse — never another
 * exception, never a slow parse.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AuditError, EmptyResponse } from '../../agent/audit/audit-errors.js';
import { jsonBody, xmlBody } from '../../agent/audit/request-body.js';
import { markFromXml, searchFromJson, searchFromXml } from '../../agent/audit/search-request.js';
import { recordsFromJson, recordsFromXml } from '../../agent/audit/record-input.js';
import { vendorProfile } from '../../agent/audit/vendor-profile.js';

const profile = vendorProfile('vigil');
const NS = profile.recordsNamespace;
const seeds = [
  `<ActivityRecordSearch xmlns="${NS}"><FilterList><Who Operator="Contains">a</Who><When><LastSevenDays/></When><WorkingHours><From>09:00:00Z</From><To>17:00:00Z</To></WorkingHours></FilterList></ActivityRecordSearch>`,
  `<ActivityRecordList xmlns="${NS}"><ActivityRecord><Who>w</Who><Action>Added</Action><What>x</What><When>2026-11-20T10:00:00Z</When><Where>h</Where><ObjectType>File</ObjectType><DetailList><Detail><PropertyName>p</PropertyName></Detail></DetailList></ActivityRecord></ActivityRecordList>`,
  `<ContinuationMark xmlns="${NS}">abc.def</ContinuationMark>`,
  '{"FilterList":{"Who":["a",{"NotEqualTo":"b"}],"When":{"From":"2026-01-01T00:00:00Z"}}}',
  '[{"Who":"w","Action":"Added","What":"x","When":"2026-11-20T10:00:00Z","Where":"h","ObjectType":"File"}]',
];

function expectHandled(run: () => unknown): void {
  const started = performance.now();
  try {
    run();
  } catch (error) {
    if (!(error instanceof AuditError || error instanceof EmptyResponse)) throw error;
  }
  expect(performance.now() - started).toBeLessThan(200);
}

const mutated = fc
  .tuple(
    fc.constantFrom(...seeds),
    fc.array(fc.tuple(fc.nat(), fc.nat(8), fc.string({ unit: 'binary', maxLength: 6 })), { maxLength: 6 }),
  )
  .map(([seed, edits]) => {
    let text = seed;
    for (const [at, cut, insert] of edits) {
      const i = at % (text.length + 1);
      text = text.slice(0, i) + insert + text.slice(i + cut);
    }
    return text;
  });

describe('request readers under random input', () => {
  it('mutated documents are accepted or refused cleanly', () => {
    fc.assert(
      fc.property(fc.oneof(mutated, fc.string({ unit: 'binary', maxLength: 200 })), (text) => {
        const bytes = Buffer.from(text, 'utf8');
        expectHandled(() => searchFromXml(xmlBody(bytes), profile));
        expectHandled(() => recordsFromXml(xmlBody(bytes), profile));
        expectHandled(() => markFromXml(xmlBody(bytes), profile));
        expectHandled(() => searchFromJson(jsonBody(bytes)));
        expectHandled(() => recordsFromJson(jsonBody(bytes)));
      }),
      { numRuns: 400 },
    );
  });

  it('random JSON values are accepted or refused cleanly', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        expectHandled(() => searchFromJson(value));
        expectHandled(() => searchFromJson({ FilterList: value }));
        expectHandled(() => recordsFromJson(value));
        expectHandled(() => recordsFromJson([value]));
      }),
      { numRuns: 400 },
    );
  });
});
