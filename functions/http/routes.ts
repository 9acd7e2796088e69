/**
 * The API's route table: which paths exist, which methods each answers, which grant it needs and
 * which Lambda function serves it. The local server reads it to answer 404; the shared chain reads it
 * to answer 405 with an `Allow` header.
 */
import type { Grant } from '../auth/principal';

/** A path the API serves. */
export type RoutePath = '/search' | '/search/fields' | '/reject' | '/sessions' | '/sessions/current';

/** An HTTP method an endpoint answers. */
export type RouteMethod = 'GET' | 'POST' | 'DELETE';

/**
 * What a caller proves itself with: a client token and a session token (a signed-in person), or a client
 * token and one of the client's secrets (the application's backend, `POST /sessions`).
 */
export type Credentials = 'session' | 'secret';

/** One endpoint of the API. */
export interface Route {
  path: RoutePath;
  /** The methods the endpoint answers; any other gets `405` with these in `Allow`. */
  methods: readonly RouteMethod[];
  /** The grant a client needs to call the endpoint; none for a logout. */
  grant?: Grant;
  credentials: Credentials;
  /** The name of the Lambda function (and of its entry file under `functions/`); one may serve two paths. */
  functionName: 'search' | 'search-fields' | 'reject' | 'sessions';
}

/** Every route of the API. */
export const ROUTES: readonly Route[] = [
  { path: '/search', methods: ['POST'], grant: 'search', credentials: 'session', functionName: 'search' },
  { path: '/search/fields', methods: ['GET'], grant: 'search', credentials: 'session', functionName: 'search-fields' },
  { path: '/reject', methods: ['POST'], grant: 'reject', credentials: 'session', functionName: 'reject' },
  { path: '/sessions', methods: ['POST'], grant: 'sessions', credentials: 'secret', functionName: 'sessions' },
  { path: '/sessions/current', methods: ['DELETE'], credentials: 'session', functionName: 'sessions' },
];

/** The route of a request path (exact match, case-sensitive), or `undefined` for an unknown path. */
export const findRoute = (path: string): Route | undefined => ROUTES.find((route) => route.path === path);

/** The route of a path the API is known to serve. */
export const routeFor = (path: RoutePath): Route => {
  const route = findRoute(path);
  if (route === undefined) throw new Error(`No route is defined for ${path}`);
  return route;
};

/** Whether a route answers a method (compared case-sensitively, as HTTP methods are). */
export const allowsMethod = (route: Route, method: string): boolean =>
  (route.methods as readonly string[]).includes(method);

/** The value of the `Allow` header of a route. */
export const allowHeader = (route: Route): string => route.methods.join(', ');
