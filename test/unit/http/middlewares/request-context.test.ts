import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { requestContext } from '../../../../functions/http/middlewares/request-context';
import type { EndpointContext, HttpState } from '../../../../functions/http/state';
import { lambdaContext } from '../../../support/api-event';
import { requestFor } from './harness';

describe('request context middleware', () => {
  it('takes the request id from API Gateway', async () => {
    const request = requestFor({ requestId: 'gw-1' });
    request.internal = {};
    await requestContext().before?.(request);
    expect(request.internal.requestId).toBe('gw-1');
  });

  it('falls back to the Lambda request id, then to a generated one', async () => {
    const request = requestFor();
    request.internal = {};
    request.event.requestContext.requestId = '';
    request.context = lambdaContext({ awsRequestId: 'lambda-1' });
    await requestContext().before?.(request);
    expect(request.internal.requestId).toBe('lambda-1');

    request.context = lambdaContext({ awsRequestId: '' });
    await requestContext({ fallbackRequestId: () => 'generated' }).before?.(request);
    expect(request.internal.requestId).toBe('generated');
  });

  it('starts every invocation with fresh state, even for the same event object', async () => {
    const seen: Array<Record<string, unknown>> = [];
    const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, EndpointContext, HttpState>(async () => ({
      statusCode: 200,
      body: '{}',
    })).use([
      requestContext(),
      {
        before: (request) => {
          seen.push({ ...request.internal });
          request.internal.decodedBody = { encoding: 'json', value: {} };
        },
      },
    ]);
    const { event } = requestFor({ requestId: 'gw-2' });
    await handler(event, lambdaContext());
    await handler(event, lambdaContext());
    expect(seen).toEqual([{ requestId: 'gw-2' }, { requestId: 'gw-2' }]);
  });

  it('adds the common headers to a successful answer, keeping its own', async () => {
    const request = requestFor({ requestId: 'gw-3' });
    const middleware = requestContext();
    await middleware.before?.(request);
    request.response = { statusCode: 200, headers: { ETag: '"x"' }, body: '{}' };
    await middleware.after?.(request);
    expect(request.response.headers).toEqual({
      ETag: '"x"',
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Request-Id': 'gw-3',
    });
  });

  it('adds no Content-Type to a 304, which has no content', async () => {
    const request = requestFor({ requestId: 'gw-4' });
    const middleware = requestContext();
    await middleware.before?.(request);
    request.response = { statusCode: 304, headers: { ETag: '"x"' }, body: '' };
    await middleware.after?.(request);
    expect(request.response.headers).toEqual({ ETag: '"x"', 'Cache-Control': 'no-store', 'X-Request-Id': 'gw-4' });
  });
});
