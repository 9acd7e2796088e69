import { describe, expect, it } from 'vitest';
import { allowHeader, allowsMethod, findRoute, ROUTES, routeFor } from '../../../functions/http/routes';

describe('route table', () => {
  it('serves the search, reject and session endpoints with their grants and credentials', () => {
    expect(ROUTES.map(({ path, methods, grant, credentials }) => ({ path, methods, grant, credentials }))).toEqual([
      { path: '/search', methods: ['POST'], grant: 'search', credentials: 'session' },
      { path: '/search/fields', methods: ['GET'], grant: 'search', credentials: 'session' },
      { path: '/reject', methods: ['POST'], grant: 'reject', credentials: 'session' },
      { path: '/sessions', methods: ['POST'], grant: 'sessions', credentials: 'secret' },
      { path: '/sessions/current', methods: ['DELETE'], grant: undefined, credentials: 'session' },
    ]);
  });

  it('names the Lambda function of each route; one function serves both session paths', () => {
    expect(ROUTES.map((route) => route.functionName)).toEqual([
      'search',
      'search-fields',
      'reject',
      'sessions',
      'sessions',
    ]);
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
