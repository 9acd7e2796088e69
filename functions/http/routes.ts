/**
 * The API's route table: which paths exist (literal, or templates with path parameters such as
 * `/jobs/{id}`), which method of each is served by which Lambda function, and the grant each needs.
 * The local server and API Gateway read it to answer 404 and to pick a request's function; the shared
 * chain reads it to answer 405 with an `Allow` header listing every method of the path, whichever
 * function serves them.
 */
import type { Grant } from '../auth/principal';

/** A path the API serves; `{name}` is a path parameter (one path segment). */
export type RoutePath =
  | '/search'
  | '/search/fields'
  | '/reject'
  | '/sessions'
  | '/sessions/current'
  | '/statuses'
  | '/accept'
  | '/jobs'
  | '/jobs/{id}'
  | '/jobs/{id}/files'
  | '/jobs/{id}/delivery'
  | '/jobs/{id}/files/{fileId}/upload'
  | '/webhooks'
  | '/webhooks/{webhookId}'
  | '/webhooks/{webhookId}/deliveries';

/** An HTTP method an endpoint answers. */
export type RouteMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** The name of a path parameter of the route table. */
export type PathParameterName = 'id' | 'fileId' | 'webhookId';

/**
 * What a caller proves itself with: a client token and a session token (a signed-in person), or a client
 * token and one of the client's secrets (the application's backend: `POST /sessions` and `/webhooks`).
 */
export type Credentials = 'session' | 'secret';

/** The Lambda functions that serve the API (each the name of its entry file under `functions/handlers/`). */
export type ApiFunctionName =
  'search' | 'search-fields' | 'reject' | 'sessions' | 'jobs-read' | 'jobs-write' | 'webhooks';

/** One endpoint of the API: one method of one path. */
export interface Route {
  path: RoutePath;
  method: RouteMethod;
  /** The grant a client needs to call the endpoint; none for a logout. */
  grant?: Grant;
  credentials: Credentials;
  /** The Lambda function that serves this method of the path; one function may serve several endpoints. */
  functionName: ApiFunctionName;
}

/**
 * Every endpoint of the API. The first endpoint listed for a path is also the one whose function answers
 * its other methods (405), in AWS (API Gateway's `ANY` method of the resource) and locally alike.
 */
export const ROUTES: readonly Route[] = [
  { path: '/search', method: 'POST', grant: 'search', credentials: 'session', functionName: 'search' },
  { path: '/search/fields', method: 'GET', grant: 'search', credentials: 'session', functionName: 'search-fields' },
  { path: '/reject', method: 'POST', grant: 'reject', credentials: 'session', functionName: 'reject' },
  { path: '/accept', method: 'POST', grant: 'reject', credentials: 'session', functionName: 'reject' },
  { path: '/sessions', method: 'POST', grant: 'sessions', credentials: 'secret', functionName: 'sessions' },
  { path: '/sessions/current', method: 'DELETE', credentials: 'session', functionName: 'sessions' },
  { path: '/jobs/{id}', method: 'GET', grant: 'jobs', credentials: 'session', functionName: 'jobs-read' },
  { path: '/jobs/{id}/files', method: 'GET', grant: 'jobs', credentials: 'session', functionName: 'jobs-read' },
  { path: '/statuses', method: 'GET', credentials: 'session', functionName: 'jobs-read' },
  { path: '/jobs', method: 'POST', grant: 'jobs', credentials: 'session', functionName: 'jobs-write' },
  { path: '/jobs/{id}', method: 'PATCH', grant: 'jobs', credentials: 'session', functionName: 'jobs-write' },
  { path: '/jobs/{id}/delivery', method: 'POST', grant: 'jobs', credentials: 'session', functionName: 'jobs-write' },
  {
    path: '/jobs/{id}/files/{fileId}/upload',
    method: 'POST',
    grant: 'jobs',
    credentials: 'session',
    functionName: 'jobs-write',
  },
  { path: '/webhooks', method: 'POST', grant: 'webhooks', credentials: 'secret', functionName: 'webhooks' },
  { path: '/webhooks', method: 'GET', grant: 'webhooks', credentials: 'secret', functionName: 'webhooks' },
  {
    path: '/webhooks/{webhookId}',
    method: 'DELETE',
    grant: 'webhooks',
    credentials: 'secret',
    functionName: 'webhooks',
  },
  {
    path: '/webhooks/{webhookId}/deliveries',
    method: 'GET',
    grant: 'webhooks',
    credentials: 'secret',
    functionName: 'webhooks',
  },
];

/** A request path matched against the route table. */
export interface PathMatch {
  /** The path (template) of the table that matched. */
  path: RoutePath;
  /** The path parameters, as written in the request path (`{ id: "42" }`). */
  parameters: Readonly<Record<string, string>>;
  /** Every endpoint of the path, in table order. */
  routes: readonly Route[];
}

const segmentsOf = (path: string): string[] => path.split('/');

const parameterName = (segment: string): string | undefined =>
  segment.length > 2 && segment.startsWith('{') && segment.endsWith('}') ? segment.slice(1, -1) : undefined;

/** The parameters of a request path under a template, or `undefined` when the path does not fit it. */
export const templateParameters = (template: string, path: string): Record<string, string> | undefined => {
  const wanted = segmentsOf(template);
  const given = segmentsOf(path);
  if (wanted.length !== given.length) return undefined;
  const parameters: Record<string, string> = {};
  for (const [index, segment] of wanted.entries()) {
    const value = given[index] as string;
    const name = parameterName(segment);
    if (name === undefined) {
      if (segment !== value) return undefined;
    } else {
      if (value === '') return undefined;
      parameters[name] = value;
    }
  }
  return parameters;
};

/** How literal a template is: a literal segment outranks a parameter, as API Gateway matches resources. */
const literalSegments = (template: string): number =>
  segmentsOf(template).filter((segment) => parameterName(segment) === undefined).length;

/** Every distinct path of a route table, in table order. */
export const pathsOf = (routes: readonly Route[] = ROUTES): RoutePath[] => [
  ...new Set(routes.map((route) => route.path)),
];

/**
 * The path of the table a request path falls under (exact, case-sensitive; a `{name}` segment takes any
 * one non-empty segment; the most literal template wins), or `undefined` for an unknown path.
 */
export const matchPath = (path: string, routes: readonly Route[] = ROUTES): PathMatch | undefined => {
  let best: PathMatch | undefined;
  for (const template of pathsOf(routes)) {
    const parameters = templateParameters(template, path);
    if (parameters === undefined) continue;
    if (best !== undefined && literalSegments(best.path) >= literalSegments(template)) continue;
    best = { path: template, parameters, routes: routes.filter((route) => route.path === template) };
  }
  return best;
};

/**
 * The endpoint that takes a request for a matched path: the one of its method, else the path's first
 * endpoint, whose chain answers `405` (the function API Gateway's `ANY` method of the resource invokes).
 */
export const dispatchRoute = (match: Pick<PathMatch, 'routes'>, method: string): Route => {
  const route = match.routes.find((candidate) => candidate.method === method) ?? match.routes[0];
  if (route === undefined) throw new Error('A matched path has no endpoint');
  return route;
};

/** The endpoint of a path and method the API is known to serve. */
export const routeFor = (path: RoutePath, method?: RouteMethod, routes: readonly Route[] = ROUTES): Route => {
  const route = routes.find(
    (candidate) => candidate.path === path && (method === undefined || candidate.method === method),
  );
  if (route === undefined) throw new Error(`No route is defined for ${method ?? 'any method of'} ${path}`);
  return route;
};

/** The methods a path answers, in table order. */
export const methodsOf = (path: RoutePath, routes: readonly Route[] = ROUTES): RouteMethod[] =>
  routes.filter((route) => route.path === path).map((route) => route.method);

/** The value of the `Allow` header of a path: every method it answers, whichever function serves it. */
export const allowHeader = (path: RoutePath, routes: readonly Route[] = ROUTES): string =>
  methodsOf(path, routes).join(', ');

/** The names of a template's path parameters, in order (`/jobs/{id}/files` → `["id"]`). */
export const parameterNames = (path: RoutePath): string[] =>
  segmentsOf(path)
    .map(parameterName)
    .filter((name): name is string => name !== undefined);

/** The functions serving the API, in table order, each with the endpoints it serves. */
export const apiFunctions = (routes: readonly Route[] = ROUTES): { functionName: ApiFunctionName; routes: Route[] }[] =>
  [...new Set(routes.map((route) => route.functionName))].map((functionName) => ({
    functionName,
    routes: routes.filter((route) => route.functionName === functionName),
  }));
