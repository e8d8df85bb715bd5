/** Parsing the token endpoint's input: strict form bodies (RFC 6749 §3.2) and Basic credentials (RFC 6749 §2.3.1). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseFormParameters } from '../../agent/auth/form-parameters.js';
import { parseBasicCredentials } from '../../agent/auth/basic-credentials.js';

describe('form parameters', () => {
  it('decodes + and %XX, and drops empty values as if omitted', () => {
    const result = parseFormParameters('a=x+y%2Bz&b=&c');
    expect(result).toEqual({ ok: true, params: new Map([['a', 'x y+z']]) });
  });

  it('refuses a repeated parameter, naming it, even when one copy is empty', () => {
    expect(parseFormParameters('grant_type=a&grant_type=')).toMatchObject({ ok: false, field: 'grant_type' });
  });

  it('takes bracketed names literally (no arrays or objects)', () => {
    const result = parseFormParameters('client_id[]=a&client_secret[x]=y');
    expect(result.ok && [...result.params.keys()]).toEqual(['client_id[]', 'client_secret[x]']);
  });

  it.each(['a=%ZZ', 'a=%C0%AF', 'a=%E0%A4', 'a=x%00y'])('refuses %s', (body) => {
    expect(parseFormParameters(body).ok).toBe(false);
  });

  it('round-trips anything URLSearchParams encodes', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1 }), fc.string({ minLength: 1 })), (dict) => {
        // eslint-disable-next-line no-control-regex
        fc.pre(Object.entries(dict).every(([k, v]) => !/[\u0000-\u001f\u007f]/.test(k + v)));
        const result = parseFormParameters(new URLSearchParams(dict).toString());
        expect(result.ok && Object.fromEntries(result.params)).toEqual(dict);
      }),
    );
  });
});

describe('Basic credentials', () => {
  const header = (user: string, pass: string): string => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

  it('form-decodes both halves and splits at the first colon', () => {
    expect(parseBasicCredentials(header('my%3Aid', 'se:cr+et%25'))).toEqual({
      ok: true,
      clientId: 'my:id',
      secret: 'se:cr et%',
    });
  });

  it('allows an empty password (refresh without the secret)', () => {
    expect(parseBasicCredentials(header('id', ''))).toEqual({ ok: true, clientId: 'id', secret: '' });
  });

  it.each(['Basic', 'Basic !!!', 'Basic abc', `Basic ${Buffer.from('no-colon').toString('base64')}`])(
    'refuses %s',
    (value) => {
      expect(parseBasicCredentials(value).ok).toBe(false);
    },
  );
});
