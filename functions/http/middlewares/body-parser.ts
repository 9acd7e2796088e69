/**
 * Check 9 of SPEC section 1: the body parses, as JSON or as form encoding according to its
 * `Content-Type`, else `400 invalid_json`. An empty (or all-whitespace) body is `{}`. Only methods
 * with a body (POST) are parsed; others get an empty JSON body.
 */
import { ApiError } from '../errors';
import { FormEncodingError, parseForm } from '../form';
import { lastHeaderValue } from '../headers';
import { contentTypeOf } from '../media-type';
import { type DecodedBody, stateOf } from '../state';
import type { HttpMiddleware, HttpRequest } from './types';

/** The body is not valid UTF-8, JSON or form encoding. */
export class BodyParseError extends Error {
  public constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BodyParseError';
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** The body text of a proxy event (base64 decoded and checked to be UTF-8 when API Gateway encoded it). */
export const bodyText = (body: string | null | undefined, isBase64Encoded: boolean | undefined): string => {
  if (body === null || body === undefined) return '';
  if (isBase64Encoded !== true) return body;
  try {
    return utf8.decode(Buffer.from(body, 'base64'));
  } catch (error) {
    throw new BodyParseError('The body is not UTF-8', { cause: error });
  }
};

/** Decodes a body of a media type (`application/json` or `application/x-www-form-urlencoded`). */
export const decodeBody = (text: string, mediaType: string | undefined): DecodedBody => {
  const encoding = mediaType === 'application/x-www-form-urlencoded' ? 'form' : 'json';
  const content = text.startsWith('\uFEFF') ? text.slice(1) : text;
  if (content.trim() === '') return { encoding, value: {} };
  if (encoding === 'form') {
    try {
      return { encoding, value: parseForm(content.trim()) };
    } catch (error) {
      if (error instanceof FormEncodingError) throw new BodyParseError(error.message, { cause: error });
      throw error;
    }
  }
  try {
    return { encoding, value: JSON.parse(content) as unknown };
  } catch (error) {
    throw new BodyParseError('The body is not JSON', { cause: error });
  }
};

export interface BodyParserOptions {
  /** The methods whose body is read. */
  methods: readonly string[];
}

const defaults: BodyParserOptions = { methods: ['POST'] };

/** Middleware factory: body parsing. Runs after {@link contentTypeCheck} and {@link bodySize}. */
export const bodyParser = (opts: Partial<BodyParserOptions> = {}): HttpMiddleware => {
  const options: BodyParserOptions = { ...defaults, ...opts };

  const bodyParserBefore = (request: HttpRequest): void => {
    const state = stateOf(request.event);
    if (!options.methods.includes(request.event.httpMethod)) {
      state.decodedBody = { encoding: 'json', value: {} };
      return;
    }
    try {
      const text = bodyText(request.event.body, request.event.isBase64Encoded);
      state.decodedBody = decodeBody(text, contentTypeOf(lastHeaderValue(request.event, 'content-type')));
    } catch (error) {
      if (error instanceof BodyParseError) throw new ApiError('invalid_json', {}, { cause: error });
      throw error;
    }
  };

  return { name: 'bodyParser', before: bodyParserBefore };
};
