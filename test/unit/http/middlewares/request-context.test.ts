import { describe, expect, it } from 'vitest';
import { requestContext } from '../../../../functions/http/middlewares/request-context';
import { stateOf } from '../../../../functions/http/state';
import { lambdaContext } from '../../../support/api-event';
import { requestFor } from './harness';

describe('request context middleware', () => {
  it('takes the request id from API Gateway', async () => {
    const request = requestFor({ requestId: 'gw-1' });
    await requestContext().before?.(request);
    expect(stateOf(request.event).requestId).toBe('gw-1');
  });

  it('falls back to the Lambda request id, then to a generated one', async () => {
    const request = requestFor();
    request.event.requestContext.requestId = '';
    request.context = lambdaContext({ awsRequestId: 'lambda-1' });
    await requestContext().before?.(request);
    expect(stateOf(request.event).requestId).toBe('lambda-1');

    request.context = lambdaContext({ awsRequestId: '' });
    await requestContext({ fallbackRequestId: () => 'generated' }).before?.(request);
    expect(stateOf(request.event).requestId).toBe('generated');
  });

  it('forgets what an earlier invocation with the same event learnt', async () => {
    const request = requestFor({ requestId: 'gw-2' });
    stateOf(request.event).input = { stale: true };
    await requestContext().before?.(request);
    expect(stateOf(request.event)).toEqual({ requestId: 'gw-2' });
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
});
