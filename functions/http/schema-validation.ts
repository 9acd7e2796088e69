/**
 * The thin layer around the validators generated from openapi.yaml (`generated/request-validators.js`,
 * `npm run generate:validators`): it coerces a body to the schema's types before validation, and turns the
 * first error of a validator into the contract's `400 invalid_parameter` (docs/contract.md §1).
 *
 * Coercion, by encoding:
 * - **Form** values are strings, or lists of strings for a repeated key or `key[]`. A list property takes
 *   one value as a one-element list; each item and each scalar is coerced to its type: integers are decimal
 *   digits with an optional `-` (within the safe integers), numbers decimals, booleans `true`/`false` in
 *   any case. An empty value counts as absent for a typed field (anything but a free-text string). A value
 *   that does not coerce stays a string, and the validator refuses it.
 * - **JSON** keeps its types; `null` counts as absent, and a list of strings takes a lone string.
 *
 * Either way only the schema's properties are kept: unknown fields are ignored.
 */
import { invalidParameter, type ApiError } from './errors';
import type { FormField, RequestValidationError } from './validator-types';
import type { RequestBody } from './request';

const DECIMAL_INTEGER = /^-?\d+$/;
const DECIMAL_NUMBER = /^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

/** A form value as an integer, or `undefined` when it is not decimal digits of a safe integer. */
export const formInteger = (text: string): number | undefined => {
  if (!DECIMAL_INTEGER.test(text)) return undefined;
  const number = Number(text);
  return Number.isSafeInteger(number) ? number : undefined;
};

/** A form value as a finite number, or `undefined` when it is not a decimal. */
export const formNumber = (text: string): number | undefined => {
  if (!DECIMAL_NUMBER.test(text)) return undefined;
  const number = Number(text);
  return Number.isFinite(number) ? number : undefined;
};

/** A form value as a boolean (`true`/`false`, any case), or `undefined`. */
export const formBoolean = (text: string): boolean | undefined => {
  const folded = text.toLowerCase();
  return folded === 'true' ? true : folded === 'false' ? false : undefined;
};

const coerceText = (text: string, type: string | undefined): unknown => {
  const coerced =
    type === 'integer'
      ? formInteger(text)
      : type === 'number'
        ? formNumber(text)
        : type === 'boolean'
          ? formBoolean(text)
          : undefined;
  return coerced ?? text;
};

/** A typed field, where an empty form value means "not given": anything but a free-text string. */
const isTyped = (field: FormField): boolean => field.type !== 'string' || field.pattern !== undefined;

const coerceFormValue = (value: unknown, field: FormField): unknown => {
  if (field.type === 'array') {
    const list = Array.isArray(value) ? value : [value];
    return list.map((item) => (typeof item === 'string' ? coerceText(item, field.items) : item));
  }
  if (typeof value !== 'string') return value;
  if (value === '' && isTyped(field)) return undefined;
  return coerceText(value, field.type);
};

const normalizeJsonValue = (value: unknown, field: FormField): unknown => {
  if (value === null) return undefined;
  if (field.type === 'array' && field.items === 'string' && typeof value === 'string') return [value];
  return value;
};

/**
 * The fields of a body that a schema describes (its top-level properties, in schema order), coerced for
 * validation. Absent values are left out.
 */
export const coerceFields = (
  body: RequestBody,
  fields: Readonly<Record<string, FormField>>,
): Record<string, unknown> => {
  const coerced: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(fields)) {
    if (!Object.hasOwn(body.fields, name)) continue;
    const raw = body.fields[name];
    const value = body.encoding === 'form' ? coerceFormValue(raw, field) : normalizeJsonValue(raw, field);
    if (value !== undefined) coerced[name] = value;
  }
  return coerced;
};

/**
 * How an error names its field: `path` names nested JSON fields (`files[2].rejects[1].reason`), `top` only
 * the top-level field (`statuses` for a bad item of it; form bodies and search requests).
 */
export type ParameterNaming = 'path' | 'top';

const fieldPath = (error: RequestValidationError): string[] => {
  const segments = error.instancePath === '' ? [] : error.instancePath.slice(1).split('/');
  const path = segments.map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
  const missing = error.params.missingProperty;
  return error.keyword === 'required' && typeof missing === 'string' ? [...path, missing] : path;
};

/** The name of a path: `files[2].rejects[1].reason` (digit segments are list indexes). */
const pathName = (path: string[]): string =>
  path.reduce(
    (name, segment) => (/^\d+$/.test(segment) ? `${name}[${segment}]` : name ? `${name}.${segment}` : segment),
    '',
  );

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
};

const typeName = (type: unknown): string => {
  const types = (Array.isArray(type) ? type : [type]).filter((name) => name !== 'null');
  return types.map((name) => TYPE_NAMES[String(name)] ?? String(name)).join(' or ');
};

const bounds = (schema: Record<string, unknown> | undefined, min: string, max: string): string => {
  const low = schema?.[min];
  const high = schema?.[max];
  if (typeof low === 'number' && typeof high === 'number') return low === high ? `${low}` : `${low} to ${high}`;
  if (typeof low === 'number') return `at least ${low}`;
  return `at most ${String(high)}`;
};

interface SchemaNode {
  required?: string[];
  allOf?: SchemaNode[];
}

/** The properties a schema requires (the generator spreads them over `allOf` steps). */
const requiredNames = (schema: SchemaNode): string[] => [
  ...(schema.required ?? []),
  ...(schema.allOf ?? []).flatMap(requiredNames),
];

/** The requirement an error states, after the parameter's name (`must be an integer.`). */
const requirement = (error: RequestValidationError, naming: ParameterNaming): string => {
  const schema = error.parentSchema;
  switch (error.keyword) {
    case 'required':
      return 'is required.';
    case 'type':
      return `must be ${typeName(error.params.type)}${naming === 'top' && error.instancePath.split('/').length > 2 ? ' in every item' : ''}.`;
    case 'minimum':
    case 'maximum': {
      const low = schema?.minimum;
      const high = schema?.maximum;
      if (typeof low === 'number' && typeof high === 'number') {
        return typeName(schema?.type) === 'a number'
          ? `must be a number from ${low} to ${high}.`
          : `must be between ${low} and ${high}.`;
      }
      return error.keyword === 'minimum' ? `must be at least ${String(low)}.` : `must be at most ${String(high)}.`;
    }
    case 'minLength':
    case 'maxLength':
      return `must be ${bounds(schema, 'minLength', 'maxLength')} characters long.`;
    case 'minItems':
    case 'maxItems':
      return `must hold ${bounds(schema, 'minItems', 'maxItems')} items.`;
    case 'enum':
      return `must be one of ${(error.params.allowedValues as unknown[]).join(', ')}.`;
    case 'const':
      return `must be ${JSON.stringify(error.params.allowedValue)}.`;
    case 'pattern':
      return error.params.pattern === '\\S' ? 'must not be blank.' : 'is not in the expected format.';
    case 'anyOf': {
      const alternatives = (error.schema as SchemaNode[]).flatMap(requiredNames).join(' or ');
      return alternatives === '' ? 'is not valid.' : `needs a ${alternatives}.`;
    }
    default:
      return 'is not valid.';
  }
};

/**
 * The `400 invalid_parameter` of a validator's errors. With `allErrors` off a validator stops at the first
 * failing keyword; a combinator (`anyOf`) records its branches' errors before its own, so the last error
 * is the one that decided. `describe` may replace the message of a parameter.
 */
export const invalidParameterOf = (
  errors: readonly RequestValidationError[] | null | undefined,
  naming: ParameterNaming,
  describe?: (parameter: string, error: RequestValidationError) => string | undefined,
): ApiError => {
  const error = errors?.at(-1);
  if (error === undefined) return invalidParameter('body', 'The body is not valid.');
  const path = fieldPath(error);
  const parameter = (naming === 'top' ? path[0] : pathName(path)) || 'body';
  const message = describe?.(parameter, error) ?? `${parameter} ${requirement(error, naming)}`;
  return invalidParameter(parameter, message);
};
