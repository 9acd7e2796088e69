/**
 * The request validators generated from openapi.yaml (fresh, self-contained, checking in property order)
 * and the thin layer around them: form coercion and the mapping of the first error to `invalid_parameter`.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { FormField, RequestValidationError } from '../../../functions/http/validator-types';
import {
  rejectFormFields,
  searchRequestFields,
  validateRejectRequest,
  validateSearchRequest,
} from '../../../functions/http/generated/request-validators';
import type { RequestBody } from '../../../functions/http/request';
import {
  coerceFields,
  formBoolean,
  formInteger,
  formNumber,
  invalidParameterOf,
} from '../../../functions/http/schema-validation';
import { generateValidators, VALIDATORS_DTS, VALIDATORS_JS } from '../../../scripts/generate-validators';

const json = (fields: Record<string, unknown>): RequestBody => ({ encoding: 'json', fields });
const form = (fields: Record<string, unknown>): RequestBody => ({ encoding: 'form', fields });

describe('the generated validators', () => {
  it('are generated from the current openapi.yaml (run `npm run generate:validators` after changing it)', () => {
    const { js, dts } = generateValidators();
    expect(readFileSync(VALIDATORS_JS, 'utf8')).toBe(js);
    expect(readFileSync(VALIDATORS_DTS, 'utf8')).toBe(dts);
  });

  it('import nothing, so a bundle needs no ajv at run time', () => {
    const code = readFileSync(VALIDATORS_JS, 'utf8');
    expect(code).not.toMatch(/\brequire\(|^\s*import\b|\bimport\(/m);
  });

  it('list the form fields in schema order, with their types', () => {
    expect(Object.keys(searchRequestFields)).toEqual([
      'field',
      'query',
      'page',
      'pageSize',
      'statuses',
      'dateFrom',
      'dateTo',
      'deliveredDateFrom',
      'deliveredDateTo',
    ]);
    expect(searchRequestFields.page).toEqual({ type: 'integer' });
    expect(searchRequestFields.statuses).toEqual({ type: 'array', items: 'string' });
    const openapi = parse(readFileSync(new URL('../../../openapi.yaml', import.meta.url), 'utf8'));
    expect(searchRequestFields.dateFrom).toEqual({
      type: 'string',
      pattern: openapi.components.schemas.RequestDateTime.pattern,
    });
    expect(rejectFormFields).toEqual({
      fileId: { type: 'array', items: 'integer' },
      customRejection: { type: 'string' },
      reason: { type: 'array', items: 'string' },
    });
  });

  it('count characters, not UTF-16 units', () => {
    expect(validateSearchRequest({ query: '📷'.repeat(500) })).toBe(true);
    expect(validateSearchRequest({ query: '📷'.repeat(501) })).toBe(false);
  });

  it('check an object in property order: a bad field before a later missing one', () => {
    const file = (rejects: unknown) => ({ files: [{ fileId: 1, rejects }] });
    expect(validateRejectRequest(file([{ reason: 'a', positions: [{ xPercent: 'x' }] }]))).toBe(false);
    expect(invalidParameterOf(validateRejectRequest.errors, 'path').context.parameter).toBe(
      'files[0].rejects[0].positions[0].xPercent',
    );
  });

  it('check a file fields before its "needs a review" rule', () => {
    expect(validateRejectRequest({ files: [{ fileId: 'x' }] })).toBe(false);
    expect(invalidParameterOf(validateRejectRequest.errors, 'path').context.parameter).toBe('files[0].fileId');
    expect(validateRejectRequest({ files: [{ fileId: 1, customRejection: ' ' }] })).toBe(false);
    const refusal = invalidParameterOf(validateRejectRequest.errors, 'path');
    expect(refusal.context.parameter).toBe('files[0]');
    expect(refusal.message).toBe('files[0] needs a customRejection or rejects.');
  });
});

describe('form scalars', () => {
  it('reads decimal integers, with an optional minus and leading zeros', () => {
    expect([formInteger('3'), formInteger('-4'), formInteger('007')]).toEqual([3, -4, 7]);
  });

  it.each(['1.0', '1e3', '+3', ' 3', '3 ', '', '0x10', String(2 ** 53)])('refuses %j as an integer', (text) => {
    expect(formInteger(text)).toBeUndefined();
  });

  it('reads every safe integer back from its decimal text (fuzzed)', () => {
    fc.assert(fc.property(fc.maxSafeInteger(), (n) => formInteger(String(n)) === n));
  });

  it('reads decimals as numbers, never NaN or Infinity', () => {
    expect([formNumber('0.61'), formNumber('.5'), formNumber('1e-3')]).toEqual([0.61, 0.5, 0.001]);
    for (const text of ['NaN', 'Infinity', '1e999', '']) expect(formNumber(text)).toBeUndefined();
  });

  it.each([
    ['-1.5', -1.5],
    ['12', 12],
    ['1.', 1],
    ['1.25', 1.25],
    ['.25', 0.25],
    ['-.5', -0.5],
    ['1e3', 1000],
    ['1E3', 1000],
    ['1e+3', 1000],
    ['25e-2', 0.25],
    ['1e10', 1e10],
    ['1.5E+12', 1.5e12],
    ['.5e1', 5],
  ])('reads the decimal %j as %d', (text, number) => {
    expect(formNumber(text)).toBe(number);
  });

  it.each([' 1', '1 ', '\n1', '1\n', 'x1', '1x', '.', '-', '+1', '1e', '1e+', 'e3', '1.2.3', '1e3.5', '0x10', '1_000'])(
    'refuses %j as a decimal',
    (text) => {
      expect(formNumber(text)).toBeUndefined();
    },
  );

  it('reads true and false in any case, nothing else', () => {
    expect([formBoolean('TRUE'), formBoolean('false')]).toEqual([true, false]);
    for (const text of ['yes', '1', '']) expect(formBoolean(text)).toBeUndefined();
  });
});

describe('coerceFields', () => {
  const fields: Record<string, FormField> = {
    text: { type: 'string' },
    date: { type: 'string', pattern: '^\\d{4}$' },
    count: { type: 'integer' },
    ratio: { type: 'number' },
    flag: { type: 'boolean' },
    names: { type: 'array', items: 'string' },
    ids: { type: 'array', items: 'integer' },
  };

  it('coerces form strings to the schema types', () => {
    expect(
      coerceFields(
        form({ text: 'a', date: '2016', count: '007', ratio: '.5', flag: 'TRUE', names: 'x', ids: ['1', '-2'] }),
        fields,
      ),
    ).toEqual({ text: 'a', date: '2016', count: 7, ratio: 0.5, flag: true, names: ['x'], ids: [1, -2] });
  });

  it('treats an empty form value as absent for typed fields only', () => {
    expect(coerceFields(form({ text: '', date: '', count: '', ratio: '', flag: '' }), fields)).toEqual({ text: '' });
  });

  it('leaves what does not coerce for the validator to refuse', () => {
    expect(
      coerceFields(
        form({ count: ' 3', ratio: 'NaN', flag: 'yes', ids: ['1', ''], text: ['a', 'b'], date: ['1', '2'] }),
        fields,
      ),
    ).toEqual({ count: ' 3', ratio: 'NaN', flag: 'yes', ids: [1, ''], text: ['a', 'b'], date: ['1', '2'] });
    expect(coerceFields(form({ count: String(2 ** 53) }), fields)).toEqual({ count: String(2 ** 53) });
  });

  it('keeps JSON types, reads null as absent and a lone string as a list of strings', () => {
    expect(coerceFields(json({ text: null, count: '3', flag: 'true', names: 'x', ids: 5, extra: 1 }), fields)).toEqual({
      count: '3',
      flag: 'true',
      names: ['x'],
      ids: 5,
    });
  });

  it('keeps only own fields the schema lists', () => {
    const body = json(JSON.parse('{"__proto__": {"count": 1}, "other": 2}') as Record<string, unknown>);
    expect(coerceFields(body, fields)).toEqual({});
    expect(coerceFields(json({}), { toString: { type: 'string' } })).toEqual({});
  });
});

describe('invalidParameterOf', () => {
  const error = (overrides: Partial<RequestValidationError>): RequestValidationError => ({
    instancePath: '',
    schemaPath: '#',
    keyword: 'type',
    params: {},
    ...overrides,
  });

  it('names a nested field with a path, or its top-level field', () => {
    const nested = error({ instancePath: '/files/2/rejects/1/reason', params: { type: 'string' } });
    expect(invalidParameterOf([nested], 'path').context.parameter).toBe('files[2].rejects[1].reason');
    expect(invalidParameterOf([nested], 'top').context.parameter).toBe('files');
  });

  it('names a missing required field where it would stand', () => {
    const missing = error({ instancePath: '/files/0', keyword: 'required', params: { missingProperty: 'fileId' } });
    const refusal = invalidParameterOf([missing], 'path');
    expect(refusal.context.parameter).toBe('files[0].fileId');
    expect(refusal.message).toBe('files[0].fileId is required.');
    expect(
      invalidParameterOf([error({ keyword: 'required', params: { missingProperty: 'fileId' } })], 'top').context,
    ).toEqual({ parameter: 'fileId' });
  });

  it('answers with the deciding error: a combinator comes after the errors of its branches', () => {
    const branch = error({ instancePath: '/files/1', keyword: 'required', params: { missingProperty: 'rejects' } });
    const anyOf = error({ instancePath: '/files/1', keyword: 'anyOf', schema: [{ required: ['customRejection'] }] });
    expect(invalidParameterOf([branch, anyOf], 'path').context.parameter).toBe('files[1]');
  });

  it('states both bounds of a limit when the schema has both', () => {
    const parentSchema = { type: 'integer', minimum: 1, maximum: 100 };
    expect(
      invalidParameterOf([error({ instancePath: '/pageSize', keyword: 'maximum', parentSchema })], 'top').message,
    ).toBe('pageSize must be between 1 and 100.');
  });

  it('lets the caller word the message of a parameter', () => {
    const refusal = invalidParameterOf([error({ instancePath: '/dateTo', keyword: 'pattern' })], 'top', (name) =>
      name === 'dateTo' ? 'dateTo must be a datetime.' : undefined,
    );
    expect(refusal.message).toBe('dateTo must be a datetime.');
  });

  it('words each requirement a schema states', () => {
    const message = (overrides: Partial<RequestValidationError>, naming: 'path' | 'top' = 'path') =>
      invalidParameterOf([error({ instancePath: '/f', ...overrides })], naming).message;
    expect(message({ params: { type: 'integer' } })).toBe('f must be an integer.');
    expect(message({ params: { type: ['number', 'null'] } })).toBe('f must be a number.');
    expect(message({ params: { type: 'boolean,array' } })).toBe('f must be boolean,array.');
    expect(message({ params: { type: ['string', 'object'] } })).toBe('f must be a string or an object.');
    expect(message({ params: { type: 'array' } })).toBe('f must be a list.');
    expect(message({ params: { type: 'boolean' } })).toBe('f must be true or false.');
    expect(message({ keyword: 'minimum', parentSchema: { type: 'number', minimum: 0, maximum: 1 } })).toBe(
      'f must be a number from 0 to 1.',
    );
    expect(message({ keyword: 'minimum', parentSchema: { type: 'integer', minimum: 1 } })).toBe(
      'f must be at least 1.',
    );
    expect(message({ keyword: 'maximum', parentSchema: { type: 'integer', maximum: 9 } })).toBe('f must be at most 9.');
    expect(message({ keyword: 'maxLength', parentSchema: { minLength: 1, maxLength: 500 } })).toBe(
      'f must be 1 to 500 characters long.',
    );
    expect(message({ keyword: 'minLength', parentSchema: { minLength: 3, maxLength: 3 } })).toBe(
      'f must be 3 characters long.',
    );
    expect(message({ keyword: 'minLength', parentSchema: { minLength: 2 } })).toBe(
      'f must be at least 2 characters long.',
    );
    expect(message({ keyword: 'maxLength', parentSchema: { maxLength: 64 } })).toBe(
      'f must be at most 64 characters long.',
    );
    expect(message({ keyword: 'minItems', parentSchema: { minItems: 1, maxItems: 50 } })).toBe(
      'f must hold 1 to 50 items.',
    );
    expect(message({ keyword: 'maxItems', parentSchema: { maxItems: 50 } })).toBe('f must hold at most 50 items.');
    expect(message({ keyword: 'enum', params: { allowedValues: ['JobName', 'Address'] } })).toBe(
      'f must be one of JobName, Address.',
    );
    expect(message({ keyword: 'const', params: { allowedValue: 'x' } })).toBe('f must be "x".');
    expect(message({ keyword: 'pattern', params: { pattern: '\\S' } })).toBe('f must not be blank.');
    expect(message({ keyword: 'pattern', params: { pattern: '^\\d+$' } })).toBe('f is not in the expected format.');
    expect(message({ keyword: 'anyOf', schema: [{ allOf: [{ required: ['a'] }] }, { required: ['b'] }] })).toBe(
      'f needs a a or b.',
    );
    expect(message({ keyword: 'anyOf', schema: [{ properties: {} }] })).toBe('f is not valid.');
    expect(message({ keyword: 'uniqueItems' })).toBe('f is not valid.');
  });

  it('says "in every item" of a bad item only when naming its top-level field', () => {
    const item = error({ instancePath: '/statuses/1', params: { type: 'string' } });
    expect(invalidParameterOf([item], 'top').message).toBe('statuses must be a string in every item.');
    expect(invalidParameterOf([item], 'path').message).toBe('statuses[1] must be a string.');
    const field = error({ instancePath: '/statuses', params: { type: 'array' } });
    expect(invalidParameterOf([field], 'top').message).toBe('statuses must be a list.');
  });

  it('decodes the JSON Pointer escapes of a field name', () => {
    const escaped = error({ instancePath: '/a~1b~0c/0', params: { type: 'string' } });
    expect(invalidParameterOf([escaped], 'path').context.parameter).toBe('a/b~c[0]');
    const twice = error({ instancePath: '/~1~1/~0~0', params: { type: 'string' } });
    expect(invalidParameterOf([twice], 'path').context.parameter).toBe('//.~~');
  });

  it('answers the body itself when a validator left no error', () => {
    for (const errors of [null, undefined, []]) {
      const refusal = invalidParameterOf(errors, 'path');
      expect(refusal.context).toEqual({ parameter: 'body' });
      expect(refusal.message).toBe('The body is not valid.');
    }
  });

  it('names the body when no field is at fault', () => {
    expect(invalidParameterOf([], 'path').context.parameter).toBe('body');
    expect(invalidParameterOf([error({ params: { type: 'object' } })], 'path').context.parameter).toBe('body');
  });
});
