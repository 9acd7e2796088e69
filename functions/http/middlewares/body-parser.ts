/**
 * Check 9 of docs/contract.md §1: the body parses, as JSON or as form encoding according to its
 * `Content-Type`, else `400 invalid_json`. An empty (or all-whitespace) body is `{}`. Only methods
 * with a body (POST) are parsed; others get an empty JSON body.
 *
 * JSON is parsed by `@middy/http-json-body-parser`; this adapter adds the contract's rules around it: the
 * bytes must be UTF-8 (the package decodes base64 leniently), a byte-order mark is ignored, an empty body
 * is `{}`, the package's `422` becomes `invalid_json`, and a `__proto__` key — which the package refuses
 * outright — is an unknown field like any other and is dropped. The parsed body goes into the chain's
 * state (`request.internal`); the event stays as API Gateway sent it.
 */
import httpJsonBodyParser from '@middy/http-json-body-parser';
import { ApiError } from '../errors';
import { FormEncodingError, parseForm } from '../form';
import { lastHeaderValue } from '../headers';
import { contentTypeOf } from '../media-type';
import type { DecodedBody } from '../state';
import type { HttpMiddleware, HttpRequest } from './types';

/** The body is not valid UTF-8, JSON or form encoding. */
export class BodyParseError extends Error {
  public constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BodyParseError';
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

const packageJsonParser = httpJsonBodyParser({ disableContentTypeCheck: true });

/** The keys the package refuses; dropping them keeps the object every other key describes. */
const withoutForbiddenKeys = (text: string): unknown =>
  JSON.parse(text, (key, value: unknown) =>
    key === '__proto__' ||
    (key === 'constructor' && typeof value === 'object' && value !== null && Object.hasOwn(value, 'prototype'))
      ? undefined
      : value,
  );

const isHttpError = (error: unknown): error is Error & { statusCode: number } =>
  error instanceof Error && typeof (error as { statusCode?: unknown }).statusCode === 'number';

/** Parses JSON text with the package, mapping its refusals to {@link BodyParseError}. */
const parseJson = (text: string): unknown => {
  const request = { event: { headers: {}, body: text, isBase64Encoded: false } };
  try {
    packageJsonParser.before?.(request as never);
  } catch (error) {
    if (isHttpError(error) && error.message === 'Forbidden key in JSON body') return withoutForbiddenKeys(text);
    if (isHttpError(error)) throw new BodyParseError('The body is not JSON', { cause: error });
    throw error;
  }
  return request.event.body as unknown;
};

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
  return { encoding, value: parseJson(content) };
};

export interface BodyParserOptions {
  /** The methods whose body is read. */
  methods: readonly string[];
}

const defaults: BodyParserOptions = { methods: ['POST', 'PATCH'] };

/** Middleware factory: body parsing. Runs after {@link contentTypeCheck} and {@link bodySize}. */
export const bodyParser = (opts: Partial<BodyParserOptions> = {}): HttpMiddleware => {
  const options: BodyParserOptions = { ...defaults, ...opts };

  const bodyParserBefore = (request: HttpRequest): void => {
    const state = request.internal;
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
