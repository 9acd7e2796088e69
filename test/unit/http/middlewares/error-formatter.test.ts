import { ThrottlingException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { ApiError, DependencyUnavailableError, invalidParameter } from '../../../../functions/http/errors';
import { errorFormatter, toApiError } from '../../../../functions/http/middlewares/error-formatter';
import { SearchRejectedError, SearchUnavailableError } from '../../../../functions/search/search-index';
import { requestFor } from './harness';

const quiet = (challenge?: string) => {
  const logger = { info: vi.fn(), error: vi.fn() };
  const metrics = { addMetric: vi.fn(), publishStoredMetrics: vi.fn() };
  return { logger, metrics, middleware: errorFormatter({ logger, metrics, challenge }) };
};

const format = async (error: unknown, challenge?: string) => {
  const parts = quiet(challenge);
  const request = requestFor({ requestId: 'req-9' });
  request.error = error as Error;
  await parts.middleware.onError?.(request);
  const response = request.response;
  if (response === undefined || response === null) throw new Error('No response was set');
  return { ...parts, response, body: JSON.parse(response.body) as Record<string, unknown> };
};

const COMMON = {
  'Content-Type': 'application/json; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Request-Id': 'req-9',
};

describe('error formatter middleware', () => {
  it('answers an ApiError with its status, context and the common headers', async () => {
    const { response, body } = await format(new ApiError('missing_header', { headerName: 'X-Client-Token' }));
    expect(response.statusCode).toBe(400);
    expect(response.headers).toEqual(COMMON);
    expect(body).toEqual({
      code: 'missing_header',
      message: 'A required header was not supplied.',
      headerName: 'X-Client-Token',
      requestId: 'req-9',
    });
  });

  it.each(['invalid_client', 'invalid_session'] as const)(
    'answers %s (401) with the route’s WWW-Authenticate challenge',
    async (code) => {
      const challenge = 'ClientSession realm="jobs-api", headers="X-Client-Token X-Session-Token"';
      const { response } = await format(new ApiError(code), challenge);
      expect(response.statusCode).toBe(401);
      expect(response.headers).toEqual({ ...COMMON, 'WWW-Authenticate': challenge });
    },
  );

  it('adds the challenge to no answer but a 401', async () => {
    const { response } = await format(new ApiError('forbidden'), 'ClientSession realm="jobs-api"');
    expect(response.headers).toEqual(COMMON);
  });

  it('keeps the extra headers of an ApiError', async () => {
    const { response } = await format(new ApiError('method_not_allowed', {}, { headers: { Allow: 'POST' } }));
    expect(response.headers).toEqual({ ...COMMON, Allow: 'POST' });
  });

  it('names the parameter of invalid_parameter', async () => {
    const { body } = await format(invalidParameter('page', 'page must be at least 0.'));
    expect(body).toEqual({
      code: 'invalid_parameter',
      message: 'page must be at least 0.',
      parameter: 'page',
      requestId: 'req-9',
    });
  });

  it.each([
    ['a DependencyUnavailableError', new DependencyUnavailableError('DynamoDB', new Error('boom'), 3), '3'],
    ['a SearchUnavailableError', new SearchUnavailableError('down'), '1'],
    ['a DynamoDB throttling', new ThrottlingException({ message: 'Rate exceeded', $metadata: {} }), '1'],
    ['an SDK timeout', Object.assign(new Error('Request timed out'), { name: 'TimeoutError' }), '1'],
    [
      'a refused connection',
      Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:443'), { code: 'ECONNREFUSED' }),
      '1',
    ],
  ])('answers 503 service_unavailable with Retry-After to %s', async (_name, error, retryAfter) => {
    const { response, body, logger, metrics } = await format(error);
    expect(response.statusCode).toBe(503);
    expect(response.headers).toEqual({ ...COMMON, 'Retry-After': retryAfter });
    expect(body).toEqual({
      code: 'service_unavailable',
      message: 'The service is temporarily unavailable. Retry later.',
      requestId: 'req-9',
    });
    expect(logger.error).toHaveBeenCalledWith('Request failed', expect.objectContaining({ error }));
    expect(metrics.addMetric).toHaveBeenCalledWith('DependencyUnavailable', 'Count', 1);
  });

  it('answers 500 internal_error to anything else, leaking nothing of the cause', async () => {
    const secret = new TypeError("Cannot read properties of undefined (reading 'jobsTableSecretName')");
    const { response, body, logger, metrics } = await format(secret);
    expect(response.statusCode).toBe(500);
    expect(response.headers).toEqual(COMMON);
    expect(body).toEqual({ code: 'internal_error', message: 'An unexpected error occurred.', requestId: 'req-9' });
    expect(response.body).not.toMatch(/TypeError|jobsTableSecretName|stack|at /);
    expect(logger.error).toHaveBeenCalledWith('Request failed', expect.objectContaining({ error: secret }));
    expect(metrics.addMetric).toHaveBeenCalledWith('InternalError', 'Count', 1);
  });

  it('answers 500 to a thrown non-error value', async () => {
    const { response } = await format('just a string');
    expect(response.statusCode).toBe(500);
  });

  it('logs client errors at info level with their code, without metrics', async () => {
    const { logger, metrics } = await format(new ApiError('forbidden'));
    expect(logger.info).toHaveBeenCalledWith(
      'Request refused',
      expect.objectContaining({ code: 'forbidden', status: 403 }),
    );
    expect(logger.error).not.toHaveBeenCalled();
    expect(metrics.addMetric).not.toHaveBeenCalled();
  });

  it('still answers when logging fails', async () => {
    const logger = {
      info: vi.fn(),
      error: vi.fn(() => {
        throw new Error('log sink down');
      }),
    };
    const request = requestFor({ requestId: 'req-9' });
    request.error = new Error('bug');
    await errorFormatter({ logger, metrics: { addMetric: vi.fn(), publishStoredMetrics: vi.fn() } }).onError?.(request);
    expect(request.response?.statusCode).toBe(500);
  });

  it('returns an ApiError unchanged from toApiError', () => {
    const error = new ApiError('not_found');
    expect(toApiError(error)).toBe(error);
  });
});

describe('error formatter middleware, beyond the answer', () => {
  it('answers a query the search engine refused as invalid_parameter naming the query', async () => {
    const cause = new SearchRejectedError('too many clauses');
    const apiError = toApiError(cause);
    expect(apiError.code).toBe('invalid_parameter');
    expect(apiError.context).toEqual({ parameter: 'query' });
    expect(apiError.cause).toBe(cause);
    const { response, body } = await format(cause);
    expect(response.statusCode).toBe(400);
    expect(body).toMatchObject({ code: 'invalid_parameter', parameter: 'query' });
  });

  it('keeps the cause of an internal error for the log', () => {
    const cause = new TypeError('x');
    expect(toApiError(cause).cause).toBe(cause);
  });

  it('publishes the metric of a failure at once, and logs the path and method it failed on', async () => {
    const { logger, metrics } = await format(new Error('bug'));
    expect(metrics.publishStoredMetrics).toHaveBeenCalledTimes(1);
    expect(logger.error).toHaveBeenCalledWith(
      'Request failed',
      expect.objectContaining({ path: '/search/fields', method: 'GET', requestId: 'req-9', status: 500 }),
    );
  });

  it('leaves an answer another middleware already gave as it is', async () => {
    const { logger, metrics, middleware } = quiet();
    const request = requestFor({ requestId: 'req-9' });
    const given = { statusCode: 304, headers: {}, body: '' };
    request.response = given;
    request.error = new Error('late');
    await middleware.onError?.(request);
    expect(request.response).toBe(given);
    expect(logger.error).not.toHaveBeenCalled();
    expect(metrics.addMetric).not.toHaveBeenCalled();
  });

  it('answers when the response is null, as when it is unset', async () => {
    const { middleware } = quiet();
    const request = requestFor({ requestId: 'req-9' });
    request.response = null as never;
    request.error = new ApiError('forbidden');
    await middleware.onError?.(request);
    expect((request.response as { statusCode?: number } | null)?.statusCode).toBe(403);
  });

  it('answers with an unknown request id when the chain state has none', async () => {
    const { middleware } = quiet();
    const request = requestFor();
    request.internal = undefined as never;
    request.error = new ApiError('forbidden');
    await middleware.onError?.(request);
    expect(JSON.parse(request.response?.body ?? '{}')).toMatchObject({ code: 'forbidden', requestId: 'unknown' });
  });
});
