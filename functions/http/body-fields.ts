/**
 * Typed readers of single request-body fields that work for both encodings. Each returns `undefined` when
 * the field is absent and throws `400 invalid_parameter` naming the field when its value is unusable.
 *
 * The endpoints validate whole bodies with the validators generated from openapi.yaml (see
 * `schema-validation.ts`); these readers serve parsers without a schema (tests, benchmarks) and share
 * that layer's form coercion.
 *
 * Encoding rules:
 * - JSON keeps JSON types: an integer must be a JSON number (`"5"` is refused), a boolean a JSON
 *   boolean. A JSON `null` counts as absent.
 * - Form values are strings coerced to the field's type: integers are decimal digits with an optional
 *   leading `-`, booleans `true`/`false` (any case); an empty value counts as absent for integers,
 *   numbers and booleans. A form field sent more than once is a list, which only list readers accept.
 */
import { invalidParameter } from './errors';
import type { RequestBody } from './request';
import { formBoolean, formInteger, formNumber } from './schema-validation';

/** The raw value of a field, `undefined` when absent or JSON `null`. */
export const fieldValue = (body: RequestBody, name: string): unknown => {
  if (!Object.hasOwn(body.fields, name)) return undefined;
  const value = body.fields[name];
  return value === null ? undefined : value;
};

/** The number of characters (Unicode code points) of a string. */
export const characterCount = (text: string): number => {
  let count = 0;
  for (const _ of text) count++;
  return count;
};

/** Limits of a string field. */
export interface StringFieldOptions {
  /** Longest accepted value, in characters (code points). */
  maxLength?: number;
  /** Shortest accepted value, in characters (code points); default 0. */
  minLength?: number;
}

const checkLength = (value: string, name: string, options: StringFieldOptions): string => {
  const length = characterCount(value);
  if (options.maxLength !== undefined && length > options.maxLength) {
    throw invalidParameter(name, `${name} must be at most ${options.maxLength} characters long.`);
  }
  if (options.minLength !== undefined && length < options.minLength) {
    throw invalidParameter(name, `${name} must be at least ${options.minLength} characters long.`);
  }
  return value;
};

/** A string field. */
export const optionalString = (
  body: RequestBody,
  name: string,
  options: StringFieldOptions = {},
): string | undefined => {
  const value = fieldValue(body, name);
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalidParameter(name, `${name} must be a string.`);
  return checkLength(value, name, options);
};

/** Bounds of a numeric field (inclusive). */
export interface RangeOptions {
  min?: number;
  max?: number;
}

const checkRange = (value: number, name: string, options: RangeOptions): number => {
  if ((options.min !== undefined && value < options.min) || (options.max !== undefined && value > options.max)) {
    const bounds =
      options.min !== undefined && options.max !== undefined
        ? `between ${options.min} and ${options.max}`
        : options.min !== undefined
          ? `at least ${options.min}`
          : `at most ${options.max}`;
    throw invalidParameter(name, `${name} must be ${bounds}.`);
  }
  return value;
};

/** An integer field (a safe integer). */
export const optionalInteger = (body: RequestBody, name: string, options: RangeOptions = {}): number | undefined => {
  const value = fieldValue(body, name);
  if (value === undefined) return undefined;
  if (body.encoding === 'form' && value === '') return undefined;
  const number = body.encoding === 'form' && typeof value === 'string' ? formInteger(value) : value;
  if (typeof number !== 'number' || !Number.isSafeInteger(number)) {
    throw invalidParameter(name, `${name} must be an integer.`);
  }
  return checkRange(number, name, options);
};

/** A finite number field. */
export const optionalNumber = (body: RequestBody, name: string, options: RangeOptions = {}): number | undefined => {
  const value = fieldValue(body, name);
  if (value === undefined) return undefined;
  if (body.encoding === 'form' && value === '') return undefined;
  const number = body.encoding === 'form' && typeof value === 'string' ? formNumber(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number)) throw invalidParameter(name, `${name} must be a number.`);
  return checkRange(number, name, options);
};

/** A boolean field. */
export const optionalBoolean = (body: RequestBody, name: string): boolean | undefined => {
  const value = fieldValue(body, name);
  if (value === undefined) return undefined;
  if (typeof value === 'boolean') return value;
  if (body.encoding === 'form' && typeof value === 'string') {
    if (value === '') return undefined;
    const flag = formBoolean(value);
    if (flag !== undefined) return flag;
  }
  throw invalidParameter(name, `${name} must be true or false.`);
};

/** Limits of a list field. */
export interface ListFieldOptions {
  /** Most items accepted. */
  maxItems?: number;
  /** Longest accepted item, in characters (code points). */
  maxLength?: number;
}

/**
 * A list of strings. JSON: a string (a one-element list) or an array of strings. Form: one value (a
 * one-element list), repeated keys or `key[]`.
 */
export const optionalStringList = (
  body: RequestBody,
  name: string,
  options: ListFieldOptions = {},
): string[] | undefined => {
  const value = fieldValue(body, name);
  if (value === undefined) return undefined;
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || !list.every((item): item is string => typeof item === 'string')) {
    throw invalidParameter(name, `${name} must be a list of strings.`);
  }
  if (options.maxItems !== undefined && list.length > options.maxItems) {
    throw invalidParameter(name, `${name} must hold at most ${options.maxItems} items.`);
  }
  if (options.maxLength !== undefined) for (const item of list) checkLength(item, name, options);
  return list;
};
