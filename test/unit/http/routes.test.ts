import { describe, expect, it } from 'vitest';
import { allowHeader, allowsMethod, findRoute, ROUTES, routeFor } from '../../../functions/http/routes';

describe('route table', () => {
  it('serves POST /search, GET /search/fields and POST /reject with their grants', () => {
    expect(ROUTES.map(({ path, methods, grant }) => ({ path, methods, grant }))).toEqual([
      { path: '/search', methods: ['POST'], grant: 'search' },
      { path: '/search/fields', methods: ['GET'], grant: 'search' },
      { path: '/reject', methods: ['POST'], grant: 'reject' },
    ]);
  });

  it('names the Lambda function of each route', () => {
    expect(ROUTES.map((route) => route.functionName)).toEqual(['search', 'search-fields', 'reject']);
  });

  it('finds a known path and nothing for an unknown one', () => {
    expect(findRoute('/search/fields')?.grant).toBe('search');
    expect(findRoute('/nope')).toBeUndefined();
    expect(findRoute('/SEARCH')).toBeUndefined();
    expect(findRoute('/search/')).toBeUndefined();
  });

  it('refuses to build a route for a path outside the table', () => {
    expect(() => routeFor('/elsewhere' as never)).toThrow(/No route/);
  });

  it('allows only the listed methods, case-sensitively', () => {
    const search = routeFor('/search');
    expect(allowsMethod(search, 'POST')).toBe(true);
    expect(allowsMethod(search, 'post')).toBe(false);
    expect(allowsMethod(search, 'GET')).toBe(false);
    expect(allowHeader(search)).toBe('POST');
  });
});
