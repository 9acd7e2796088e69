/**
 * Check 10 of docs/contract.md §1: the body is an object (`null`, arrays, strings and numbers at the top
 * level are `400 invalid_parameter` with `parameter: "body"`), then the endpoint's `parse` function
 * validates its fields, throwing `invalid_parameter` naming the first bad one.
 */
import type { Principal } from '../../auth/principal';
import { invalidParameter } from '../errors';
import type { RequestBody } from '../request';
import { principalOf } from '../state';
import type { HttpMiddleware, HttpRequest } from './types';

/** The parameter name an error gives when the body as a whole is not an object. */
export const BODY_PARAMETER = 'body';

export interface ValidationOptions<TInput> {
  /** The endpoint's parser ({@link noInput} for endpoints that read no body). */
  parse: (body: RequestBody, principal: Principal) => TInput;
}

/** The parser of an endpoint that reads no body (`GET /search/fields`): its input is `undefined`. */
export const noInput = (): undefined => undefined;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Middleware factory: body validation. Runs after {@link bodyParser} and {@link authentication}, last of the
 * checks; hands the endpoint's handler its validated request in `context.validatedRequest`.
 */
export const validation = <TInput>(opts: ValidationOptions<TInput>): HttpMiddleware<TInput> => {
  const options: ValidationOptions<TInput> = { ...opts };

  const validationBefore = (request: HttpRequest<TInput>): void => {
    const state = request.internal;
    const decoded = state.decodedBody ?? { encoding: 'json', value: {} };
    if (!isPlainObject(decoded.value)) {
      throw invalidParameter(BODY_PARAMETER, 'The body must be a JSON object or a form.');
    }
    const body: RequestBody = { encoding: decoded.encoding, fields: decoded.value };
    const principal = principalOf(state);
    request.context.validatedRequest = {
      input: options.parse(body, principal),
      principal,
      requestId: state.requestId ?? 'unknown',
    };
  };

  return { name: 'validation', before: validationBefore };
};
