/**
 * Check 3 of docs/contract.md §1: a POST or a PATCH states a `Content-Type` of `application/json` or
 * `application/x-www-form-urlencoded` (any case, parameters allowed), else
 * `415 unsupported_media_type`. Other methods are not checked.
 */
import { ApiError } from '../errors';
import { lastHeaderValue } from '../headers';
import { contentTypeOf } from '../media-type';
import type { HttpMiddleware, HttpRequest } from './types';

/** The request media types the API reads. */
export const SUPPORTED_CONTENT_TYPES = ['application/json', 'application/x-www-form-urlencoded'] as const;

export interface ContentTypeCheckOptions {
  /** The media types accepted (lower case). */
  supported: readonly string[];
  /** The methods whose body is checked. */
  methods: readonly string[];
}

const defaults: ContentTypeCheckOptions = { supported: SUPPORTED_CONTENT_TYPES, methods: ['POST', 'PATCH'] };

/** Middleware factory: Content-Type check. */
export const contentTypeCheck = (opts: Partial<ContentTypeCheckOptions> = {}): HttpMiddleware => {
  const options: ContentTypeCheckOptions = { ...defaults, ...opts };

  const contentTypeCheckBefore = (request: HttpRequest): void => {
    if (!options.methods.includes(request.event.httpMethod)) return;
    const type = contentTypeOf(lastHeaderValue(request.event, 'content-type'));
    if (type === undefined || !options.supported.includes(type)) throw new ApiError('unsupported_media_type');
  };

  return { name: 'contentTypeCheck', before: contentTypeCheckBefore };
};
