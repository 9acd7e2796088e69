/**
 * The two translations the local server makes so that handlers run exactly as behind API Gateway:
 * an HTTP request becomes a complete API Gateway REST (v1) proxy event plus a Lambda context, and the
 * handler's proxy result becomes the HTTP response.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { hasContent } from '../../functions/http/headers';

/** The stage name of the local API. */
export const LOCAL_STAGE = 'local';

/** The account id the local API pretends to run in. */
export const LOCAL_ACCOUNT_ID = '000000000000';

/** The API id the local API pretends to have. */
export const LOCAL_API_ID = 'localapi';

/** The time budget of one local invocation, like the deployed functions' timeout. */
export const DEFAULT_INVOCATION_BUDGET_MS = 10_000;

/** What the event needs besides the request itself. */
export interface ProxyEventOptions {
  /** The route's resource path (`/search`, `/jobs/{id}`); defaults to the request path. */
  resource?: string;
  /** The values of the resource's path parameters (`{ id: "42" }`); none by default. */
  pathParameters?: Readonly<Record<string, string>>;
  /** The API Gateway request id; a fresh UUID by default. */
  requestId?: string;
  /** When the request arrived (epoch milliseconds); now by default. */
  requestTimeEpoch?: number;
}

/** The request line and headers the event is built from (a node:http request satisfies it). */
export type RequestHead = Pick<IncomingMessage, 'method' | 'url' | 'rawHeaders' | 'httpVersion'> & {
  socket: { remoteAddress?: string | undefined };
};

/** Headers as API Gateway passes them: the last value in `headers`, every value in `multiValueHeaders`. */
export interface EventHeaders {
  headers: Record<string, string>;
  multiValueHeaders: Record<string, string[]>;
}

/**
 * Groups raw request headers as API Gateway does: names keep the case the client sent (the first
 * spelling seen wins when a client mixes cases), repeated headers keep every value in
 * `multiValueHeaders` and their last value in `headers`.
 */
export const eventHeaders = (rawHeaders: readonly string[]): EventHeaders => {
  // Names are data: collected in a Map (a header named `constructor` or `__proto__` is just a header), then
  // turned into own properties.
  const spelling = new Map<string, string>();
  const values = new Map<string, string[]>();
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const rawName = rawHeaders[index]!;
    const value = rawHeaders[index + 1]!;
    const key = rawName.toLowerCase();
    const name = spelling.get(key) ?? rawName;
    spelling.set(key, name);
    values.set(name, [...(values.get(name) ?? []), value]);
  }
  return {
    headers: Object.fromEntries([...values].map(([name, list]) => [name, list.at(-1) as string])),
    multiValueHeaders: Object.fromEntries(values),
  };
};

/** Query string parameters as API Gateway passes them: null when there are none, the last value singly. */
export const eventQuery = (
  search: string,
): Pick<APIGatewayProxyEvent, 'queryStringParameters' | 'multiValueQueryStringParameters'> => {
  const values = new Map<string, string[]>();
  for (const [name, value] of new URLSearchParams(search)) values.set(name, [...(values.get(name) ?? []), value]);
  if (values.size === 0) return { queryStringParameters: null, multiValueQueryStringParameters: null };
  return {
    queryStringParameters: Object.fromEntries([...values].map(([name, list]) => [name, list.at(-1) as string])),
    multiValueQueryStringParameters: Object.fromEntries(values),
  };
};

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The event body: null when empty, the text when it is valid UTF-8, else base64 with
 * `isBase64Encoded` (what API Gateway does for a binary media type), so no byte is ever lost.
 */
export const eventBody = (body: Buffer): Pick<APIGatewayProxyEvent, 'body' | 'isBase64Encoded'> => {
  if (body.length === 0) return { body: null, isBase64Encoded: false };
  try {
    return { body: utf8.decode(body), isBase64Encoded: false };
  } catch {
    return { body: body.toString('base64'), isBase64Encoded: true };
  }
};

/** The request path with its percent-escapes decoded; a malformed escape leaves the path as it was. */
export const decodePath = (path: string): string => {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
};

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** API Gateway's `requestTime` format: `09/Apr/2015:12:34:56 +0000`. */
export const requestTimeText = (epochMs: number): string => {
  const date = new Date(epochMs);
  const two = (value: number): string => String(value).padStart(2, '0');
  return (
    `${two(date.getUTCDate())}/${MONTHS[date.getUTCMonth()]}/${date.getUTCFullYear()}:` +
    `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} +0000`
  );
};

/** Builds the API Gateway REST (v1) proxy event of an HTTP request and its body. */
/** The `requestContext.identity` of an unauthenticated API Gateway caller. */
export const callerIdentity = (
  sourceIp: string,
  userAgent: string | null,
): APIGatewayProxyEvent['requestContext']['identity'] => ({
  accessKey: null,
  accountId: null,
  apiKey: null,
  apiKeyId: null,
  caller: null,
  clientCert: null,
  cognitoAuthenticationProvider: null,
  cognitoAuthenticationType: null,
  cognitoIdentityId: null,
  cognitoIdentityPoolId: null,
  principalOrgId: null,
  sourceIp,
  user: null,
  userAgent,
  userArn: null,
});

export const toProxyEvent = (
  request: RequestHead,
  body: Buffer,
  options: ProxyEventOptions = {},
): APIGatewayProxyEvent => {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const path = decodePath(url.pathname);
  const resource = options.resource ?? path;
  const httpMethod = (request.method ?? 'GET').toUpperCase();
  const requestId = options.requestId ?? randomUUID();
  const requestTimeEpoch = options.requestTimeEpoch ?? Date.now();
  const { headers, multiValueHeaders } = eventHeaders(request.rawHeaders);
  const header = (name: string): string | null => {
    const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === name);
    return key === undefined ? null : (headers[key] ?? null);
  };
  const sourceIp = (request.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  return {
    resource,
    path,
    httpMethod,
    headers,
    multiValueHeaders,
    ...eventQuery(url.search),
    pathParameters:
      options.pathParameters === undefined || Object.keys(options.pathParameters).length === 0
        ? null
        : { ...options.pathParameters },
    stageVariables: null,
    requestContext: {
      accountId: LOCAL_ACCOUNT_ID,
      apiId: LOCAL_API_ID,
      authorizer: null,
      domainName: header('host') ?? 'localhost',
      domainPrefix: (header('host') ?? 'localhost').split('.')[0]!.split(':')[0]!,
      extendedRequestId: requestId,
      httpMethod,
      identity: callerIdentity(sourceIp, header('user-agent')),
      path: `/${LOCAL_STAGE}${path}`,
      protocol: `HTTP/${request.httpVersion}`,
      requestId,
      requestTime: requestTimeText(requestTimeEpoch),
      requestTimeEpoch,
      resourceId: resource,
      resourcePath: resource,
      stage: LOCAL_STAGE,
    },
    ...eventBody(body),
  };
};

/** A Lambda context method the local runtime does not offer (the deprecated callback style). */
export class UnsupportedContextCallError extends Error {
  public constructor(method: string) {
    super(`context.${method}() is not supported by the local runtime; return a promise from the handler`);
    this.name = 'UnsupportedContextCallError';
  }
}

/** What the Lambda context needs. */
export interface LambdaContextOptions {
  /** The function's name (`jobs-api-local-search`). */
  functionName: string;
  /** The invocation id; a fresh UUID by default. */
  awsRequestId?: string;
  /** The time budget of the invocation in milliseconds (default 10 s). */
  budgetMs?: number;
  /** Memory size reported to the handler (default 1024). */
  memoryLimitInMB?: number;
  /** The clock, for tests. */
  now?: () => number;
}

/** A Lambda context as the Node.js runtime passes it, with a real remaining-time countdown. */
export const lambdaContext = (options: LambdaContextOptions): Context => {
  const now = options.now ?? Date.now;
  const deadline = now() + (options.budgetMs ?? DEFAULT_INVOCATION_BUDGET_MS);
  const unsupported = (method: string) => (): never => {
    throw new UnsupportedContextCallError(method);
  };
  const today = new Date(now()).toISOString().slice(0, 10).replaceAll('-', '/');
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: options.functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:${LOCAL_ACCOUNT_ID}:function:${options.functionName}`,
    memoryLimitInMB: String(options.memoryLimitInMB ?? 1024),
    awsRequestId: options.awsRequestId ?? randomUUID(),
    logGroupName: `/aws/lambda/${options.functionName}`,
    logStreamName: `${today}/[$LATEST]${randomUUID().replaceAll('-', '')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - now()),
    done: unsupported('done'),
    fail: unsupported('fail'),
    succeed: unsupported('succeed'),
  };
};

/** The result of a handler that is not a valid API Gateway proxy result. */
export class MalformedProxyResultError extends Error {
  public constructor(detail: string) {
    super(`The handler returned a malformed proxy result: ${detail}`);
    this.name = 'MalformedProxyResultError';
  }
}

/** Checks that a handler's return value is a proxy result API Gateway would accept. */
export const assertProxyResult = (value: unknown): APIGatewayProxyResult => {
  if (typeof value !== 'object' || value === null) throw new MalformedProxyResultError('not an object');
  const result = value as Partial<APIGatewayProxyResult>;
  if (
    !Number.isInteger(result.statusCode) ||
    (result.statusCode as number) < 100 ||
    (result.statusCode as number) > 599
  ) {
    throw new MalformedProxyResultError(`statusCode ${String(result.statusCode)}`);
  }
  if (result.body !== undefined && typeof result.body !== 'string') throw new MalformedProxyResultError('body');
  return value as APIGatewayProxyResult;
};

/**
 * The response headers of a proxy result, as API Gateway merges them: `headers` and
 * `multiValueHeaders` together, the multi-value list winning for a name present in both.
 */
export const resultHeaders = (result: APIGatewayProxyResult): Map<string, { name: string; values: string[] }> => {
  const merged = new Map<string, { name: string; values: string[] }>();
  for (const [name, value] of Object.entries(result.headers ?? {})) {
    merged.set(name.toLowerCase(), { name, values: [String(value)] });
  }
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) {
    merged.set(name.toLowerCase(), { name, values: values.map(String) });
  }
  return merged;
};

/** The bytes of a proxy result's body (base64-decoded when `isBase64Encoded`). */
export const resultBody = (result: APIGatewayProxyResult): Buffer =>
  result.isBase64Encoded === true ? Buffer.from(result.body ?? '', 'base64') : Buffer.from(result.body ?? '', 'utf8');

/** Headers the HTTP framing owns; a proxy result cannot set them. */
const FRAMING_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive']);

/**
 * Writes a proxy result as the HTTP response. An answer whose status has no content (`204`, `304`) is sent
 * with no body and no `Content-Length`: a `304`'s would have to be the length of the content it stands for
 * (RFC 9110 §8.6), and `0` would say the job is empty.
 */
export const writeProxyResult = (response: ServerResponse, result: APIGatewayProxyResult): void => {
  const content = hasContent(result.statusCode);
  const body = content ? resultBody(result) : Buffer.alloc(0);
  for (const [key, { name, values }] of resultHeaders(result)) {
    if (FRAMING_HEADERS.has(key)) continue;
    response.setHeader(name, values.length === 1 ? values[0]! : values);
  }
  if (content) response.setHeader('Content-Length', body.length);
  response.writeHead(result.statusCode);
  response.end(response.req.method === 'HEAD' || !content ? undefined : body);
};

/** A proxy result as raw HTTP/1.1 bytes, for answers written straight to a socket. */
export const serializeProxyResult = (result: APIGatewayProxyResult, reason: string): Buffer => {
  const body = resultBody(result);
  const lines = [`HTTP/1.1 ${result.statusCode} ${reason}`];
  for (const [key, { name, values }] of resultHeaders(result)) {
    if (FRAMING_HEADERS.has(key)) continue;
    for (const value of values) lines.push(`${name}: ${value}`);
  }
  lines.push(`Content-Length: ${body.length}`, 'Connection: close', '', '');
  return Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), body]);
};
