/**
 * What the shared HTTP chain hands to an endpoint's handler once every check of docs/contract.md §1 passed.
 */
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { Principal } from '../auth/principal';
import type { Caller } from './state';

/**
 * A parsed request body. JSON bodies keep their JSON types; form bodies hold strings, and a key that
 * occurs more than once (or is written `key[]`) holds a list of strings. An empty body is `{}`.
 */
export interface RequestBody {
  encoding: 'json' | 'form';
  fields: Record<string, unknown>;
}

/** The request an endpoint's handler receives. */
export interface EndpointRequest<TInput, TCaller extends Caller = Principal> {
  /** The validated input (the endpoint's `parse` result; `undefined` for GET endpoints). */
  input: TInput;
  principal: TCaller;
  requestId: string;
  event: APIGatewayProxyEvent;
  context: Context;
}
