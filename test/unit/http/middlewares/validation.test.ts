import { describe, expect, it, vi } from 'vitest';
import type { Principal } from '../../../../functions/auth/principal';
import { invalidParameter } from '../../../../functions/http/errors';
import { noInput, validation } from '../../../../functions/http/middlewares/validation';
import type { RequestBody } from '../../../../functions/http/request';
import { expectApiError } from '../expect-api-error';
import { requestFor, runBefore } from './harness';

const principal: Principal = {
  clientId: 'c1',
  clientName: 'Client',
  grants: ['search'],
  sessionId: 's1',
  userId: 'u1',
  accountId: 42,
  role: 'operator',
};

const parsed = (value: unknown, encoding: RequestBody['encoding'] = 'json') => {
  const request = requestFor({ method: 'POST', path: '/search' });
  request.internal.principal = principal;
  request.internal.decodedBody = { encoding, value };
  return request;
};

describe('validation middleware', () => {
  it('hands the body and the principal to the endpoint parser, and its result to the handler', async () => {
    const parse = vi.fn((body: RequestBody) => ({ page: Number(body.fields.page) }));
    const request = parsed({ page: '3' }, 'form');
    await runBefore(validation({ parse }), request);
    expect(parse).toHaveBeenCalledWith({ encoding: 'form', fields: { page: '3' } }, principal);
    expect(request.context.validatedRequest).toEqual({
      input: { page: 3 },
      params: {},
      principal,
      requestId: request.internal.requestId,
    });
  });

  it('gives an endpoint that reads no body an undefined input', async () => {
    const request = parsed({});
    const parse = vi.fn(noInput);
    await runBefore(validation({ parse }), request);
    expect(request.context.validatedRequest?.input).toBeUndefined();
    expect(parse).toHaveBeenCalledWith({ encoding: 'json', fields: {} }, principal);
  });

  it.each([
    ['null', null],
    ['an array', [{ a: 1 }]],
    ['a string', 'query'],
    ['a number', 5],
    ['a boolean', true],
  ])('answers 400 invalid_parameter "body" to a top-level %s', async (_name, value) => {
    const error = await expectApiError(
      () => runBefore(validation({ parse: () => 1 }), parsed(value)),
      'invalid_parameter',
      { parameter: 'body' },
    );
    expect(error.message).toBe('The body must be a JSON object or a form.');
  });

  it('passes on the parser refusal naming the field', async () => {
    const parse = (body: RequestBody): number => {
      if (body.fields.page === -1) throw invalidParameter('page');
      return 0;
    };
    await expectApiError(() => runBefore(validation({ parse }), parsed({ page: -1 })), 'invalid_parameter', {
      parameter: 'page',
    });
  });

  describe('path parameters', () => {
    const onPath = (path: string, pathParameters: Record<string, string> | null = null) => {
      const request = requestFor({ method: 'GET', path });
      request.event.resource = '/jobs/{id}';
      request.event.pathParameters = pathParameters;
      request.internal.principal = principal;
      return request;
    };

    it('hands the handler the id of /jobs/{id} as a number', async () => {
      const request = onPath('/jobs/0042', { id: '0042' });
      await runBefore(validation({ parse: noInput, path: '/jobs/{id}' }), request);
      expect(request.context.validatedRequest?.params).toEqual({ id: 42 });
    });

    it('reads the id from the request path when a hand-made event has no pathParameters', async () => {
      const request = onPath('/jobs/7');
      await runBefore(validation({ parse: noInput, path: '/jobs/{id}' }), request);
      expect(request.context.validatedRequest?.params).toEqual({ id: 7 });
    });

    it.each(['0', '-1', 'abc', '4.2', '1e3', '9007199254740992', ' 1', ''])(
      'answers 400 invalid_parameter "id" to the id %j',
      async (id) => {
        const parse = vi.fn(noInput);
        await expectApiError(
          () => runBefore(validation({ parse, path: '/jobs/{id}' }), onPath(`/jobs/${id}`, { id })),
          'invalid_parameter',
          { parameter: 'id' },
        );
        expect(parse).not.toHaveBeenCalled();
      },
    );

    it('judges the id before the body', async () => {
      const request = onPath('/jobs/x', { id: 'x' });
      request.internal.decodedBody = { encoding: 'json', value: null };
      await expectApiError(
        () => runBefore(validation({ parse: noInput, path: '/jobs/{id}' }), request),
        'invalid_parameter',
        {
          parameter: 'id',
        },
      );
    });
  });
});
