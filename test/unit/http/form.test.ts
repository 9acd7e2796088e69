import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FormEncodingError, MAX_FORM_FIELDS, parseForm } from '../../../functions/http/form';

/** Text built from the characters that matter to form encoding, plus any Unicode. */
const formLikeText = fc
  .array(
    fc.oneof(
      fc.constantFrom('%', '%2', '%C3', '%A9', '%FF', '%25', '&', '=', '[]', '[', '+', 'a', 'b'),
      fc.string({ unit: 'grapheme', maxLength: 2 }),
    ),
    { maxLength: 20 },
  )
  .map((parts) => parts.join(''));

describe('form body parser', () => {
  it('reads single values as strings', () => {
    expect(parseForm('field=JobName&query=spring+cat&page=2')).toEqual({
      field: 'JobName',
      query: 'spring cat',
      page: '2',
    });
  });

  it('turns repeated keys into a list, in order', () => {
    expect(parseForm('statuses=CJ_NEW&statuses=CJ_ACCEPT')).toEqual({ statuses: ['CJ_NEW', 'CJ_ACCEPT'] });
  });

  it('turns key[] into a list under key, even for one occurrence', () => {
    expect(parseForm('statuses[]=CJ_NEW')).toEqual({ statuses: ['CJ_NEW'] });
    expect(parseForm('statuses%5B%5D=A&statuses%5B%5D=B')).toEqual({ statuses: ['A', 'B'] });
  });

  it('merges key and key[] into one list', () => {
    expect(parseForm('s=A&s[]=B')).toEqual({ s: ['A', 'B'] });
  });

  it('decodes percent-encoding and UTF-8', () => {
    expect(parseForm('q=caf%C3%A9%20%26%20cr%C3%A8me&a%3Db=c')).toEqual({ q: 'café & crème', 'a=b': 'c' });
  });

  it('skips empty pairs and gives a pair without = the empty value', () => {
    expect(parseForm('a=1&&b&c=')).toEqual({ a: '1', b: '', c: '' });
  });

  it('keeps __proto__ an ordinary field', () => {
    const fields = parseForm('__proto__=x&constructor=y');
    expect(Object.getPrototypeOf(fields)).toBe(Object.prototype);
    expect(Object.hasOwn(fields, '__proto__')).toBe(true);
    expect(fields.constructor).toBe('y');
  });

  it.each(['q=%', 'q=%2', 'q=%zz', 'q=%C3', 'q=%FF', '%E0%A4%A=x', 'q=a+%zz', 'q=%+1', 'q=%2+'])(
    'refuses the malformed encoding %j',
    (body) => {
      expect(() => parseForm(body)).toThrow(FormEncodingError);
    },
  );

  it('says what is wrong with a malformed encoding', () => {
    expect(() => parseForm('a=1&q=%zz')).toThrow(
      expect.objectContaining({
        name: 'FormEncodingError',
        message: 'The form body holds a malformed percent-encoding',
      }),
    );
  });

  it('decodes + as a space beside escapes, and a + alone', () => {
    expect(parseForm('q=a+%C3%A9+b&p=+&r=1%2B1')).toEqual({ q: 'a é b', p: ' ', r: '1+1' });
  });

  /** `count` distinct fields `f0=0`, `f1=1`, … */
  const fields = (count: number) => Array.from({ length: count }, (_, index) => `f${index}=${index}`);

  it('holds at most 1000 fields', () => {
    expect(MAX_FORM_FIELDS).toBe(1000);
    expect(Object.keys(parseForm(fields(1000).join('&')))).toHaveLength(1000);
    expect(() => parseForm(fields(1001).join('&'))).toThrow(
      expect.objectContaining({ name: 'FormEncodingError', message: 'The form body holds more than 1000 fields' }),
    );
  });

  it('reads every field among empty pairs, which count for nothing, however many there are', () => {
    const parsed = parseForm(`&&${fields(1000).join('&&')}&`);
    expect(Object.keys(parsed)).toHaveLength(1000);
    expect(parsed.f999).toBe('999');
    expect(() => parseForm(`${fields(1001).join('&&')}`)).toThrow(FormEncodingError);
  });

  it('reads back what URLSearchParams writes (fuzzed)', () => {
    const key = fc.string({ minLength: 1, maxLength: 8 }).filter((k) => !k.endsWith('[]'));
    fc.assert(
      fc.property(fc.array(fc.tuple(key, fc.string({ maxLength: 12 })), { maxLength: 8 }), (pairs) => {
        const body = new URLSearchParams(pairs).toString();
        const expected = new Map<string, string[]>();
        for (const [k, v] of pairs) expected.set(k, [...(expected.get(k) ?? []), v]);
        const parsed = parseForm(body);
        expect(Object.keys(parsed).sort()).toEqual([...expected.keys()].sort());
        for (const [k, values] of expected) expect(parsed[k]).toEqual(values.length === 1 ? values[0] : values);
      }),
    );
  });

  it('either parses or throws FormEncodingError on arbitrary text (fuzzed)', () => {
    fc.assert(
      fc.property(formLikeText, (body) => {
        try {
          const parsed = parseForm(body);
          for (const value of Object.values(parsed)) {
            expect(
              typeof value === 'string' || (Array.isArray(value) && value.every((v) => typeof v === 'string')),
            ).toBe(true);
          }
        } catch (error) {
          expect(error).toBeInstanceOf(FormEncodingError);
        }
      }),
    );
  });
});
