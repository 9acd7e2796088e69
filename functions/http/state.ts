/**
 * What the middlewares of one request learn and hand on to each other: the request id, the caller and
 * the decoded body. It lives in middy's per-request store, `request.internal`, which middy
 * creates empty for every invocation, so nothing of an earlier request can leak into a later one and the
 * event stays what API Gateway sent (apart from the header normalizer's lower-cased names).
 *
 * The endpoint's handler is a plain `(event, context)` Lambda handler to middy, so the last check
 * (validation) hands it the validated request through the context, the way middy's own middlewares
 * hand values to a handler: {@link EndpointContext}.
 */
import type { Request } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { Grant, Principal } from '../auth/principal';
import type { ClientRecord } from '../auth/records';
import type { PathParameters } from './path-parameters';
import type { RequestBody } from './request';

/** The body as it was decoded, before it is known to be an object. */
export interface DecodedBody {
  encoding: RequestBody['encoding'];
  value: unknown;
}

/** Per-request state of the HTTP chain (middy's `request.internal`); each field is set by one middleware. */
export type HttpState = {
  /** Set by `requestContext`, the first check. */
  requestId?: string;
  /** Set by `authentication` on routes whose callers present a session. */
  principal?: Principal;
  /** Set by `authentication` on routes whose callers present a client secret (`POST /sessions`). */
  client?: ClientRecord;
  /** Set by `bodyParser`. */
  decodedBody?: DecodedBody;
};

/**
 * Who an authenticated request comes from: a signed-in person's {@link Principal}, or, on `POST /sessions`,
 * the client itself (authenticated by its secret).
 */
export type Caller = Principal | ClientRecord;

/** What the validation middleware hands the endpoint's handler. */
export interface ValidatedRequest<TInput, TCaller extends Caller = Principal> {
  input: TInput;
  params: PathParameters;
  principal: TCaller;
  requestId: string;
}

/** The Lambda context as the endpoint's handler receives it: with the validated request. */
export type EndpointContext<TInput = unknown, TCaller extends Caller = Caller> = Context & {
  validatedRequest?: ValidatedRequest<TInput, TCaller>;
};

/** The middy request of the HTTP chain. */
export type HttpRequest<TInput = unknown> = Request<
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  Error,
  EndpointContext<TInput>,
  HttpState
>;

/** The caller of an authenticated request; throws when the chain has not authenticated it. */
export const callerOf = (state: HttpState): Caller => {
  const caller = state.principal ?? state.client;
  if (caller === undefined) throw new Error('The request has not been authenticated');
  return caller;
};

/** The grants of the authenticated client. */
export const grantsOf = (state: HttpState): readonly Grant[] => callerOf(state).grants;
