/**
 * The path a caller reaches the API under, from the API Gateway REST (v1) proxy event: with the stage on the
 * API's own endpoint, with the base path behind a custom domain, with nothing at a custom domain's root or
 * locally — so a `Location` resolves to a URL that is routed.
 */
import { describe, expect, it } from 'vitest';
import { basePathOf, callerPathOf } from '../../../functions/http/caller-path';

const event = (resource: string, path: unknown) =>
  ({ resource, requestContext: { path } }) as unknown as Parameters<typeof basePathOf>[0];

describe('the path the caller reaches the API under', () => {
  it.each([
    ['the API endpoint, stage prod', '/jobs', '/prod/jobs', '/prod/jobs/42'],
    ['a stage with a dash and an underscore', '/jobs', '/my-stage_2/jobs', '/my-stage_2/jobs/42'],
    ['a custom domain mapped at its root', '/jobs', '/jobs', '/jobs/42'],
    ['a custom domain mapped under a base path', '/jobs', '/v1/jobs', '/v1/jobs/42'],
    ['a custom domain mapped under a base path of two segments', '/jobs', '/orders/v1/jobs', '/orders/v1/jobs/42'],
    ['a trailing slash', '/jobs', '/prod/jobs/', '/prod/jobs/42'],
    ['a resource with a path parameter', '/jobs/{id}', '/prod/jobs/7', '/prod/jobs/42'],
  ])('keeps the base path of %s', (_shape, resource, callerPath, location) => {
    expect(callerPathOf(event(resource, callerPath), '/jobs/42')).toBe(location);
  });

  it.each([
    ['no requestContext.path', undefined],
    ['a path that is not text', 42],
    ['a relative path', 'prod/jobs'],
    ['a path that does not end with the resource', '/prod/other'],
    ['a path shorter than the resource', '/'],
    ['a base path with characters no stage or mapping has', '/pr%2Fod/jobs'],
    ['a base path with a space', '/my stage/jobs'],
  ])('answers the bare API path for %s', (_shape, callerPath) => {
    expect(basePathOf(event('/jobs', callerPath))).toBe('');
    expect(callerPathOf(event('/jobs', callerPath), '/jobs/42')).toBe('/jobs/42');
  });

  it('answers the bare path for an event with no request context', () => {
    expect(basePathOf({ resource: '/jobs' } as unknown as Parameters<typeof basePathOf>[0])).toBe('');
  });
});
