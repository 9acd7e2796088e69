import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../../../functions/http/errors';
import { methodCheck } from '../../../../functions/http/middlewares/method';
import { routeFor } from '../../../../functions/http/routes';
import { expectApiError } from '../expect-api-error';
import { requestFor, runBefore } from './harness';

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
});
