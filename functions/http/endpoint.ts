/**
 * `httpEndpoint`: wraps an endpoint's handler in the shared middy chain, which runs the checks of contract
 * section 1 in their order — method (405), Accept (406), Content-Type (415), required headers (400),
 * client and session (401), grant (403), body size (413), body parsing (400 invalid_json), validation
 * (400 invalid_parameter) — and turns the handler's result into a `200` JSON answer and every error
 * into the contract error body.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { Principal } from '../auth/principal';
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
import { jsonResponse } from './response';
import { JSON_MEDIA_TYPE } from './media-type';
import { type RoutePath, routeFor } from './routes';
import type { EndpointContext, HttpState } from './state';

/** What an endpoint declares besides its handler. */
export interface EndpointOptions<TInput> {
  /** The endpoint's path; its methods and required grant come from the route table. */
  path: RoutePath;
  /**
   * Validates the body (an object, either encoding) into the handler's input, throwing
   * `invalidParameter(name)` for the first bad field; `noInput` for endpoints that read no body.
   */
  parse: (body: RequestBody, principal: Principal) => TInput;
}

/**
 * Builds the Lambda handler of an endpoint: the shared chain around `handler`, whose result is the
 * body of the `200` answer.
 */
export const httpEndpoint = <TInput, TResult extends object>(
  options: EndpointOptions<TInput>,
  handler: (request: EndpointRequest<TInput>) => Promise<TResult>,
) => {
  const route = routeFor(options.path);

  const endpointHandler = async (
    event: APIGatewayProxyEvent,
    context: EndpointContext<TInput>,
  ): Promise<APIGatewayProxyResult> => {
    const { validatedRequest } = context;
    if (validatedRequest === undefined) throw new Error('The request reached its handler unvalidated');
    const result = await handler({ ...validatedRequest, event, context });
    return jsonResponse(200, result, validatedRequest.requestId);
  };

  return middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, EndpointContext<TInput>, HttpState>(
    endpointHandler,
  ).use([
    injectLambdaContext(logger, { resetKeys: true }),
    detailedTracing(),
    requestContext(),
    httpHeaderNormalizer(),
    methodCheck({ route }),
    acceptCheck({ mediaType: JSON_MEDIA_TYPE }),
    contentTypeCheck(),
    requiredHeaders(),
    authentication(),
    authorization({ grant: route.grant }),
    bodySize(),
    bodyParser(),
    validation({ parse: options.parse }),
    errorFormatter(),
  ]);
};
