/**
 * What the read endpoints of `/jobs` take besides the path: the query of `GET /jobs/{id}/files` (the first bad
 * parameter is `400 invalid_parameter` naming it) and the `If-None-Match` test of `GET /jobs/{id}`.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { FILES_LIMIT, ifNoneMatchHits, parseFilesRequest } from '../../../functions/http/job-requests';
import { apiEvent } from '../../support/api-event';
import { expectApiError } from './expect-api-error';

type Query = Pick<APIGatewayProxyEvent, 'queryStringParameters' | 'multiValueQueryStringParameters'>;

/** A query as API Gateway hands it over: each parameter's last value, and every value in order. */
const query = (parameters: Record<string, string | string[]>): Query => ({
  queryStringParameters: Object.fromEntries(
    Object.entries(parameters).map(([name, value]) => [name, Array.isArray(value) ? value.at(-1)! : value]),
  ),
  multiValueQueryStringParameters: Object.fromEntries(
    Object.entries(parameters).map(([name, value]) => [name, Array.isArray(value) ? value : [value]]),
  ),
});

describe('the query of GET /jobs/{id}/files', () => {
  it('defaults to every file, 50 a page, from the start', () => {
    expect(FILES_LIMIT).toEqual({ min: 1, max: 100, default: 50 });
    expect(parseFilesRequest(query({}))).toEqual({ review: undefined, limit: 50, cursor: undefined });
    expect(parseFilesRequest({ queryStringParameters: null, multiValueQueryStringParameters: null })).toEqual({
      review: undefined,
      limit: 50,
      cursor: undefined,
    });
  });

  it('reads a review filter, a limit and a cursor', () => {
    for (const review of ['pending', 'rejected', 'accepted'] as const) {
      expect(parseFilesRequest(query({ review, limit: '100', cursor: 'c1' }))).toEqual({
        review,
        limit: 100,
        cursor: 'c1',
      });
    }
    expect(parseFilesRequest(query({ limit: '1' })).limit).toBe(1);
  });

  it('takes the last value of a repeated parameter', () => {
    expect(parseFilesRequest(query({ limit: ['7', '9'], review: ['x', 'accepted'] }))).toMatchObject({
      limit: 9,
      review: 'accepted',
    });
    expect(parseFilesRequest(query({ limit: ['7', '8', '9'], cursor: ['a', 'b', 'c', 'd'] }))).toMatchObject({
      limit: 9,
      cursor: 'd',
    });
  });

  it('reads queryStringParameters when the event has no multi-value map (a hand-made event)', () => {
    expect(
      parseFilesRequest({ queryStringParameters: { limit: '3', cursor: 'k' }, multiValueQueryStringParameters: null }),
    ).toEqual({ review: undefined, limit: 3, cursor: 'k' });
    expect(
      parseFilesRequest({ queryStringParameters: { limit: '4' }, multiValueQueryStringParameters: { review: [] } }),
    ).toMatchObject({ limit: 4 });
  });

  it('refuses a review filter outside pending, rejected and accepted', async () => {
    for (const review of ['none', 'PENDING', '']) {
      const error = await expectApiError(() => parseFilesRequest(query({ review })), 'invalid_parameter', {
        parameter: 'review',
      });
      expect(error.message).toBe('review must be pending, rejected or accepted.');
    }
  });

  it('refuses a limit that is no integer from 1 to 100', async () => {
    for (const limit of ['0', '101', '-1', '2.5', 'ten', '', '1e2']) {
      const error = await expectApiError(() => parseFilesRequest(query({ limit })), 'invalid_parameter', {
        parameter: 'limit',
      });
      expect(error.message).toBe('limit must be an integer from 1 to 100.');
    }
  });

  it('refuses an empty cursor, and judges the review before the limit and the limit before the cursor', async () => {
    const error = await expectApiError(() => parseFilesRequest(query({ cursor: '' })), 'invalid_parameter', {
      parameter: 'cursor',
    });
    expect(error.message).toBe('The cursor is not valid.');
    await expectApiError(() => parseFilesRequest(query({ review: 'x', limit: '0', cursor: '' })), 'invalid_parameter', {
      parameter: 'review',
    });
    await expectApiError(() => parseFilesRequest(query({ limit: '0', cursor: '' })), 'invalid_parameter', {
      parameter: 'limit',
    });
  });
});

describe('If-None-Match of GET /jobs/{id}', () => {
  const hits = (header: string | string[] | undefined, etag = '"3"') =>
    ifNoneMatchHits(
      apiEvent({ path: '/jobs/1', headers: header === undefined ? {} : { 'if-none-match': header } }),
      etag,
    );

  it('misses without the header', () => {
    expect(hits(undefined)).toBe(false);
  });

  it('hits the current tag, weakly compared, with spaces around it', () => {
    expect(hits('"3"')).toBe(true);
    expect(hits('W/"3"')).toBe(true);
    expect(hits('"3"', 'W/"3"')).toBe(true);
    expect(hits('  "3"  ')).toBe(true);
  });

  it('misses another tag, and a tag that only contains the current one', () => {
    expect(hits('"4"')).toBe(false);
    expect(hits('"33"')).toBe(false);
    expect(hits('W/"4"')).toBe(false);
    expect(hits('x"3"')).toBe(false);
  });

  it('reads W/ as weak only as a prefix, in capitals, where "W/3" and w/"3" are other tags', () => {
    expect(hits('"W/3"')).toBe(false);
    expect(hits('"3"', '"W/3"')).toBe(false);
    expect(hits('w/"3"')).toBe(false);
    expect(hits('W/"W/3"', '"W/3"')).toBe(true);
  });

  it('hits when any tag of a list matches, on one line or repeated lines', () => {
    expect(hits('"1", "3"')).toBe(true);
    expect(hits('"1",W/"3"')).toBe(true);
    expect(hits(['"1"', '"3"'])).toBe(true);
    expect(hits('"1", "2"')).toBe(false);
  });

  it('hits any representation on *, alone or in a list', () => {
    expect(hits('*')).toBe(true);
    expect(hits(' * ')).toBe(true);
    expect(hits('"1", *')).toBe(true);
  });
});
