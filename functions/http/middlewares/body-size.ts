/**
 * Check 8 of docs/contract.md §1: the body is at most 1 MiB, counted in bytes (after base64 decoding when
 * API Gateway delivered it encoded), else `413 payload_too_large`.
 */
import { ApiError } from '../errors';
import type { HttpMiddleware, HttpRequest } from './types';

/** The largest accepted body: 1 MiB. */
export const MAX_BODY_BYTES = 1024 * 1024;

export interface BodySizeOptions {
  maxBytes: number;
}

const defaults: BodySizeOptions = { maxBytes: MAX_BODY_BYTES };

const isBase64Whitespace = (code: number): boolean => code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;

/** The decoded size of a base64 text, in bytes, without decoding it (whitespace and padding ignored). */
export const base64ByteLength = (text: string): number => {
  let significant = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code !== 0x3d && !isBase64Whitespace(code)) significant++;
  }
  return Math.floor((significant * 3) / 4);
};

/** The size in bytes of a proxy event's body. */
export const bodyByteLength = (body: string | null | undefined, isBase64Encoded: boolean | undefined): number => {
  if (body === null || body === undefined) return 0;
  return isBase64Encoded === true ? base64ByteLength(body) : Buffer.byteLength(body, 'utf8');
};

/** Middleware factory: body size check. */
export const bodySize = (opts: Partial<BodySizeOptions> = {}): HttpMiddleware => {
  const options: BodySizeOptions = { ...defaults, ...opts };

  const bodySizeBefore = (request: HttpRequest): void => {
    const { body, isBase64Encoded } = request.event;
    // A string's UTF-8 size is at most 3 bytes per UTF-16 unit: short bodies need no counting.
    if (body === null || body === undefined || body.length * 3 <= options.maxBytes) return;
    if (bodyByteLength(body, isBase64Encoded) > options.maxBytes) throw new ApiError('payload_too_large');
  };

  return { name: 'bodySize', before: bodySizeBefore };
};
