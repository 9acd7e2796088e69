import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../../../functions/http/errors';
import { methodCheck } from '../../../../functions/http/middlewares/method';
import { type Route, routeFor } from '../../../../functions/http/routes';
import { expectApiError } from '../expect-api-error';
import { requestFor, runBefore } from './harness';

/** One path served by two functions: GET by one, PATCH by another. */
const SHARED_PATH: readonly Route[] = [
  { path: '/jobs/{id}', method: 'GET', grant: 'jobs', credentials: 'session', functionName: 'search' },
  { path: '/jobs/{id}', method: 'PATCH', grant: 'jobs', credentials: 'session', functionName: 'reject' },
];

describe('method check middleware', () => {
  it("lets the route's method through", async () => {
    const request = requestFor({ method: 'POST', path: '/search' });
    await expect(runBefore(methodCheck({ route: routeFor('/search') }), request)).resolves.toBeUndefined();
  });

  it.each(['GET', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'post'])(
    'answers 405 with Allow: POST to %s /search',
    async (method) => {
      const error = await expectApiError(
        () => runBefore(methodCheck({ route: routeFor('/search') }), requestFor({ method, path: '/search' })),
        'method_not_allowed',
      );
      expect(ERROR_STATUS[error.code]).toBe(405);
      expect(error.headers).toEqual({ Allow: 'POST' });
    },
  );

  it('answers 405 with Allow: GET to POST /search/fields', async () => {
    const error = await expectApiError(
      () => runBefore(methodCheck({ route: routeFor('/search/fields') }), requestFor({ method: 'POST' })),
      'method_not_allowed',
    );
    expect(error.headers.Allow).toBe('GET');
  });

  it('lists every method of a shared path in Allow, also those another function serves', async () => {
    const read = methodCheck({ route: SHARED_PATH[0]!, routes: SHARED_PATH });
    const error = await expectApiError(
      () => runBefore(read, requestFor({ method: 'DELETE', path: '/jobs/1' })),
      'method_not_allowed',
    );
    expect(error.headers).toEqual({ Allow: 'GET, PATCH' });
  });

  it("answers 405 to a method of the path that another function's endpoint serves", async () => {
    // The read endpoint never runs a PATCH, even if one reaches it.
    const read = methodCheck({ route: SHARED_PATH[0]!, routes: SHARED_PATH });
    await expectApiError(() => runBefore(read, requestFor({ method: 'PATCH', path: '/jobs/1' })), 'method_not_allowed');
  });
});
