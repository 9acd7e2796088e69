/**
 * Check 1 of docs/contract.md §1: the endpoint answers the request's method, else `405 method_not_allowed`
 * with an `Allow` header listing the methods it does answer. (Unknown paths never reach a Lambda: API
 * Gateway and the local server answer `404` from the route table.)
 */
import { ApiError } from '../errors';
import { allowHeader, allowsMethod, type Route } from '../routes';
import type { HttpMiddleware, HttpRequest } from './types';

export interface MethodCheckOptions {
  route: Route;
}

/** Middleware factory: method check. */
export const methodCheck = (opts: MethodCheckOptions): HttpMiddleware => {
  const options: MethodCheckOptions = { ...opts };
  const allow = allowHeader(options.route);

  const methodCheckBefore = (request: HttpRequest): void => {
    const method = request.event.httpMethod;
    if (typeof method !== 'string' || !allowsMethod(options.route, method)) {
      throw new ApiError('method_not_allowed', {}, { headers: { Allow: allow } });
    }
  };

  return { name: 'methodCheck', before: methodCheckBefore };
};
