/**
 * The path parameters of the route table (`{id}` in `/jobs/{id}`), read from the event API Gateway sends
 * (`pathParameters`) and judged like body fields: a value outside its rule is `400 invalid_parameter`
 * naming the parameter (docs/contract.md §6a). Job and file ids follow the one id range of
 * functions/jobs/model/ids.ts. A webhook id is opaque to its client: any text is taken, and one that names no
 * webhook of the client is `404 webhook_not_found` (§6c), whatever its form.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { invalidParameter } from '../errors';
import { parseId } from '../jobs/model/ids';
import { parameterNames, type PathParameterName, type RoutePath, templateParameters } from './routes';

/** The type of each path parameter's value. */
interface PathParameterValues {
  id: number;
  fileId: number;
  webhookId: string;
}

/** The validated path parameters of a request; a route has exactly those its template names. */
export type PathParameters = Readonly<Partial<PathParameterValues>>;

/** How each path parameter is read from its text; `undefined` when the text breaks the rule. */
const PARSERS: { [Name in PathParameterName]: (text: string) => PathParameterValues[Name] | undefined } = {
  id: parseId,
  fileId: parseId,
  webhookId: (text) => text,
};

const isParameterName = (name: string): name is PathParameterName => Object.hasOwn(PARSERS, name);

/**
 * The path parameters of a request to `path`, validated. A parameter missing from the event (a hand-made
 * event without `pathParameters`) is taken from the request path when that fits the template.
 */
export const readPathParameters = (
  path: RoutePath,
  event: Pick<APIGatewayProxyEvent, 'pathParameters' | 'path'>,
): PathParameters => {
  const names = parameterNames(path);
  if (names.length === 0) return {};
  const fromPath = templateParameters(path, event.path ?? '') ?? {};
  const parameters: Partial<Record<PathParameterName, unknown>> = {};
  for (const name of names) {
    if (!isParameterName(name)) throw new Error(`The path parameter {${name}} has no rule`);
    const text = event.pathParameters?.[name] ?? fromPath[name];
    const value = text === undefined ? undefined : PARSERS[name](text);
    if (value === undefined) throw invalidParameter(name, `The path parameter ${name} is not valid.`);
    parameters[name] = value;
  }
  return parameters as PathParameters;
};

/** A path parameter the endpoint's route is known to have; a route without it is a programming error. */
export const pathParameter = <Name extends PathParameterName>(
  parameters: PathParameters,
  name: Name,
): PathParameterValues[Name] => {
  const value = parameters[name];
  if (value === undefined) throw new Error(`The route has no path parameter {${name}}`);
  return value;
};
