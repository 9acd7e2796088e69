/**
 * Check 7 of docs/contract.md §1: the authenticated client holds the grant of the route (`search` for both
 * search endpoints, `reject` for /reject, `sessions` for `POST /sessions`), else `403 forbidden` naming the
 * grant it lacks (`grant` in the body and in the message), so the integrator knows what to ask an operator
 * for. A route without a grant (a logout) lets every authenticated caller through.
 */
import type { Grant } from '../../auth/principal';
import { ApiError } from '../errors';
import { grantsOf } from '../state';
import type { HttpMiddleware, HttpRequest } from './types';

/** `403 forbidden` for a client that lacks `grant`, naming it. */
export const missingGrant = (grant: Grant): ApiError =>
  new ApiError('forbidden', { grant }, { message: `This operation needs the grant ${grant}, which the client lacks.` });

export interface AuthorizationOptions {
  /** The grant the route needs; `undefined` for none. */
  grant: Grant | undefined;
}

/** Middleware factory: grant check. Runs after {@link authentication}. */
export const authorization = (opts: AuthorizationOptions): HttpMiddleware => {
  const options: AuthorizationOptions = { ...opts };

  const authorizationBefore = (request: HttpRequest): void => {
    const grants = grantsOf(request.internal);
    if (options.grant !== undefined && !grants.includes(options.grant)) throw missingGrant(options.grant);
  };

  return { name: 'authorization', before: authorizationBefore };
};
