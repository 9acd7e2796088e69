/**
 * Check 2 of docs/contract.md §1: the `Accept` header explicitly accepts `application/json`, else
 * `406 not_acceptable`. Wildcards, a missing or empty header and `application/json;q=0` do not.
 *
 * Negotiation itself is `@middy/http-content-negotiation`'s; this adapter runs the contract's stricter
 * explicit check first (the package lets a missing `Accept` and wildcards through) and hands the package
 * the header's ranges without their parameters other than `q` (its matcher treats `application/json;
 * charset=utf-8` as a different type, the contract does not). The negotiated type lands in
 * `context.preferredMediaType`; a mismatch the package reports is answered as `not_acceptable`.
 */
import httpContentNegotiation from '@middy/http-content-negotiation';
import { ApiError } from '../errors';
import { headerValue } from '../headers';
import { acceptsMediaType, parseAccept } from '../media-type';
import type { HttpMiddleware, HttpRequest } from './types';

export interface AcceptCheckOptions {
  /** The media type the API produces. */
  mediaType: string;
}

const defaults: AcceptCheckOptions = { mediaType: 'application/json' };

/** The ranges of an `Accept` header as the package's matcher reads them: type and weight only. */
const withoutParameters = (header: string): string =>
  parseAccept(header)
    .map((range) => (range.parameters.q === undefined ? range.type : `${range.type};q=${range.parameters.q}`))
    .join(', ');

/** Middleware factory: Accept check and content negotiation. */
export const acceptCheck = (opts: Partial<AcceptCheckOptions> = {}): HttpMiddleware => {
  const options: AcceptCheckOptions = { ...defaults, ...opts };
  const negotiation = httpContentNegotiation({
    parseCharsets: false,
    parseEncodings: false,
    parseLanguages: false,
    availableMediaTypes: [options.mediaType],
    failOnMismatch: true,
  });

  const acceptCheckBefore = (request: HttpRequest): void => {
    const accept = headerValue(request.event, 'accept');
    if (accept === undefined || !acceptsMediaType(accept, options.mediaType)) throw new ApiError('not_acceptable');
    try {
      negotiation.before?.({
        event: { headers: { accept: withoutParameters(accept) } },
        context: request.context,
      } as never);
    } catch (error) {
      if ((error as { statusCode?: unknown }).statusCode === 406)
        throw new ApiError('not_acceptable', {}, { cause: error });
      throw error;
    }
  };

  return { name: 'acceptCheck', before: acceptCheckBefore };
};
