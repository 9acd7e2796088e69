/**
 * Reading request headers of a REST (v1) proxy event — lower-cased names, every line of a repeated header from
 * `multiValueHeaders` — and the common headers of every answer, with the answers built on them.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../functions/http/errors';
import {
  answerHeaders,
  commonHeaders,
  hasContent,
  headerValue,
  headerValues,
  lastHeaderValue,
} from '../../../functions/http/headers';
import { answerResponse, EndpointAnswer, errorResponse, jsonResponse } from '../../../functions/http/response';

type Headers = Pick<APIGatewayProxyEvent, 'headers' | 'multiValueHeaders'>;

const COMMON = {
  'Content-Type': 'application/json; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Request-Id': 'r-1',
};

describe('request headers', () => {
  it('reads every line of a repeated header from multiValueHeaders, by its lower-cased name', () => {
    const event: Headers = { headers: { accept: 'c' }, multiValueHeaders: { accept: ['a', 'b', 'c'] } };
    expect(headerValues(event, 'Accept')).toEqual(['a', 'b', 'c']);
    expect(headerValue(event, 'ACCEPT')).toBe('a, b, c');
    expect(lastHeaderValue(event, 'accept')).toBe('c');
  });

  it('falls back to headers when multiValueHeaders lacks the name or holds no line', () => {
    expect(headerValues({ headers: { accept: 'x' }, multiValueHeaders: {} }, 'accept')).toEqual(['x']);
    expect(headerValues({ headers: { accept: 'x' }, multiValueHeaders: { accept: [] } }, 'accept')).toEqual(['x']);
    expect(headerValues({ headers: { accept: 'x' } } as unknown as Headers, 'accept')).toEqual(['x']);
  });

  it('skips a line that is no string', () => {
    const event = { headers: {}, multiValueHeaders: { accept: ['a', undefined, 'b'] } } as unknown as Headers;
    expect(headerValues(event, 'accept')).toEqual(['a', 'b']);
  });

  it('finds nothing for a header not sent, nor under another case of its name', () => {
    expect(headerValues({ headers: {}, multiValueHeaders: {} }, 'accept')).toEqual([]);
    expect(headerValue({ headers: {}, multiValueHeaders: {} }, 'accept')).toBeUndefined();
    expect(lastHeaderValue({ headers: {}, multiValueHeaders: {} }, 'accept')).toBeUndefined();
    expect(headerValues({ headers: { Accept: 'x' }, multiValueHeaders: { Accept: ['x'] } }, 'accept')).toEqual([]);
    expect(headerValues({ headers: null, multiValueHeaders: null } as unknown as Headers, 'accept')).toEqual([]);
    expect(headerValues({ headers: { accept: undefined } } as unknown as Headers, 'accept')).toEqual([]);
  });
});

describe('answers', () => {
  it('carry the common headers of every answer', () => {
    expect(commonHeaders('r-1')).toEqual(COMMON);
  });

  it('build a JSON answer whose common headers win over extra ones', () => {
    expect(jsonResponse(201, { a: 1 }, 'r-1', { ETag: '"1"', 'Cache-Control': 'public' })).toEqual({
      statusCode: 201,
      headers: { ETag: '"1"', ...COMMON },
      body: '{"a":1}',
    });
    expect(jsonResponse(200, {}, 'r-1').headers).toEqual(COMMON);
  });

  it('leave Content-Type off an answer whose status has no content (204, 304), and only there', () => {
    expect([200, 201, 204, 304, 400, 412].map(hasContent)).toEqual([true, true, false, false, true, true]);
    expect(answerHeaders('r-1', 304)).toEqual({ 'Cache-Control': 'no-store', 'X-Request-Id': 'r-1' });
    expect(answerHeaders('r-1', 200)).toEqual(COMMON);
  });

  it("answer an endpoint's answer with its status, headers and body, or an empty body (a 304 with no Content-Type)", () => {
    expect(answerResponse(new EndpointAnswer(304, undefined, { ETag: '"2"' }), 'r-1')).toEqual({
      statusCode: 304,
      headers: { ETag: '"2"', 'Cache-Control': 'no-store', 'X-Request-Id': 'r-1' },
      body: '',
    });
    expect(answerResponse(new EndpointAnswer(200, { b: 2 }), 'r-1')).toEqual({
      statusCode: 200,
      headers: COMMON,
      body: '{"b":2}',
    });
    const answer = new EndpointAnswer(201, { c: 3 });
    expect(answer.headers).toEqual({});
  });

  it("answer an ApiError with its code's status, its headers and the contract body", () => {
    const error = new ApiError('method_not_allowed', {}, { headers: { Allow: 'GET' } });
    expect(errorResponse(error, 'r-1')).toEqual({
      statusCode: 405,
      headers: { Allow: 'GET', ...COMMON },
      body: JSON.stringify({
        code: 'method_not_allowed',
        message: 'The method is not allowed for this resource.',
        requestId: 'r-1',
      }),
    });
  });
});
