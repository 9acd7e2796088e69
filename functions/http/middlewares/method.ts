/**
 * Check 1 of docs/contract.md §1: the endpoint answers the request's method, else `405 method_not_allowed`
 * with an `Allow` header listing every method its path answers — those other functions serve too (one path,
 * such as `/jobs/{id}`, may be read by one function and written by another). Unknown paths never reach a
 * Lambda: API Gateway and the local server answer `404` from the route table.
 */
import { ApiError } from '../errors';
import { allowHeader, ROUTES, type Route } from '../routes';
import type { HttpMiddleware, HttpRequest } from './types';

export interface MethodCheckOptions {
  /** The endpoint the chain serves. */
  route: Route;
  /** The route table the `Allow` header is computed over (default: the API's). */
  routes?: readonly Route[];
}

/** Middleware factory: method check. */
export const methodCheck = (opts: MethodCheckOptions): HttpMiddleware => {
  const options = { routes: ROUTES, ...opts };
  const allow = allowHeader(options.route.path, options.routes);

  const methodCheckBefore = (request: HttpRequest): void => {
    if (request.event.httpMethod !== options.route.method) {
      throw new ApiError('method_not_allowed', {}, { headers: { Allow: allow } });
    }
  };

  return { name: 'methodCheck', before: methodCheckBefore };
};
