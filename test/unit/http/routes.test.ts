import { describe, expect, it } from 'vitest';
import {
  allowHeader,
  apiFunctions,
  dispatchRoute,
  matchPath,
  methodsOf,
  parameterNames,
  pathsOf,
  type Route,
  ROUTES,
  routeFor,
  templateParameters,
} from '../../../functions/http/routes';

/** A table shaped like the jobs paths: one path read by one function and written by another. */
const JOBS_TABLE: readonly Route[] = [
  { path: '/jobs', method: 'POST', grant: 'jobs', credentials: 'session', functionName: 'sessions' },
  { path: '/jobs/{id}', method: 'GET', grant: 'jobs', credentials: 'session', functionName: 'search' },
  { path: '/jobs/{id}', method: 'PATCH', grant: 'jobs', credentials: 'session', functionName: 'sessions' },
  { path: '/jobs/{id}/files', method: 'GET', grant: 'jobs', credentials: 'session', functionName: 'search' },
  { path: '/statuses', method: 'GET', credentials: 'session', functionName: 'search' },
];

describe('route table', () => {
  it('serves the search, reject and session endpoints with their grants and credentials', () => {
    expect(ROUTES).toEqual(
      expect.arrayContaining([
        { path: '/search', method: 'POST', grant: 'search', credentials: 'session', functionName: 'search' },
        {
          path: '/search/fields',
          method: 'GET',
          grant: 'search',
          credentials: 'session',
          functionName: 'search-fields',
        },
        { path: '/reject', method: 'POST', grant: 'reject', credentials: 'session', functionName: 'reject' },
        { path: '/sessions', method: 'POST', grant: 'sessions', credentials: 'secret', functionName: 'sessions' },
        { path: '/sessions/current', method: 'DELETE', credentials: 'session', functionName: 'sessions' },
      ]),
    );
  });

  it('serves every endpoint with the grant, credentials and function the contract gives it', () => {
    expect(
      ROUTES.map((route) => [`${route.method} ${route.path}`, route.grant, route.credentials, route.functionName]),
    ).toEqual([
      ['POST /search', 'search', 'session', 'search'],
      ['GET /search/fields', 'search', 'session', 'search-fields'],
      ['POST /reject', 'reject', 'session', 'reject'],
      ['POST /accept', 'reject', 'session', 'reject'],
      ['POST /sessions', 'sessions', 'secret', 'sessions'],
      ['DELETE /sessions/current', undefined, 'session', 'sessions'],
      ['GET /jobs/{id}', 'jobs', 'session', 'jobs-read'],
      ['GET /jobs/{id}/files', 'jobs', 'session', 'jobs-read'],
      ['GET /statuses', undefined, 'session', 'jobs-read'],
      ['POST /jobs', 'jobs', 'session', 'jobs-write'],
      ['PATCH /jobs/{id}', 'jobs', 'session', 'jobs-write'],
      ['POST /jobs/{id}/delivery', 'jobs', 'session', 'jobs-write'],
      ['POST /jobs/{id}/files/{fileId}/upload', 'jobs', 'session', 'jobs-write'],
      ['POST /webhooks', 'webhooks', 'secret', 'webhooks'],
      ['GET /webhooks', 'webhooks', 'secret', 'webhooks'],
      ['DELETE /webhooks/{webhookId}', 'webhooks', 'secret', 'webhooks'],
      ['GET /webhooks/{webhookId}/deliveries', 'webhooks', 'secret', 'webhooks'],
    ]);
    expect(ROUTES.filter((route) => !('grant' in route)).map((route) => route.path)).toEqual([
      '/sessions/current',
      '/statuses',
    ]);
  });

  it('lists each method of a path once', () => {
    const endpoints = ROUTES.map((route) => `${route.method} ${route.path}`);
    expect(new Set(endpoints).size).toBe(endpoints.length);
  });

  it('groups the endpoints by function; one function serves both session paths', () => {
    const sessions = apiFunctions().find((fn) => fn.functionName === 'sessions');
    expect(sessions?.routes.map((route) => `${route.method} ${route.path}`)).toEqual([
      'POST /sessions',
      'DELETE /sessions/current',
    ]);
  });

  it('finds a literal path exactly and nothing for an unknown one', () => {
    expect(matchPath('/search/fields')?.routes.map((route) => route.grant)).toEqual(['search']);
    expect(matchPath('/search/fields')?.parameters).toEqual({});
    expect(matchPath('/nope')).toBeUndefined();
    expect(matchPath('/SEARCH')).toBeUndefined();
    expect(matchPath('/search/')).toBeUndefined();
  });

  it('matches a path template, handing over the parameter as written', () => {
    const match = matchPath('/jobs/42/files', JOBS_TABLE);
    expect(match?.path).toBe('/jobs/{id}/files');
    expect(match?.parameters).toEqual({ id: '42' });
    // Whatever the segment holds, the template matches; the chain judges the value (400 naming id).
    expect(matchPath('/jobs/abc', JOBS_TABLE)?.parameters).toEqual({ id: 'abc' });
  });

  it('does not let a parameter take an empty segment or more than one segment', () => {
    expect(matchPath('/jobs/', JOBS_TABLE)).toBeUndefined();
    expect(matchPath('/jobs//files', JOBS_TABLE)).toBeUndefined();
    expect(matchPath('/jobs/1/2', JOBS_TABLE)).toBeUndefined();
    expect(matchPath('/jobs/1/files/2', JOBS_TABLE)).toBeUndefined();
    expect(templateParameters('/jobs/{id}/files', '/jobs//files')).toBeUndefined();
    expect(templateParameters('/jobs/{id}', '/jobs/')).toBeUndefined();
    expect(templateParameters('/jobs/{id}/files', '/jobs/ /files')).toEqual({ id: ' ' });
  });

  it('reads only a braced name of at least one character as a parameter; {} and one brace are literal', () => {
    expect(templateParameters('/a/{x}', '/a/7')).toEqual({ x: '7' });
    for (const literal of ['{}', '{', '}', '{x', 'x}', '{ab', 'ab}', '}x{']) {
      expect(templateParameters(`/a/${literal}`, `/a/${literal}`)).toEqual({});
      expect(templateParameters(`/a/${literal}`, '/a/7')).toBeUndefined();
      expect(parameterNames(`/a/${literal}` as never)).toEqual([]);
    }
  });

  it('prefers a literal path to a template, as API Gateway does', () => {
    const table: Route[] = [
      ...JOBS_TABLE,
      { path: '/jobs/{id}/files', method: 'POST', credentials: 'session', functionName: 'reject' },
    ];
    const withLiteral = [
      { path: '/jobs/{id}', method: 'GET', credentials: 'session', functionName: 'search' },
      { path: '/jobs', method: 'GET', credentials: 'session', functionName: 'reject' },
    ] as unknown as Route[];
    expect(matchPath('/jobs', withLiteral)?.path).toBe('/jobs');
    expect(matchPath('/jobs/7/files', table)?.routes.map((route) => route.method)).toEqual(['GET', 'POST']);
  });

  it('prefers the more literal of two templates a path fits, in either order of the table', () => {
    const template = { path: '/jobs/{id}', method: 'GET', credentials: 'session', functionName: 'search' };
    const literal = { path: '/jobs/current', method: 'GET', credentials: 'session', functionName: 'reject' };
    for (const table of [
      [template, literal],
      [literal, template],
    ] as unknown as Route[][]) {
      expect(matchPath('/jobs/current', table)).toEqual({ path: '/jobs/current', parameters: {}, routes: [literal] });
      expect(matchPath('/jobs/7', table)?.path).toBe('/jobs/{id}');
    }
  });

  it('computes Allow over every method of a path, whichever function serves it', () => {
    expect(allowHeader('/jobs/{id}', JOBS_TABLE)).toBe('GET, PATCH');
    expect(methodsOf('/jobs', JOBS_TABLE)).toEqual(['POST']);
    expect(allowHeader('/search')).toBe('POST');
  });

  it("sends a request to its method's function, and any other method to the path's first one", () => {
    const match = matchPath('/jobs/9', JOBS_TABLE)!;
    expect(dispatchRoute(match, 'PATCH').functionName).toBe('sessions');
    expect(dispatchRoute(match, 'GET').functionName).toBe('search');
    expect(dispatchRoute(match, 'DELETE')).toBe(match.routes[0]);
    expect(dispatchRoute(match, 'get')).toBe(match.routes[0]);
  });

  it('names the parameters of a template and the distinct paths of a table', () => {
    expect(parameterNames('/jobs/{id}/files')).toEqual(['id']);
    expect(parameterNames('/search')).toEqual([]);
    expect(pathsOf(JOBS_TABLE)).toEqual(['/jobs', '/jobs/{id}', '/jobs/{id}/files', '/statuses']);
  });

  it('finds an endpoint by path and method, and refuses one outside the table', () => {
    expect(routeFor('/jobs/{id}', 'PATCH', JOBS_TABLE).functionName).toBe('sessions');
    expect(routeFor('/search').method).toBe('POST');
    expect(() => routeFor('/elsewhere' as never)).toThrow(/No route/);
    expect(() => routeFor('/search', 'GET')).toThrow(/No route/);
  });
});
