/**
 * The path under which the caller reaches the API, for the URLs an answer gives back (`Location` of a created
 * job, docs/contract.md §6a). API Gateway routes `https://<api>.execute-api.<region>.amazonaws.com/prod/jobs`
 * to the resource `/jobs`: the stage is part of the URL the caller used, and a `/jobs/42` handed back would
 * resolve to a URL API Gateway does not route. `requestContext.path` is the path as the caller sent it — with
 * the stage (`/prod/jobs`) on the API's own endpoint, with the base path of the mapping behind a custom domain
 * (`/v1/jobs`, or `/jobs` for a mapping at the root) — and the local server builds it the same way (the path
 * the client asked for). Its last segments are the resource's; what comes before them is the base path.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';

/**
 * What a base path may hold: stage names are letters, digits, `-` and `_`; a custom domain's base path
 * mapping adds `.` and a few more. Anything else (an encoded or unexpected path) gives no base path, so the
 * answer never carries text that is not a plain path.
 */
const BASE_PATH = /^(?:\/[A-Za-z0-9._~-]+)*$/;

/**
 * The base path of the API as this request reached it (`/prod`, `/v1`, or `''`): `requestContext.path`
 * without the segments of the matched resource. `''` when the event carries no such path or its last segments
 * are not the resource's.
 */
export const basePathOf = (event: Pick<APIGatewayProxyEvent, 'resource' | 'requestContext'>): string => {
  const callerPath: unknown = event.requestContext?.path;
  if (typeof callerPath !== 'string' || !callerPath.startsWith('/') || typeof event.resource !== 'string') return '';
  const segments = (path: string): string[] => path.replace(/\/+$/, '').split('/').slice(1);
  const caller = segments(callerPath);
  const resource = segments(event.resource);
  if (caller.length < resource.length) return '';
  const tail = caller.slice(caller.length - resource.length);
  const matches = resource.every((segment, index) => /^\{[^}]+\}$/.test(segment) || segment === tail[index]);
  if (!matches) return '';
  const base = caller
    .slice(0, caller.length - resource.length)
    .map((segment) => `/${segment}`)
    .join('');
  return BASE_PATH.test(base) ? base : '';
};

/** The URL path of `apiPath` (a path of the API, `/jobs/42`) as this request's caller reaches it. */
export const callerPathOf = (
  event: Pick<APIGatewayProxyEvent, 'resource' | 'requestContext'>,
  apiPath: string,
): string => `${basePathOf(event)}${apiPath}`;
