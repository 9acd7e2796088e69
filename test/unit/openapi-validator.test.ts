/**
 * The response validator the end-to-end suite runs on every answer: it accepts answers that match
 * openapi.yaml and rejects, readably, every kind of deliberate mismatch.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  assertMatchesOpenApi,
  fetchMatchingOpenApi,
  type ObservedResponse,
  OpenApiMismatchError,
  OpenApiResponseValidator,
} from '../support/openapi';

const headers = {
  'Content-Type': 'application/json; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Request-Id': 'r-1',
};

const job = {
  id: 100234,
  accountId: 5001,
  status: 'CJ_REVIEWING',
  guid: '3f2b8c1e-6d4a-4b7e-9a51-0c8e2f7d9b13',
  name: 'Spring catalogue 2016',
  description: '',
  acceptedDate: null,
  createdDate: '2016-05-01T08:30:12.345Z',
  deliveredDate: '2016-05-06T15:22:02.860Z',
  orderedDate: null,
  reviewedDate: null,
  realCost: 126.5,
  fileCount: 3,
};

const searchAnswer = (
  body: unknown = { _type: 'SearchResponseBody', totalJobs: 1, jobs: [job] },
): ObservedResponse => ({
  status: 200,
  headers,
  body,
});

const search = { method: 'POST', path: '/search' };

/** The problems the validator finds, or [] when the answer matches. */
const problemsOf = (request: { method: string; path: string }, response: ObservedResponse): string[] => {
  try {
    assertMatchesOpenApi(request, response);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(OpenApiMismatchError);
    return [...(error as OpenApiMismatchError).problems];
  }
};

describe('assertMatchesOpenApi', () => {
  it('accepts a search answer that matches the description', () => {
    expect(problemsOf(search, searchAnswer())).toEqual([]);
  });

  it('accepts fetch Headers, a raw JSON text body and a query string on the path', () => {
    const response = { status: 200, headers: new Headers(headers), body: JSON.stringify(searchAnswer().body) };
    expect(problemsOf({ method: 'post', path: '/search?debug=1' }, response)).toEqual([]);
  });

  it('rejects a job summary with an undocumented field', () => {
    const body = { _type: 'SearchResponseBody', totalJobs: 1, jobs: [{ ...job, accountName: 'Shoes Ltd' }] };
    expect(problemsOf(search, searchAnswer(body))).toEqual(['body/jobs/0 has an undocumented property "accountName"']);
  });

  it('rejects a datetime that is not UTC with milliseconds', () => {
    const body = {
      _type: 'SearchResponseBody',
      totalJobs: 1,
      jobs: [{ ...job, createdDate: '2016-05-01T10:30:12+02:00' }],
    };
    expect(problemsOf(search, searchAnswer(body))).toContainEqual(
      expect.stringMatching(/^body\/jobs\/0\/createdDate /),
    );
  });

  it('rejects an unknown status value', () => {
    const body = { _type: 'SearchResponseBody', totalJobs: 1, jobs: [{ ...job, status: 'CJ_DONE' }] };
    expect(problemsOf(search, searchAnswer(body))).toEqual([
      expect.stringMatching(/^body\/jobs\/0\/status must be equal to one of the allowed values/),
    ]);
  });

  it('rejects a status the operation does not document', () => {
    expect(
      problemsOf(search, { status: 409, headers, body: { code: 'file_not_rejectable', message: 'm', requestId: 'r' } }),
    ).toEqual([expect.stringContaining('status 409 is not documented')]);
  });

  it('rejects an error code that belongs to another status', () => {
    const body = {
      code: 'invalid_client',
      message: 'The client is unknown or disabled, or its credentials are not valid.',
      requestId: 'r-1',
    };
    expect(problemsOf(search, { status: 403, headers, body })).toEqual(['body/code must be "forbidden"']);
  });

  it('rejects a 400 missing_header without headerName, naming only the missing_header shape', () => {
    const body = { code: 'missing_header', message: 'A required header was not supplied.', requestId: 'r-1' };
    expect(problemsOf(search, { status: 400, headers, body })).toEqual([
      'body lacks the required property "headerName"',
    ]);
  });

  it('rejects an error body that leaks an internal field', () => {
    const body = {
      code: 'internal_error',
      message: 'An unexpected error occurred.',
      requestId: 'r-1',
      stack: 'Error: at …',
    };
    expect(problemsOf(search, { status: 500, headers, body })).toEqual(['body has an undocumented property "stack"']);
  });

  it('rejects an answer without X-Request-Id or with a cacheable Cache-Control', () => {
    const { 'X-Request-Id': _dropped, ...withoutId } = headers;
    expect(problemsOf(search, { ...searchAnswer(), headers: withoutId })).toEqual([
      'header X-Request-Id is required but missing',
    ]);
    expect(problemsOf(search, { ...searchAnswer(), headers: { ...headers, 'Cache-Control': 'max-age=60' } })).toEqual([
      'header Cache-Control must be "no-store" (got "max-age=60")',
    ]);
  });

  it('rejects a 503 without a numeric Retry-After', () => {
    const body = { code: 'service_unavailable', message: 'Retry later.', requestId: 'r-1' };
    expect(problemsOf(search, { status: 503, headers, body })).toEqual(['header Retry-After is required but missing']);
    expect(problemsOf(search, { status: 503, headers: { ...headers, 'Retry-After': 'soon' }, body })).toEqual([
      'header Retry-After must be integer (got "soon")',
    ]);
    expect(problemsOf(search, { status: 503, headers: { ...headers, 'Retry-After': '2' }, body })).toEqual([]);
  });

  it('judges a wrong method on a known path by the 405 answer, Allow included', () => {
    const body = {
      code: 'method_not_allowed',
      message: 'The method is not allowed for this resource.',
      requestId: 'r-1',
    };
    const request = { method: 'GET', path: '/search' };
    expect(problemsOf(request, { status: 405, headers: { ...headers, Allow: 'POST' }, body })).toEqual([]);
    expect(problemsOf(request, { status: 405, headers, body })).toEqual(['header Allow is required but missing']);
    expect(problemsOf(request, { status: 200, headers, body: searchAnswer().body })).toEqual([
      'GET /search: no such operation is documented, so the answer must be 405 (got 200)',
    ]);
  });

  it('judges an unknown path by the 404 answer', () => {
    const body = { code: 'not_found', message: 'The requested resource does not exist.', requestId: 'r-1' };
    expect(problemsOf({ method: 'GET', path: '/invoices' }, { status: 404, headers, body })).toEqual([]);
    expect(problemsOf({ method: 'GET', path: '/invoices' }, { status: 200, headers, body: {} })).toEqual([
      'GET /invoices: the path is not documented, so the answer must be 404 (got 200)',
    ]);
  });

  it('rejects an undocumented media type and a body that is not JSON', () => {
    const html = { ...headers, 'Content-Type': 'text/html' };
    expect(problemsOf(search, { status: 200, headers: html, body: '<p>hi</p>' })).toEqual([
      'Content-Type text/html is not documented (documented: application/json)',
    ]);
    expect(problemsOf(search, { status: 200, headers, body: '{"_type":' })).toEqual([
      expect.stringMatching(/^the body is not valid JSON/),
    ]);
  });

  it('explains a mismatch with the request, the status, every problem and the body', () => {
    const body = { _type: 'SearchResponseBody', totalJobs: -1, jobs: [] };
    expect(() => assertMatchesOpenApi(search, searchAnswer(body))).toThrowError(
      /The 200 answer to POST \/search does not match openapi\.yaml:\n {2}- body\/totalJobs must be >= 0\n {2}status: 200\n {2}body: \{"_type":"SearchResponseBody","totalJobs":-1,"jobs":\[\]\}/,
    );
  });

  it('validates against the document it is given', () => {
    const document = {
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths: {
        '/things/{id}': {
          get: {
            responses: {
              '2XX': { description: 'ok', content: { 'application/json': { schema: { type: 'integer' } } } },
            },
          },
        },
      },
    };
    const validator = new OpenApiResponseValidator(document);
    const ok = { status: 204, headers: { 'content-type': 'application/json' }, body: 3 };
    expect(validator.problems({ method: 'GET', path: '/things/7' }, ok)).toEqual([]);
    expect(validator.problems({ method: 'GET', path: '/things/7' }, { ...ok, body: 'x' })).toEqual([
      'the body is not valid JSON: x',
    ]);
  });

  it('checks answers fetched with fetchMatchingOpenApi and hands the response back unread', async () => {
    const answers: Record<string, unknown> = {
      '/search': { _type: 'SearchResponseBody', totalJobs: 0, jobs: [] },
      '/reject': { _type: 'SearchResponseBody', totalJobs: 0, jobs: [] },
    };
    const server = createServer((req, res) => {
      res.writeHead(200, headers);
      res.end(JSON.stringify(answers[req.url ?? ''] ?? {}));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const response = await fetchMatchingOpenApi(`${baseUrl}/search`, { method: 'POST', body: '{}' });
      expect(await response.json()).toEqual(answers['/search']);
      await expect(fetchMatchingOpenApi(`${baseUrl}/reject`, { method: 'POST', body: '{}' })).rejects.toThrowError(
        /The 200 answer to POST \/reject does not match openapi\.yaml/,
      );
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
