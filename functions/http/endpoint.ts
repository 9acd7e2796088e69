/**
 * `httpEndpoint`: wraps an endpoint's handler in the shared middy chain, which runs the checks of contract
 * section 1 in their order — method (405), Accept (406), Content-Type (415), required headers (400),
 * client and session (401), grant (403), body size (413), body parsing (400 invalid_json), validation
 * (400 invalid_parameter) — and turns the handler's result into a JSON answer (`200`, or the endpoint's
 * own status) and every error into the contract error body. The route's credentials choose the header set
 * and the authentication: a session, or a client secret (`POST /sessions`, §2a).
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { logger } from '../observability';
import { acceptCheck } from './middlewares/accept';
import { authentication } from './middlewares/authentication';
import { authorization } from './middlewares/authorization';
import { bodyParser } from './middlewares/body-parser';
import { bodySize } from './middlewares/body-size';
import { contentTypeCheck } from './middlewares/content-type';
import { detailedTracing } from './middlewares/detailed-tracing';
import { errorFormatter } from './middlewares/error-formatter';
import { methodCheck } from './middlewares/method';
import { requestContext } from './middlewares/request-context';
import { requiredHeaders } from './middlewares/required-headers';
import { validation } from './middlewares/validation';
import type { EndpointRequest, RequestBody } from './request';
import { answerResponse, EndpointAnswer, jsonResponse } from './response';
import { JSON_MEDIA_TYPE } from './media-type';
import { type Route, type RouteMethod, type RoutePath, routeFor } from './routes';
import type { Principal } from '../auth/principal';
import type { Caller, EndpointContext, HttpState } from './state';
import { AUTHENTICATION_CHALLENGES, CREDENTIAL_HEADERS } from './middlewares/required-headers';

/** What an endpoint declares besides its handler. */
export interface EndpointOptions<TInput, TCaller extends Caller> {
  /** The endpoint's path and method; its grant, credentials and the path's other methods come from the route table. */
  path: RoutePath;
  method: RouteMethod;
  /**
   * Validates the body (an object, either encoding) into the handler's input, throwing
   * `invalidParameter(name)` for the first bad field; `noInput` for endpoints that read no body.
   */
  parse: (body: RequestBody, caller: TCaller) => TInput;
  /** The status of a successful answer; default `200`. */
  status?: 200 | 201;
}

/**
 * Builds the Lambda handler of an endpoint: the shared chain around `handler`, whose result is the
 * body of the `200` answer (or an {@link EndpointAnswer} with its own status and headers).
 */
export const httpEndpoint = <TInput, TResult extends object, TCaller extends Caller = Principal>(
  options: EndpointOptions<TInput, TCaller>,
  handler: (request: EndpointRequest<TInput, TCaller>) => Promise<TResult>,
) => {
  const route = routeFor(options.path, options.method);

  const endpointHandler = async (
    event: APIGatewayProxyEvent,
    context: EndpointContext<TInput, TCaller>,
  ): Promise<APIGatewayProxyResult> => {
    const { validatedRequest } = context;
    if (validatedRequest === undefined) throw new Error('The request reached its handler unvalidated');
    const result = await handler({ ...validatedRequest, event, context });
    if (result instanceof EndpointAnswer) return answerResponse(result, validatedRequest.requestId);
    return jsonResponse(options.status ?? 200, result, validatedRequest.requestId);
  };

  const chain = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, EndpointContext<TInput, TCaller>, HttpState>(
    endpointHandler,
  ).use([
    injectLambdaContext(logger, { resetKeys: true }),
    detailedTracing(),
    requestContext(),
    httpHeaderNormalizer(),
    methodCheck({ route }),
    acceptCheck({ mediaType: JSON_MEDIA_TYPE }),
    contentTypeCheck(),
    requiredHeaders({ headers: CREDENTIAL_HEADERS[route.credentials] }),
    authentication({ credentials: route.credentials }),
    authorization({ grant: route.grant }),
    bodySize(),
    bodyParser(),
    validation<TInput, TCaller>({ parse: options.parse, path: route.path }),
    errorFormatter({ challenge: AUTHENTICATION_CHALLENGES[route.credentials] }),
  ]);
  return Object.assign(chain, { route });
};

/** A Lambda handler of one endpoint, as {@link httpEndpoint} builds it. */
export type EndpointHandler = ((event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>) & {
  readonly route: Route;
};

/**
 * The handler of a function that serves several endpoints: each request goes to the endpoint of its
 * resource (the route's path, which API Gateway and the local server put in `event.resource`) and method;
 * a method none of them serves goes to an endpoint of the path, whose chain answers `405` with `Allow`.
 */
export const routedHandler =
  (endpoints: readonly EndpointHandler[]) =>
  (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> => {
    const ofPath = endpoints.filter((endpoint) => endpoint.route.path === event.resource);
    const chosen = ofPath.find((endpoint) => endpoint.route.method === event.httpMethod) ?? ofPath[0] ?? endpoints[0];
    if (chosen === undefined) throw new Error('A routed handler needs at least one endpoint');
    return chosen(event, context);
  };
