/**
 * Check 7 of docs/contract.md §1: the authenticated client holds the grant of the route (`search` for both
 * search endpoints, `reject` for /reject), else `403 forbidden`.
 */
import type { Grant } from '../../auth/principal';
import { ApiError } from '../errors';
import { principalOf } from '../state';
import type { HttpMiddleware, HttpRequest } from './types';

export interface AuthorizationOptions {
  grant: Grant;
}

/** Middleware factory: grant check. Runs after {@link authentication}. */
export const authorization = (opts: AuthorizationOptions): HttpMiddleware => {
  const options: AuthorizationOptions = { ...opts };

  const authorizationBefore = (request: HttpRequest): void => {
    if (!principalOf(request.internal).grants.includes(options.grant)) throw new ApiError('forbidden');
  };

  return { name: 'authorization', before: authorizationBefore };
};
