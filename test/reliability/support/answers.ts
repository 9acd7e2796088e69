/**
 * What every answer of the API must look like (docs/contract.md §1), as one assertion the property tests
 * share: the common headers, no 5xx for anything a client can send, and for every non-2xx answer the
 * contract error body — its code from the catalogue with the catalogue's status, a message, the request id,
 * only the context fields the contract names, and nothing of the server's insides.
 */
import { expect } from 'vitest';
import { ERROR_CATALOGUE, type ErrorCode } from '../../../functions/http/errors';
import type { Answer } from './harness';

/** The keys an error body may carry. */
const ERROR_BODY_KEYS = new Set([
  'code',
  'message',
  'requestId',
  'headerName',
  'parameter',
  'fileId',
  'grant',
  'currentVersion',
]);

/** The `_type` of each 200 answer. */
const SUCCESS_TYPES = new Set(['SearchFieldsResponseBody', 'SearchResponseBody', 'RejectResponseBody']);

/**
 * Text that would betray the server's insides: stack frames, error class names, SDK and engine
 * vocabulary, table names.
 */
export const INTERNALS =
  /\bat [\w.<>]+ \(|Error:|Exception|DynamoDB|SQLITE|sqlite|FTS5|OpenSearch|ECONN|TypeError|undefined is|null is|\bjobs-[0-9a-f]{8}\b|\bauth-[0-9a-f]{8}\b/;

/**
 * Asserts the common shape of any answer; returns the error code (or undefined for a 200). A 5xx fails
 * unless `allow5xx` (a dependency really is down).
 */
export const expectSpecAnswer = (answer: Answer, options: { allow5xx?: boolean } = {}): ErrorCode | undefined => {
  expect(answer.headers['Content-Type']).toBe('application/json; charset=utf-8');
  expect(answer.headers['Cache-Control']).toBe('no-store');
  const requestId = answer.headers['X-Request-Id'];
  expect(requestId).toMatch(/\S/);
  expect(answer.json, `not JSON: ${answer.body}`).toBeTypeOf('object');
  expect(answer.json).not.toBeNull();
  if (answer.status === 200) {
    expect(SUCCESS_TYPES.has(answer.json._type), answer.body).toBe(true);
    return undefined;
  }
  if (options.allow5xx !== true) expect(answer.status, answer.body).toBeLessThan(500);
  const code = answer.json.code as ErrorCode;
  expect(Object.hasOwn(ERROR_CATALOGUE, code), `unknown code in ${answer.body}`).toBe(true);
  expect(ERROR_CATALOGUE[code].status).toBe(answer.status);
  expect(answer.json.message).toBeTypeOf('string');
  expect(answer.json.requestId).toBe(requestId);
  for (const key of Object.keys(answer.json)) expect(ERROR_BODY_KEYS.has(key), `unexpected key ${key}`).toBe(true);
  if (code === 'missing_header') expect(['X-Client-Token', 'X-Session-Token']).toContain(answer.json.headerName);
  if (code === 'invalid_parameter') expect(answer.json.parameter).toBeTypeOf('string');
  if (code === 'method_not_allowed') expect(answer.headers.Allow).toMatch(/^(GET|POST)$/);
  expect(answer.body).not.toMatch(INTERNALS);
  return code;
};
