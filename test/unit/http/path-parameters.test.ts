/**
 * The path parameters of a request, read from the event (or, for a hand-made event without them, from its
 * path) and judged like body fields: an id outside its range is `400 invalid_parameter` naming it.
 */
import { describe, expect, it } from 'vitest';
import { MAX_ID } from '../../../functions/jobs/model/ids';
import { pathParameter, readPathParameters } from '../../../functions/http/path-parameters';
import { expectApiError } from './expect-api-error';

describe('path parameters', () => {
  it('are none for a path without a template segment', () => {
    expect(readPathParameters('/search', { pathParameters: { id: 'x' }, path: '/search' })).toEqual({});
  });

  it('read the id API Gateway hands over, as a number', () => {
    expect(readPathParameters('/jobs/{id}', { pathParameters: { id: '42' }, path: '/jobs/42' })).toEqual({ id: 42 });
    expect(readPathParameters('/jobs/{id}/files', { pathParameters: { id: '0042' }, path: '/x' })).toEqual({ id: 42 });
    expect(readPathParameters('/jobs/{id}', { pathParameters: { id: String(MAX_ID) }, path: '' })).toEqual({
      id: MAX_ID,
    });
  });

  it('prefer the event parameter to the request path', () => {
    expect(readPathParameters('/jobs/{id}', { pathParameters: { id: '5' }, path: '/jobs/6' })).toEqual({ id: 5 });
  });

  it('take the id from the request path when the event has no path parameters', () => {
    expect(readPathParameters('/jobs/{id}/delivery', { pathParameters: null, path: '/jobs/9/delivery' })).toEqual({
      id: 9,
    });
    expect(readPathParameters('/jobs/{id}', { pathParameters: {}, path: '/jobs/8' })).toEqual({ id: 8 });
  });

  it('refuse an id that is missing or outside 1 to 2^53 − 1, naming it', async () => {
    const cases = [
      { pathParameters: null, path: '/elsewhere/9' },
      { pathParameters: null, path: undefined as unknown as string },
      { pathParameters: { id: '0' }, path: '/jobs/0' },
      { pathParameters: { id: '-1' }, path: '/jobs/-1' },
      { pathParameters: { id: 'abc' }, path: '/jobs/abc' },
      { pathParameters: { id: String(MAX_ID + 1) }, path: '/jobs/x' },
    ];
    for (const event of cases) {
      const error = await expectApiError(() => readPathParameters('/jobs/{id}', event), 'invalid_parameter', {
        parameter: 'id',
      });
      expect(error.message).toBe('The path parameter id is not valid.');
    }
  });

  it('refuse a template parameter that has no rule, as a programming error', () => {
    expect(() => readPathParameters('/things/{slug}' as never, { pathParameters: { slug: 'a' }, path: '' })).toThrow(
      'The path parameter {slug} has no rule',
    );
  });

  it('hand over a parameter the route has, and fail on one it lacks', () => {
    expect(pathParameter({ id: 3 }, 'id')).toBe(3);
    expect(() => pathParameter({}, 'id')).toThrow('The route has no path parameter {id}');
  });
});
