/**
 * Runs one middleware of the HTTP chain against a mocked API Gateway event, the way middy calls it:
 * the request carries a fresh `internal` state with the request id, and its headers went through
 * `@middy/http-header-normalizer` (lower-cased names), which runs before every check in the chain.
 */
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { HttpMiddleware, HttpRequest } from '../../../../functions/http/middlewares/types';
import { type ApiEventOptions, apiEvent, lambdaContext } from '../../../support/api-event';

const normalizer = httpHeaderNormalizer();

/**
 * A middy request around an event, as the checks after the header normalizer see it. Its input type is
 * open (`never`), so it can be handed to the validation middleware of any endpoint.
 */
export const requestFor = (options: ApiEventOptions = {}): HttpRequest<never> => {
  const event = apiEvent(options);
  const request: HttpRequest<never> = {
    event,
    context: lambdaContext(),
    response: undefined,
    error: undefined,
    internal: { requestId: event.requestContext.requestId },
  };
  normalizer.before?.(request as never);
  return request;
};

/** Runs a middleware's `before` on a request. */
export const runBefore = async <TInput>(
  middleware: HttpMiddleware<TInput>,
  request: HttpRequest<TInput>,
): Promise<void> => {
  if (middleware.before === undefined) throw new Error(`${middleware.name} has no before step`);
  await middleware.before(request);
};
