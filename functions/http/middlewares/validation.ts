/**
 * Check 10 of docs/contract.md §1: the route's path parameters follow their rules (`{id}` outside the id
 * range is `400 invalid_parameter` naming `id`, docs/contract.md §6a), the body is an object (`null`, arrays, strings and numbers at the top
 * level are `400 invalid_parameter` with `parameter: "body"`), then the endpoint's `parse` function
 * validates its fields, throwing `invalid_parameter` naming the first bad one.
 */
import { invalidParameter } from '../errors';
import { readPathParameters } from '../path-parameters';
import type { RequestBody } from '../request';
import type { RoutePath } from '../routes';
import type { Principal } from '../../auth/principal';
import { callerOf } from '../state';
import type { HttpMiddleware, HttpRequest } from './types';

/** The parameter name an error gives when the body as a whole is not an object. */
export const BODY_PARAMETER = 'body';

export interface ValidationOptions<TInput, TCaller = Principal> {
  /** The endpoint's parser ({@link noInput} for endpoints that read no body); it may read the caller. */
  parse: (body: RequestBody, caller: TCaller) => TInput;
  /** The route's path, whose parameters are validated first (none for a literal path). */
  path?: RoutePath;
}

/** The parser of an endpoint that reads no body (`GET /search/fields`): its input is `undefined`. */
export const noInput = (): undefined => undefined;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Middleware factory: body validation. Runs after {@link bodyParser} and {@link authentication}, last of the
 * checks; hands the endpoint's handler its validated request in `context.validatedRequest`.
 */
export const validation = <TInput, TCaller = Principal>(
  opts: ValidationOptions<TInput, TCaller>,
): HttpMiddleware<TInput> => {
  const options: ValidationOptions<TInput, TCaller> = { ...opts };

  const validationBefore = (request: HttpRequest<TInput>): void => {
    const state = request.internal;
    const params = options.path === undefined ? {} : readPathParameters(options.path, request.event);
    const decoded = state.decodedBody ?? { encoding: 'json', value: {} };
    if (!isPlainObject(decoded.value)) {
      throw invalidParameter(BODY_PARAMETER, 'The body must be a JSON object or a form.');
    }
    const body: RequestBody = { encoding: decoded.encoding, fields: decoded.value };
    const principal = callerOf(state);
    request.context.validatedRequest = {
      input: options.parse(body, principal as TCaller),
      params,
      principal,
      requestId: state.requestId ?? 'unknown',
    };
  };

  return { name: 'validation', before: validationBefore };
};
