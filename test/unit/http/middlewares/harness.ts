/**
 * Runs one middleware of the HTTP chain against a mocked API Gateway event, the way middy calls it.
 */
import type { HttpMiddleware, HttpRequest } from '../../../../functions/http/middlewares/types';
import { startState } from '../../../../functions/http/state';
import { type ApiEventOptions, apiEvent, lambdaContext } from '../../../support/api-event';

/** A middy request around an event, with the chain's state started. */
export const requestFor = (options: ApiEventOptions = {}): HttpRequest => {
  const event = apiEvent(options);
  startState(event, event.requestContext.requestId);
  return { event, context: lambdaContext(), response: undefined, error: undefined, internal: {} };
};

/** Runs a middleware's `before` on a request. */
export const runBefore = async (middleware: HttpMiddleware, request: HttpRequest): Promise<void> => {
  if (middleware.before === undefined) throw new Error(`${middleware.name} has no before step`);
  await middleware.before(request);
};
