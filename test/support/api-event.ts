/**
 * Builders of complete API Gateway REST (v1) proxy events and Lambda contexts for unit tests, shaped
 * like the ones API Gateway and the local server send.
 */
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { matchPath } from '../../functions/http/routes';
import { callerIdentity } from '../../local/gateway/api-event';

export interface ApiEventOptions {
  /** Default `GET`. */
  method?: string;
  /** Default `/search/fields`. */
  path?: string;
  /** Request headers as sent (any case). A list value is a header repeated on several lines. */
  headers?: Record<string, string | string[]>;
  /** The body; an object is sent as its JSON text. */
  body?: string | object | null;
  isBase64Encoded?: boolean;
  /** API Gateway's request id; default a fresh UUID. */
  requestId?: string;
  queryStringParameters?: Record<string, string>;
}

/**
 * The resource and path parameters API Gateway reports for a path: the route table's template and the
 * segments under its `{name}`s (`/jobs/42` → `/jobs/{id}`, `{ id: "42" }`); an unknown path is its own
 * resource.
 */
const resourceOf = (path: string): Pick<APIGatewayProxyEvent, 'resource' | 'pathParameters'> => {
  const match = matchPath(path);
  if (match === undefined) return { resource: path, pathParameters: null };
  const parameters = Object.entries(match.parameters);
  return { resource: match.path, pathParameters: parameters.length === 0 ? null : Object.fromEntries(parameters) };
};

/** A complete API Gateway REST (v1) proxy event. */
export const apiEvent = (options: ApiEventOptions = {}): APIGatewayProxyEvent => {
  const method = options.method ?? 'GET';
  const path = options.path ?? '/search/fields';
  const requestId = options.requestId ?? crypto.randomUUID();
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    const values = Array.isArray(value) ? value : [value];
    multiValueHeaders[name] = values;
    const last = values.at(-1);
    if (last !== undefined) headers[name] = last;
  }
  const body =
    options.body === undefined || options.body === null
      ? null
      : typeof options.body === 'string'
        ? options.body
        : JSON.stringify(options.body);
  const { resource, pathParameters } = resourceOf(path);
  return {
    resource,
    path,
    httpMethod: method,
    headers,
    multiValueHeaders,
    queryStringParameters: options.queryStringParameters ?? null,
    multiValueQueryStringParameters:
      options.queryStringParameters === undefined
        ? null
        : Object.fromEntries(Object.entries(options.queryStringParameters).map(([key, value]) => [key, [value]])),
    pathParameters,
    stageVariables: null,
    body,
    isBase64Encoded: options.isBase64Encoded ?? false,
    requestContext: {
      accountId: '123456789012',
      apiId: 'local',
      authorizer: null,
      protocol: 'HTTP/1.1',
      httpMethod: method,
      identity: callerIdentity('127.0.0.1', 'vitest'),
      path: `/test${path}`,
      stage: 'test',
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: resource,
    },
  };
};

/** Headers that pass checks 2–4 of docs/contract.md §1 (Accept, Content-Type for POST, both tokens). */
export const passingHeaders = (
  tokens: { clientToken: string; sessionToken: string },
  method = 'GET',
): Record<string, string> => ({
  Accept: 'application/json',
  ...(method === 'POST' || method === 'PATCH' ? { 'Content-Type': 'application/json' } : {}),
  'X-Client-Token': tokens.clientToken,
  'X-Session-Token': tokens.sessionToken,
});

/** A Lambda context for direct invocations. */
export const lambdaContext = (overrides: Partial<Context> = {}): Context => ({
  callbackWaitsForEmptyEventLoop: true,
  functionName: 'jobs-api-test',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:jobs-api-test',
  memoryLimitInMB: '256',
  awsRequestId: crypto.randomUUID(),
  logGroupName: '/aws/lambda/jobs-api-test',
  logStreamName: 'test',
  getRemainingTimeInMillis: () => 10_000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
  ...overrides,
});
