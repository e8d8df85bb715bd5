/** JSON Merge Patch (shared/merge-patch.ts) against every example of RFC 7396 Appendix A, and untrusted keys. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyMergePatch } from '../../shared/merge-patch.js';

// RFC 7396 Appendix A, verbatim: original, patch, result.
const APPENDIX_A: Array<[string, string, string]> = [
  ['{"a":"b"}', '{"a":"c"}', '{"a":"c"}'],
  ['{"a":"b"}', '{"b":"c"}', '{"a":"b","b":"c"}'],
  ['{"a":"b"}', '{"a":null}', '{}'],
  ['{"a":"b","b":"c"}', '{"a":null}', '{"b":"c"}'],
  ['{"a":["b"]}', '{"a":"c"}', '{"a":"c"}'],
  ['{"a":"c"}', '{"a":["b"]}', '{"a":["b"]}'],
  ['{"a":{"b":"c"}}', '{"a":{"b":"d","c":null}}', '{"a":{"b":"d"}}'],
  ['{"a":[{"b":"c"}]}', '{"a":[1]}', '{"a":[1]}'],
  ['["a","b"]', '["c","d"]', '["c","d"]'],
  ['{"a":"b"}', '["c"]', '["c"]'],
  ['{"a":"foo"}', 'null', 'null'],
  ['{"a":"foo"}', '"bar"', '"bar"'],
  ['{"e":null}', '{"a":1}', '{"e":null,"a":1}'],
  ['[1,2]', '{"a":"b","c":null}', '{"a":"b"}'],
  ['{}', '{"a":{"bb":{"ccc":null}}}', '{"a":{"bb":{}}}'],
];

describe('applyMergePatch', () => {
  it.each(APPENDIX_A)('%s + %s = %s (RFC 7396 Appendix A)', (original, patch, result) => {
    expect(applyMergePatch(JSON.parse(original), JSON.parse(patch))).toEqual(JSON.parse(result));
  });

  it('changes neither the target nor the patch', () => {
    const target = { a: { b: 1 }, c: [1] };
    const patch = { a: { b: null, d: 2 } };
    const before = JSON.stringify([target, patch]);
    applyMergePatch(target, patch);
    expect(JSON.stringify([target, patch])).toBe(before);
  });

  it('keeps a "__proto__" key of an untrusted patch as a plain member', () => {
    const patch = JSON.parse('{"__proto__":{"polluted":true},"a":{"__proto__":{"x":1}}}') as unknown;
    const result = applyMergePatch({ a: {} }, patch) as Record<string, unknown>;
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.keys(result)).toEqual(['a', '__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.getPrototypeOf(result['a'])).toBe(Object.prototype);
  });

  it('is idempotent: applying a patch twice gives what applying it once gives', () => {
    const json = fc.jsonValue();
    fc.assert(
      fc.property(json, json, (target, patch) => {
        const once = applyMergePatch(target, patch);
        expect(applyMergePatch(once, patch)).toEqual(once);
      }),
      { numRuns: 300 },
    );
  });
});
