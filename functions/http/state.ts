/**
 * What the middlewares of one request learn and hand on to each other and to the endpoint's handler:
 * the request id, the route, the caller, the parsed body and the validated input. Kept beside the
 * request (keyed by its event object) rather than on the event itself, so the event stays exactly
 * what API Gateway sent.
 */
import type { Principal } from '../auth/principal';
import type { RequestBody } from './request';
import type { Route } from './routes';

/** The body as it was decoded, before it is known to be an object. */
export interface DecodedBody {
  encoding: RequestBody['encoding'];
  value: unknown;
}

/** Per-request state of the HTTP chain. */
export interface HttpState {
  requestId: string;
  route?: Route;
  principal?: Principal;
  decodedBody?: DecodedBody;
  body?: RequestBody;
  input?: unknown;
}

const states = new WeakMap<object, HttpState>();

/** The state of the request an event belongs to; created empty (with an unknown request id) on first use. */
export const stateOf = (event: object): HttpState => {
  let state = states.get(event);
  if (state === undefined) {
    state = { requestId: 'unknown' };
    states.set(event, state);
  }
  return state;
};

/** Starts the state of a new request, forgetting anything a previous invocation with the same event left. */
export const startState = (event: object, requestId: string): HttpState => {
  const state: HttpState = { requestId };
  states.set(event, state);
  return state;
};

/** The caller of an authenticated request; throws when the chain has not authenticated it. */
export const principalOf = (event: object): Principal => {
  const { principal } = stateOf(event);
  if (principal === undefined) throw new Error('The request has not been authenticated');
  return principal;
};
