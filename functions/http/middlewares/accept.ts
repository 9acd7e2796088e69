/**
 * Check 2 of SPEC section 1: the `Accept` header explicitly accepts `application/json`, else
 * `406 not_acceptable`. Wildcards, a missing or empty header and `application/json;q=0` do not.
 */
import { ApiError } from '../errors';
import { headerValue } from '../headers';
import { acceptsMediaType } from '../media-type';
import type { HttpMiddleware, HttpRequest } from './types';

export interface AcceptCheckOptions {
  /** The media type the API produces. */
  mediaType: string;
}

const defaults: AcceptCheckOptions = { mediaType: 'application/json' };

/** Middleware factory: Accept check. */
export const acceptCheck = (opts: Partial<AcceptCheckOptions> = {}): HttpMiddleware => {
  const options: AcceptCheckOptions = { ...defaults, ...opts };

  const acceptCheckBefore = (request: HttpRequest): void => {
    if (!acceptsMediaType(headerValue(request.event, 'accept'), options.mediaType)) {
      throw new ApiError('not_acceptable');
    }
  };

  return { name: 'acceptCheck', before: acceptCheckBefore };
};
