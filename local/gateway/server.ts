/**
 * The local HTTP server: what API Gateway does in AWS, in front of the very handler modules Lambda
 * runs. It answers what only the HTTP framing can tell (unknown path 404, missing length 411, request
 * timeout 408) in exactly the shape the shared chain answers everything else, turns every other request
 * into an API Gateway REST (v1) proxy event and writes the handler's result back.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { ApiError, type ErrorCode, type ErrorContext } from '../../functions/http/errors';
import { MAX_BODY_BYTES } from '../../functions/http/middlewares/body-size';
import { errorResponse } from '../../functions/http/response';
import {
  type ApiFunctionName,
  dispatchRoute,
  matchPath,
  type PathMatch,
  type Route,
} from '../../functions/http/routes';
import {
  assertProxyResult,
  decodePath,
  DEFAULT_INVOCATION_BUDGET_MS,
  lambdaContext,
  serializeProxyResult,
  toProxyEvent,
  writeProxyResult,
} from './api-event';
import { InvocationTimeoutError, withBudget } from '../lambda/invocation-budget';

/** An API Gateway proxy handler, as every HTTP entry under `functions/` exports it. */
export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** Loads the handler of a route. */
export type HandlerLoader = (route: Route) => Promise<ProxyHandler>;

export { MAX_BODY_BYTES };

/**
 * How much of a body the server buffers at most: enough past the API's limit for the chain to see
 * that the body is too large and answer 413 in its turn (after the header and authentication checks);
 * the rest of an oversized body is read and discarded, never buffered.
 */
export const BODY_READ_LIMIT = MAX_BODY_BYTES + 64 * 1024;

/** The entry modules of the routes: the same files Lambda runs, loaded when first requested. */
const ROUTE_MODULES: Record<ApiFunctionName, () => Promise<{ handler: unknown }>> = {
  search: () => import('../../functions/handlers/search'),
  'search-fields': () => import('../../functions/handlers/search-fields'),
  reject: () => import('../../functions/handlers/reject'),
  sessions: () => import('../../functions/handlers/sessions'),
  'jobs-write': () => import('../../functions/handlers/jobs-write'),
  'jobs-read': () => import('../../functions/handlers/jobs-read'),
  webhooks: () => import('../../functions/handlers/webhooks'),
};

/** The handler module a route names does not export a handler function. */
export class HandlerNotFoundError extends Error {
  public constructor(route: Route) {
    super(`functions/handlers/${route.functionName}.ts does not export a handler function`);
    this.name = 'HandlerNotFoundError';
  }
}

/** Loads a route's handler from its entry module under `functions/`. */
export const loadRouteHandler: HandlerLoader = async (route) => {
  const { handler } = await ROUTE_MODULES[route.functionName]();
  if (typeof handler !== 'function') throw new HandlerNotFoundError(route);
  return handler as ProxyHandler;
};

/** The client went away before its request body was complete. */
export class RequestAbortedError extends Error {
  public constructor() {
    super('The client closed the connection before the request body was complete');
    this.name = 'RequestAbortedError';
  }
}

/**
 * An answer of the local server itself, built by the same function the shared chain builds its error
 * answers with: the contract error body and the common headers.
 */
export const localAnswer = (
  code: ErrorCode,
  requestId: string,
  context: ErrorContext = {},
  headers: Record<string, string> = {},
): APIGatewayProxyResult => errorResponse(new ApiError(code, context, { headers }), requestId);

/**
 * A path the local server answers besides the API (the API's documentation): writes the answer and
 * returns `true` for a request it serves, returns `false` having written nothing otherwise.
 */
export type ExtraRoute = (request: IncomingMessage, response: ServerResponse) => boolean;

/** One line of the server's request log. */
export interface RequestLogEntry {
  requestId: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  /** The error behind a 5xx answer of the server itself, for the operator (never sent to the client). */
  error?: unknown;
}

export interface LocalServerOptions {
  /** Loads route handlers (default: the entry modules under `functions/`). */
  loadHandler?: HandlerLoader;
  /** Time for the client to send the whole request, in milliseconds (default 10 s); then `408`. */
  requestTimeoutMs?: number;
  /** Time for the client to send the request headers (default and at most `requestTimeoutMs`). */
  headersTimeoutMs?: number;
  /** How long an idle keep-alive connection stays open, in milliseconds (default 5 s). */
  keepAliveTimeoutMs?: number;
  /** The most body bytes buffered per request (default {@link BODY_READ_LIMIT}). */
  bodyReadLimit?: number;
  /** The time budget of one handler invocation, in milliseconds (default 10 s). */
  invocationBudgetMs?: number;
  /** Prefix of the function names the Lambda contexts report (default `jobs-api-local`). */
  functionNamePrefix?: string;
  /** Receives one entry per answered request. */
  onRequest?: (entry: RequestLogEntry) => void;
  /** Routes asked, in order, before the API's (default none). */
  extraRoutes?: readonly ExtraRoute[];
}

/** A running (or ready to run) local server. */
export interface LocalServer {
  server: Server;
  /** Starts listening; port 0 picks a free one. Resolves with the port. */
  listen(port: number, host?: string): Promise<number>;
  /**
   * Stops accepting connections, lets requests in flight finish, then closes every connection. Safe
   * to call twice. The default grace is the longest a request the server has accepted can take
   * before the server answers it anyway (`requestTimeoutMs` to arrive, then `invocationBudgetMs` for
   * the handler: 408 or 503 at worst, plus a second to write it), so every request in flight gets its
   * answer; `graceMs` cuts it shorter.
   */
  close(graceMs?: number): Promise<void>;
}

const DEFAULTS = {
  loadHandler: loadRouteHandler,
  requestTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  bodyReadLimit: BODY_READ_LIMIT,
  invocationBudgetMs: DEFAULT_INVOCATION_BUDGET_MS,
  functionNamePrefix: 'jobs-api-local',
  onRequest: (_entry: RequestLogEntry): void => {},
  extraRoutes: [] as readonly ExtraRoute[],
};

/** Whether a request states how long its body is (a Content-Length, or chunked transfer coding). */
export const hasBodyFraming = (request: Pick<IncomingMessage, 'headers'>): boolean =>
  request.headers['content-length'] !== undefined ||
  (request.headers['transfer-encoding'] ?? '').split(',').some((coding) => coding.trim().toLowerCase() === 'chunked');

/**
 * Reads a request body, buffering at most `limit` bytes. An oversized body resolves with its first
 * `limit` bytes as soon as they are in (the chain answers 413); the rest is read and discarded.
 */
export const readBody = (request: IncomingMessage, limit: number): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      outcome();
    };
    request.on('data', (chunk: Buffer) => {
      if (settled) return;
      chunks.push(chunk);
      size += chunk.length;
      if (size > limit) settle(() => resolve(Buffer.concat(chunks, size).subarray(0, limit)));
    });
    request.once('end', () => settle(() => resolve(Buffer.concat(chunks, size))));
    request.once('close', () => settle(() => reject(new RequestAbortedError())));
    request.once('error', (error) => settle(() => reject(error)));
  });

/** The answer for an HTTP parse error Node reports on a connection (`clientError`). */
export const clientErrorAnswer = (code: string | undefined, requestId: string): APIGatewayProxyResult | undefined => {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return localAnswer('request_timeout', requestId);
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return localAnswer('length_required', requestId);
    case 'HPE_HEADER_OVERFLOW':
      return localAnswer('invalid_parameter', requestId, { parameter: 'headers' });
    case 'ECONNRESET':
    case 'EPIPE':
    case undefined:
      return undefined;
    default:
      return code.startsWith('HPE_')
        ? localAnswer('invalid_parameter', requestId, { parameter: 'request' })
        : undefined;
  }
};

/** Time past the last possible answer for it to be written, before a closing server cuts connections. */
const CLOSE_MARGIN_MS = 1_000;

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  411: 'Length Required',
};

/** Creates the local HTTP server. */
export const createLocalServer = (options: LocalServerOptions = {}): LocalServer => {
  const settings = { ...DEFAULTS, ...options };
  const headersTimeoutMs = Math.min(settings.headersTimeoutMs ?? settings.requestTimeoutMs, settings.requestTimeoutMs);
  /** The request id of the request each connection is receiving, for an answer written to the socket. */
  const socketRequestIds = new WeakMap<Socket, string>();
  const handlers = new Map<ApiFunctionName, Promise<ProxyHandler>>();

  const handlerOf = (route: Route): Promise<ProxyHandler> => {
    let loading = handlers.get(route.functionName);
    if (loading === undefined) {
      loading = settings.loadHandler(route);
      // A failed load (a module being written during development) is tried again on the next request.
      loading.catch(() => handlers.delete(route.functionName));
      handlers.set(route.functionName, loading);
    }
    return loading;
  };

  const respond = (
    request: IncomingMessage,
    response: ServerResponse,
    result: APIGatewayProxyResult,
    entry: Omit<RequestLogEntry, 'status' | 'durationMs'> & { started: number },
  ): void => {
    if (response.headersSent || response.destroyed || request.socket.destroyed) return;
    writeProxyResult(response, result);
    const { started, ...rest } = entry;
    settings.onRequest({ ...rest, status: result.statusCode, durationMs: Date.now() - started });
  };

  const invoke = async (
    match: PathMatch,
    request: IncomingMessage,
    body: Buffer,
    requestId: string,
    started: number,
  ): Promise<APIGatewayProxyResult> => {
    // The function of the request's method, else the path's first one, which answers 405 (API Gateway's ANY).
    const route = dispatchRoute(match, (request.method ?? 'GET').toUpperCase());
    const handler = await handlerOf(route);
    const event = toProxyEvent(request, body, {
      resource: match.path,
      pathParameters: match.parameters,
      requestId,
      requestTimeEpoch: started,
    });
    const context = lambdaContext({
      functionName: `${settings.functionNamePrefix}-${route.functionName}`,
      budgetMs: settings.invocationBudgetMs,
    });
    const result = await withBudget(
      Promise.resolve(handler(event, context)),
      settings.invocationBudgetMs,
      () => new InvocationTimeoutError(`The ${route.functionName} handler`, settings.invocationBudgetMs),
    );
    return assertProxyResult(result);
  };

  const onRequest = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const started = Date.now();
    const requestId = randomUUID();
    socketRequestIds.set(request.socket, requestId);
    response.once('finish', () => socketRequestIds.delete(request.socket));
    const method = request.method ?? 'GET';
    const path = decodePath(new URL(request.url ?? '/', 'http://localhost').pathname);
    const entry = { requestId, method, path, started };

    if (settings.extraRoutes.some((extra) => extra(request, response))) {
      settings.onRequest({ requestId, method, path, status: response.statusCode, durationMs: Date.now() - started });
      return;
    }
    const match = matchPath(path);
    if (match === undefined) {
      respond(request, response, localAnswer('not_found', requestId), entry);
      return;
    }
    if (method === 'POST' && !hasBodyFraming(request)) {
      respond(request, response, localAnswer('length_required', requestId), entry);
      return;
    }
    let body: Buffer;
    try {
      body = await readBody(request, settings.bodyReadLimit);
    } catch {
      return; // the client is gone (or timed out and was answered 408): nobody to answer
    }
    try {
      respond(request, response, await invoke(match, request, body, requestId, started), entry);
    } catch (error) {
      const answer =
        error instanceof InvocationTimeoutError
          ? localAnswer('service_unavailable', requestId, {}, { 'Retry-After': '1' })
          : localAnswer('internal_error', requestId);
      respond(request, response, answer, { ...entry, error });
    }
  };

  const server = createServer(
    {
      requestTimeout: settings.requestTimeoutMs,
      headersTimeout: headersTimeoutMs,
      keepAliveTimeout: settings.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.max(25, Math.min(1_000, Math.floor(settings.requestTimeoutMs / 10))),
    },
    (request, response) => {
      void onRequest(request, response);
    },
  );

  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    const requestId = socketRequestIds.get(socket) ?? randomUUID();
    const answer = clientErrorAnswer(error.code, requestId);
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (
      answer !== undefined &&
      socket.writable &&
      (inFlight === null || inFlight === undefined || !inFlight.headersSent)
    ) {
      socket.end(serializeProxyResult(answer, REASONS[answer.statusCode] ?? 'Error'));
      socket.destroySoon();
      settings.onRequest({ requestId, method: '-', path: '-', status: answer.statusCode, durationMs: 0 });
      return;
    }
    socket.destroy();
  });

  let closing: Promise<void> | undefined;
  const close = (graceMs = settings.requestTimeoutMs + settings.invocationBudgetMs + CLOSE_MARGIN_MS): Promise<void> =>
    (closing ??= new Promise<void>((resolve) => {
      if (!server.listening) {
        resolve();
        return;
      }
      const force = setTimeout(() => server.closeAllConnections(), graceMs);
      // Keep-alive connections become idle as their last answers are written: close them then.
      const sweep = setInterval(() => server.closeIdleConnections(), 20);
      server.close(() => {
        clearTimeout(force);
        clearInterval(sweep);
        resolve();
      });
      server.closeIdleConnections();
    }));

  const listen = (port: number, host = '127.0.0.1'): Promise<number> =>
    new Promise((resolve, reject) => {
      const onError = (error: Error): void => reject(error);
      server.once('error', onError);
      server.listen(port, host, () => {
        server.off('error', onError);
        const address = server.address();
        resolve(typeof address === 'object' && address !== null ? address.port : port);
      });
    });

  return { server, listen, close };
};
