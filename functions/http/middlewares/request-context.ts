/**
 * Check 0 of the chain: gives the request its id and every successful answer the common headers
 * (`Content-Type: application/json; charset=utf-8`, `Cache-Control: no-store`, `X-Request-Id`; no
 * `Content-Type` on a `304`, which has no content). Error answers get the same headers from the error formatter.
 */
import { answerHeaders } from '../headers';
import type { HttpMiddleware, HttpRequest } from './types';

export interface RequestContextOptions {
  /** Fallback id when neither API Gateway nor Lambda gives one (direct invocations in tests). */
  fallbackRequestId: () => string;
}

const defaults: RequestContextOptions = {
  fallbackRequestId: () => crypto.randomUUID(),
};

/**
 * The request id: API Gateway's `requestContext.requestId`, else the Lambda `awsRequestId`, else a
 * fresh UUID.
 */
export const requestIdOf = (request: HttpRequest, fallback: () => string): string => {
  const fromGateway = request.event?.requestContext?.requestId;
  if (typeof fromGateway === 'string' && fromGateway !== '') return fromGateway;
  const fromLambda = request.context?.awsRequestId;
  if (typeof fromLambda === 'string' && fromLambda !== '') return fromLambda;
  return fallback();
};

/** Middleware factory: request id and common response headers. */
export const requestContext = (opts: Partial<RequestContextOptions> = {}): HttpMiddleware => {
  const options: RequestContextOptions = { ...defaults, ...opts };

  const requestContextBefore = (request: HttpRequest): void => {
    request.internal.requestId = requestIdOf(request, options.fallbackRequestId);
  };

  const requestContextAfter = (request: HttpRequest): void => {
    if (request.response === null || request.response === undefined) return;
    const requestId = request.internal.requestId ?? 'unknown';
    request.response.headers = {
      ...request.response.headers,
      ...answerHeaders(requestId, request.response.statusCode),
    };
  };

  return { name: 'requestContext', before: requestContextBefore, after: requestContextAfter };
};
