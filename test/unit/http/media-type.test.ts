import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  acceptsMediaType,
  contentTypeOf,
  parseAccept,
  parseMediaType,
  quality,
} from '../../../functions/http/media-type';

/** Text built from the characters that matter to media types, plus any Unicode. */
const headerLikeText = fc
  .array(
    fc.oneof(
      fc.constantFrom('application', 'json', '/', '*', ',', ';', '=', '"', '\\', 'q', '0', '1', '.', ' ', 'charset'),
      fc.string({ unit: 'grapheme', maxLength: 2 }),
    ),
    { maxLength: 20 },
  )
  .map((parts) => parts.join(''));

const acceptsJson = (header: string | undefined) => acceptsMediaType(header, 'application/json');

describe('Accept negotiation', () => {
  it.each([
    'application/json',
    'APPLICATION/JSON',
    'Application/Json',
    'application/json; charset=utf-8',
    'application/json;q=0.5',
    'application/json; q=0.001',
    'text/html, application/json;q=0.9, */*;q=0.1',
    ' application/json ',
    'application/json;profile="a,b;c"',
    'application/json; Q=1',
    'application/json;q=1.000',
  ])('accepts %j', (header) => {
    expect(acceptsJson(header)).toBe(true);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['blank', '   '],
    ['*/*', '*/*'],
    ['application/*', 'application/*'],
    ['a refusal', 'application/json;q=0'],
    ['a refusal written 0.000', 'application/json;q=0.000'],
    ['a refusal beside an acceptance', 'application/json, application/json;q=0'],
    ['another type', 'text/html'],
    ['a structured suffix', 'application/problem+json'],
    ['a longer subtype', 'application/jsonx'],
    ['a malformed weight', 'application/json;q=abc'],
    ['a weight above 1', 'application/json;q=1.5'],
    ['a quoted comma only', 'text/plain;x="application/json"'],
  ])('refuses %s', (_name, header) => {
    expect(acceptsJson(header)).toBe(false);
  });

  it('reads parameters with quoted values', () => {
    expect(parseAccept('text/plain;a="x,y", application/json;q=0.2')).toEqual([
      { type: 'text/plain', parameters: { a: 'x,y' } },
      { type: 'application/json', parameters: { q: '0.2' } },
    ]);
  });

  it('never throws and accepts exactly when some application/json range has a positive weight and none a zero weight', () => {
    const range = fc.record({
      type: fc.constantFrom('application/json', 'APPLICATION/JSON', 'text/html', '*/*', 'application/*', 'image/png'),
      q: fc.option(fc.constantFrom('0', '0.0', '0.5', '1', '1.0', '0.001'), { nil: undefined }),
      extra: fc.option(fc.constantFrom('charset=utf-8', 'level=1', 'x="a,b"'), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(range, { maxLength: 6 }), (ranges) => {
        const header = ranges
          .map((r) => [r.type, r.extra, r.q === undefined ? undefined : `q=${r.q}`].filter(Boolean).join(';'))
          .join(', ');
        const json = ranges.filter((r) => r.type.toLowerCase() === 'application/json');
        const expected = json.some((r) => Number(r.q ?? '1') > 0) && json.every((r) => Number(r.q ?? '1') > 0);
        expect(acceptsJson(header)).toBe(expected);
      }),
    );
  });

  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(headerLikeText, (header) => {
        expect(typeof acceptsJson(header)).toBe('boolean');
      }),
    );
  });
});

describe('Content-Type parsing', () => {
  it.each([
    ['application/json', 'application/json'],
    ['Application/JSON; charset=UTF-8', 'application/json'],
    ['application/x-www-form-urlencoded;charset=utf-8', 'application/x-www-form-urlencoded'],
    ['  text/plain  ', 'text/plain'],
  ])('reads %j as %j', (header, type) => {
    expect(contentTypeOf(header)).toBe(type);
  });

  it.each([undefined, '', 'json', 'application/', '/json', 'application/json/x', 'appli cation/json'])(
    'finds no media type in %j',
    (header) => {
      expect(contentTypeOf(header)).toBeUndefined();
    },
  );

  it('keeps the first of repeated parameters and lower-cases their names', () => {
    expect(parseMediaType('a/b; Charset=x; charset=y')).toEqual({ type: 'a/b', parameters: { charset: 'x' } });
  });

  it('finds the media type whatever the case and parameters (fuzzed)', () => {
    const caseVariant = (text: string, flips: boolean[]) =>
      [...text].map((char, index) => (flips[index % flips.length] ? char.toUpperCase() : char)).join('');
    fc.assert(
      fc.property(
        fc.constantFrom('application/json', 'application/x-www-form-urlencoded'),
        fc.array(fc.boolean(), { minLength: 1 }),
        fc.array(fc.tuple(fc.stringMatching(/^[a-z]{1,8}$/), fc.stringMatching(/^[a-zA-Z0-9-]{0,8}$/)), {
          maxLength: 3,
        }),
        fc.constantFrom('', ' ', '  '),
        (type, flips, parameters, space) => {
          const header = [
            caseVariant(type, flips),
            ...parameters.map(([name, value]) => `${space}${name}=${value}`),
          ].join(';');
          expect(contentTypeOf(header)).toBe(type);
        },
      ),
    );
  });

  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(headerLikeText, (header) => {
        const type = contentTypeOf(header);
        expect(type === undefined || type === type.toLowerCase()).toBe(true);
      }),
    );
  });
});

describe('quoted strings and parameters (RFC 9110 §5.6.4, §5.6.6)', () => {
  it('reads a backslash inside quotes as escaping the next character, which does not end the quotes', () => {
    // `text/plain;x="a\",b", application/json`: the escaped quote leaves the comma inside the quoted value.
    expect(parseAccept('text/plain;x="a\\",b", application/json')).toEqual([
      { type: 'text/plain', parameters: { x: 'a",b' } },
      { type: 'application/json', parameters: {} },
    ]);
    expect(parseMediaType('a/b; x="a\\\\b"; y="\\a"')).toEqual({ type: 'a/b', parameters: { x: 'a\\b', y: 'a' } });
  });

  it('reads a backslash outside quotes as an ordinary character', () => {
    expect(parseAccept('text/plain;x=a\\, application/json')).toEqual([
      { type: 'text/plain', parameters: { x: 'a\\' } },
      { type: 'application/json', parameters: {} },
    ]);
  });

  it('keeps a backslash that ends the text inside unclosed quotes as written', () => {
    expect(parseMediaType('a/b;x="\\')).toEqual({ type: 'a/b', parameters: { x: '"\\' } });
  });

  it('unquotes a value only when quotes open and close it', () => {
    expect(parseMediaType('a/b; e=""; f="v"')?.parameters).toEqual({ e: '', f: 'v' });
    expect(parseMediaType('a/b; o="')?.parameters).toEqual({ o: '"' });
    expect(parseMediaType('a/b; s=v"')?.parameters).toEqual({ s: 'v"' });
    expect(parseMediaType('a/b; e="v')?.parameters).toEqual({ e: '"v' });
  });

  it('skips a parameter without "=" or with an empty name, and trims around name and value', () => {
    expect(parseMediaType('a/b; flag; =x; c = d ; e=f')).toEqual({ type: 'a/b', parameters: { c: 'd', e: 'f' } });
  });
});

describe('Accept lists and weights (RFC 9110 §5.6.1, §12.4.2, §12.5.1)', () => {
  it('skips empty list elements', () => {
    expect(parseAccept(' , application/json,,\t,text/html , ')).toEqual([
      { type: 'application/json', parameters: {} },
      { type: 'text/html', parameters: {} },
    ]);
    expect(acceptsJson(',application/json,')).toBe(true);
  });

  it('leaves out the elements that are no media range', () => {
    expect(parseAccept('json, application/json/x, application/json')).toEqual([
      { type: 'application/json', parameters: {} },
    ]);
  });

  it.each([
    ['1', 1],
    ['1.', 1],
    ['1.000', 1],
    ['0', 0],
    ['0.', 0],
    ['0.5', 0.5],
    ['0.001', 0.001],
    ['0.999', 0.999],
  ])('reads the weight q=%s as %d', (q, weight) => {
    expect(quality({ type: 'application/json', parameters: { q } })).toBe(weight);
  });

  it.each(['', '10', '01', '00', '2', '1.5', '1.0000', '1.001', '0.0001', '.5', '-0', '0.5x', 'x0.5', '0,5', '1e0'])(
    'reads the weight q=%j as malformed',
    (q) => {
      expect(quality({ type: 'application/json', parameters: { q } })).toBeUndefined();
    },
  );

  it('weighs a range without q as 1', () => {
    expect(quality({ type: 'application/json', parameters: {} })).toBe(1);
  });

  it('ignores a range of the type with a malformed weight, beside a well-formed one', () => {
    expect(acceptsJson('application/json;q=10')).toBe(false);
    expect(acceptsJson('application/json;q=0.0001, application/json;q=0.5')).toBe(true);
    expect(acceptsJson('application/json;q=00, application/json')).toBe(true);
    expect(acceptsJson('application/json;q=0., application/json')).toBe(false);
  });
});
