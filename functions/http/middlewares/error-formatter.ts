/**
 * The one error formatter of the chain: every error, whoever threw it, becomes the contract error body
 * `{code, message, requestId, ...context}` with the common headers.
 *
 * - {@link ApiError}: its status, headers and context.
 * - A search the engine refused as malformed ({@link SearchRejectedError}): `400 invalid_parameter` `query`.
 * - A dependency failure (see `isDependencyFailure`): `503 service_unavailable` with `Retry-After`.
 * - Anything else: `500 internal_error`, whose body says nothing about the cause.
 *
 * A `401` also carries the route's `WWW-Authenticate` challenge (RFC 9110 requires one on every `401`).
 *
 * Client errors are logged at INFO with their code; server errors at ERROR with the real error (the
 * logger redacts tokens; headers are never logged).
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logger as defaultLogger, metrics as defaultMetrics } from '../../observability';
import { isDependencyFailure, retryAfterSeconds } from '../dependency-errors';
import { ApiError, ERROR_STATUS } from '../errors';
import { errorResponse } from '../response';
import { SearchRejectedError } from '../../search/search-index';
import type { HttpMiddleware, HttpRequest } from './types';

/** The logging surface the formatter needs. */
export type ErrorLogger = Pick<Logger, 'info' | 'error'>;

/** The metrics surface the formatter needs. */
export interface ErrorMetrics {
  addMetric(name: string, unit: typeof MetricUnit.Count, value: number): void;
  publishStoredMetrics(): void;
}

export interface ErrorFormatterOptions {
  logger: ErrorLogger;
  metrics: ErrorMetrics;
  /** `Retry-After` seconds for dependency failures that do not state their own. */
  retryAfterSeconds: number;
  /** The `WWW-Authenticate` challenge of a `401` answer (the route's credentials); none by default. */
  challenge: string | undefined;
}

const defaults: ErrorFormatterOptions = {
  logger: defaultLogger,
  metrics: defaultMetrics,
  retryAfterSeconds: 1,
  challenge: undefined,
};

/** The metric counted for each kind of server error. */
export const ERROR_METRICS = {
  service_unavailable: 'DependencyUnavailable',
  internal_error: 'InternalError',
} as const;

/** Turns any thrown value into the {@link ApiError} the client is answered with. */
export const toApiError = (error: unknown, fallbackRetryAfterSeconds = 1): ApiError => {
  if (error instanceof ApiError) return error;
  if (error instanceof SearchRejectedError) {
    return new ApiError('invalid_parameter', { parameter: 'query' }, { cause: error });
  }
  if (isDependencyFailure(error)) {
    const retryAfter = retryAfterSeconds(error, fallbackRetryAfterSeconds);
    return new ApiError('service_unavailable', {}, { headers: { 'Retry-After': String(retryAfter) }, cause: error });
  }
  return new ApiError('internal_error', {}, { cause: error });
};

/** Middleware factory: error formatter. Register it last so that its `onError` runs first. */
export const errorFormatter = (opts: Partial<ErrorFormatterOptions> = {}): HttpMiddleware => {
  const options: ErrorFormatterOptions = { ...defaults, ...opts };

  const report = (apiError: ApiError, error: unknown, request: HttpRequest, requestId: string): void => {
    const details = {
      requestId,
      code: apiError.code,
      status: ERROR_STATUS[apiError.code],
      path: request.event?.path,
      method: request.event?.httpMethod,
    };
    if (ERROR_STATUS[apiError.code] < 500) {
      options.logger.info('Request refused', details);
      return;
    }
    options.logger.error('Request failed', { ...details, error });
    options.metrics.addMetric(
      ERROR_METRICS[apiError.code as keyof typeof ERROR_METRICS] ?? 'InternalError',
      MetricUnit.Count,
      1,
    );
    options.metrics.publishStoredMetrics();
  };

  const errorFormatterOnError = (request: HttpRequest): void => {
    if (request.response !== undefined && request.response !== null) return;
    const error: unknown = request.error;
    const apiError = toApiError(error, options.retryAfterSeconds);
    const requestId = request.internal?.requestId ?? 'unknown';
    try {
      report(apiError, error, request, requestId);
    } catch {
      // Reporting must never change the answer.
    }
    const response = errorResponse(apiError, requestId);
    if (ERROR_STATUS[apiError.code] === 401 && options.challenge !== undefined) {
      response.headers = { ...response.headers, 'WWW-Authenticate': options.challenge };
    }
    request.response = response;
  };

  return { name: 'errorFormatter', onError: errorFormatterOnError };
};
