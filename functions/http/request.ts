/**
 * What the shared HTTP chain hands to an endpoint's handler once every check of docs/contract.md §1 passed.
 */
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { Principal } from '../auth/principal';
import type { PathParameters } from './path-parameters';
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
  /** The route's path parameters, validated (`{ id: 42 }` for `/jobs/42`); empty for a literal path. */
  params: PathParameters;
  principal: TCaller;
  requestId: string;
  event: APIGatewayProxyEvent;
  context: Context;
}
