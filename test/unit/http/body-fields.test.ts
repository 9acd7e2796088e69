import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  characterCount,
  optionalBoolean,
  optionalInteger,
  optionalNumber,
  optionalString,
  optionalStringList,
} from '../../../functions/http/body-fields';
import type { RequestBody } from '../../../functions/http/request';
import { expectApiError } from './expect-api-error';

const json = (fields: Record<string, unknown>): RequestBody => ({ encoding: 'json', fields });
const form = (fields: Record<string, string | string[]>): RequestBody => ({ encoding: 'form', fields });

describe('optionalString', () => {
  it('reads a string of either encoding and treats absent or null as undefined', () => {
    expect(optionalString(json({ q: 'x' }), 'q')).toBe('x');
    expect(optionalString(form({ q: 'x' }), 'q')).toBe('x');
    expect(optionalString(json({}), 'q')).toBeUndefined();
    expect(optionalString(json({ q: null }), 'q')).toBeUndefined();
  });

  it('refuses a non-string, a form list and an over-long value, naming the field', async () => {
    await expectApiError(() => optionalString(json({ q: 5 }), 'q'), 'invalid_parameter', { parameter: 'q' });
    await expectApiError(() => optionalString(form({ q: ['a', 'b'] }), 'q'), 'invalid_parameter', { parameter: 'q' });
    await expectApiError(() => optionalString(json({ q: 'abcd' }), 'q', { maxLength: 3 }), 'invalid_parameter', {
      parameter: 'q',
    });
  });

  it('counts characters, not UTF-16 units', () => {
    expect(characterCount('😀😀')).toBe(2);
    expect(optionalString(json({ q: '😀😀😀' }), 'q', { maxLength: 3 })).toBe('😀😀😀');
  });

  it('ignores inherited properties', () => {
    expect(optionalString(json({}), 'toString')).toBeUndefined();
  });
});

describe('optionalInteger', () => {
  it('reads a JSON integer and a form decimal string', () => {
    expect(optionalInteger(json({ page: 3 }), 'page')).toBe(3);
    expect(optionalInteger(form({ page: '3' }), 'page')).toBe(3);
    expect(optionalInteger(form({ page: '-4' }), 'page')).toBe(-4);
    expect(optionalInteger(form({ page: '007' }), 'page')).toBe(7);
  });

  it('treats an empty form value as absent', () => {
    expect(optionalInteger(form({ page: '' }), 'page')).toBeUndefined();
  });

  it.each([
    ['a JSON numeric string', json({ page: '3' })],
    ['a JSON fraction', json({ page: 1.5 })],
    ['a JSON boolean', json({ page: true })],
    ['an unsafe integer', json({ page: 2 ** 53 })],
    ['a form fraction', form({ page: '1.0' })],
    ['a form exponent', form({ page: '1e3' })],
    ['a form plus sign', form({ page: '+3' })],
    ['a form space', form({ page: ' 3' })],
    ['a form list', form({ page: ['1', '2'] })],
  ])('refuses %s', async (_name, body) => {
    await expectApiError(() => optionalInteger(body, 'page'), 'invalid_parameter', { parameter: 'page' });
  });

  it('enforces inclusive bounds', async () => {
    expect(optionalInteger(json({ n: 1 }), 'n', { min: 1, max: 100 })).toBe(1);
    expect(optionalInteger(json({ n: 100 }), 'n', { min: 1, max: 100 })).toBe(100);
    await expectApiError(() => optionalInteger(json({ n: 0 }), 'n', { min: 1 }), 'invalid_parameter');
    await expectApiError(() => optionalInteger(form({ n: '101' }), 'n', { max: 100 }), 'invalid_parameter');
  });

  it('reads every safe integer the same from both encodings (fuzzed)', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (n) => {
        expect(optionalInteger(json({ n }), 'n')).toBe(n);
        expect(optionalInteger(form({ n: String(n) }), 'n')).toBe(n);
      }),
    );
  });
});

describe('optionalNumber', () => {
  it('reads JSON numbers and form decimals', () => {
    expect(optionalNumber(json({ x: 0.61 }), 'x')).toBe(0.61);
    expect(optionalNumber(form({ x: '0.61' }), 'x')).toBe(0.61);
    expect(optionalNumber(form({ x: '.5' }), 'x')).toBe(0.5);
  });

  it('refuses non-numbers and out-of-range values', async () => {
    await expectApiError(() => optionalNumber(json({ x: '0.5' }), 'x'), 'invalid_parameter');
    await expectApiError(() => optionalNumber(form({ x: 'NaN' }), 'x'), 'invalid_parameter');
    await expectApiError(() => optionalNumber(form({ x: 'Infinity' }), 'x'), 'invalid_parameter');
    await expectApiError(() => optionalNumber(json({ x: 1.01 }), 'x', { min: 0, max: 1 }), 'invalid_parameter');
  });
});

describe('optionalBoolean', () => {
  it('reads JSON booleans and form true/false in any case', () => {
    expect(optionalBoolean(json({ b: false }), 'b')).toBe(false);
    expect(optionalBoolean(form({ b: 'TRUE' }), 'b')).toBe(true);
    expect(optionalBoolean(form({ b: 'false' }), 'b')).toBe(false);
    expect(optionalBoolean(form({ b: '' }), 'b')).toBeUndefined();
  });

  it('refuses anything else', async () => {
    await expectApiError(() => optionalBoolean(json({ b: 'true' }), 'b'), 'invalid_parameter', { parameter: 'b' });
    await expectApiError(() => optionalBoolean(form({ b: 'yes' }), 'b'), 'invalid_parameter');
    await expectApiError(() => optionalBoolean(json({ b: 1 }), 'b'), 'invalid_parameter');
  });
});

describe('optionalStringList', () => {
  it('reads a JSON array or a lone string as a list', () => {
    expect(optionalStringList(json({ s: ['A', 'B'] }), 's')).toEqual(['A', 'B']);
    expect(optionalStringList(json({ s: 'A' }), 's')).toEqual(['A']);
    expect(optionalStringList(json({ s: [] }), 's')).toEqual([]);
  });

  it('reads a form list or a single form value as a list', () => {
    expect(optionalStringList(form({ s: ['A', 'B'] }), 's')).toEqual(['A', 'B']);
    expect(optionalStringList(form({ s: 'A' }), 's')).toEqual(['A']);
  });

  it('refuses non-string items, objects and lists over the limits', async () => {
    await expectApiError(() => optionalStringList(json({ s: ['A', 1] }), 's'), 'invalid_parameter', { parameter: 's' });
    await expectApiError(() => optionalStringList(json({ s: { a: 1 } }), 's'), 'invalid_parameter');
    await expectApiError(() => optionalStringList(json({ s: ['A', 'B'] }), 's', { maxItems: 1 }), 'invalid_parameter');
    await expectApiError(() => optionalStringList(json({ s: ['ABC'] }), 's', { maxLength: 2 }), 'invalid_parameter');
  });
});
