/**
 * Check 10 of docs/contract.md §1: the body is an object (`null`, arrays, strings and numbers at the top
 * level are `400 invalid_parameter` with `parameter: "body"`), then the endpoint's `parse` function
 * validates its fields, throwing `invalid_parameter` naming the first bad one.
 */
import type { Principal } from '../../auth/principal';
import { invalidParameter } from '../errors';
import type { RequestBody } from '../request';
import { principalOf, stateOf } from '../state';
import type { HttpMiddleware, HttpRequest } from './types';

/** The parameter name an error gives when the body as a whole is not an object. */
export const BODY_PARAMETER = 'body';

export interface ValidationOptions<TInput> {
  /** The endpoint's parser; without one the input is `undefined`. */
  parse?: (body: RequestBody, principal: Principal) => TInput;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Middleware factory: body validation. Runs after {@link bodyParser} and {@link authentication}. */
export const validation = <TInput>(opts: ValidationOptions<TInput> = {}): HttpMiddleware => {
  const options: ValidationOptions<TInput> = { ...opts };

  const validationBefore = (request: HttpRequest): void => {
    const state = stateOf(request.event);
    const decoded = state.decodedBody ?? { encoding: 'json', value: {} };
    if (!isPlainObject(decoded.value)) {
      throw invalidParameter(BODY_PARAMETER, 'The body must be a JSON object or a form.');
    }
    const body: RequestBody = { encoding: decoded.encoding, fields: decoded.value };
    state.body = body;
    state.input = options.parse?.(body, principalOf(request.event));
  };

  return { name: 'validation', before: validationBefore };
};
