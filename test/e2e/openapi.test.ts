/**
 * openapi.yaml against the running service: every answer the API can give, produced for real over
 * HTTP (local server, handlers, DynamoDB Local, embedded search), matches the description — and a
 * deliberate mismatch, in the answer or in the description, is caught.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobsApiClient } from '../../client/index';
import { loadOpenApiDocument } from '../../local/gateway/docs';
import { makeFile, makeJob } from '../support/jobs';
import {
  DEFAULT_TEST_ACCOUNT_ID,
  type IssuedTokens,
  startTestStack,
  type TestResponse,
  type TestStack,
} from '../support/local-stack';
import { assertMatchesOpenApi, OpenApiMismatchError, OpenApiResponseValidator } from '../support/openapi';

let stack: TestStack;
let user: IssuedTokens;
let searchOnly: IssuedTokens;

const inReview = makeJob({
  status: 'CJ_REVIEWING',
  accountId: DEFAULT_TEST_ACCOUNT_ID,
  name: 'Spring catalogue',
  files: [makeFile(), makeFile()],
});
const fresh = makeJob({ status: 'CJ_NEW', accountId: DEFAULT_TEST_ACCOUNT_ID });
const archived = makeJob({ status: 'CJ_ARCHIVED', accountId: DEFAULT_TEST_ACCOUNT_ID });

beforeAll(async () => {
  stack = await startTestStack();
  user = await stack.issue({ role: 'user' });
  searchOnly = await stack.issue({ grants: ['search'] });
  await stack.importJobs([inReview, fresh, archived]);
  await stack.drained();
});

afterAll(async () => {
  await stack?.stop();
});

type Options = Parameters<TestStack['request']>[1];

/** Sends a request and checks its answer against openapi.yaml; returns the answer. */
const call = async (path: string, options: Options = {}): Promise<TestResponse> => {
  const answer = await stack.request(path, { tokens: user, ...options });
  assertMatchesOpenApi(
    { method: options?.method ?? 'POST', path },
    { status: answer.status, headers: answer.headers, body: answer.text },
  );
  return answer;
};

const fileOf = (job: typeof inReview, index = 0): number => job.files[index]!.id;

describe('every answer of the service matches openapi.yaml', () => {
  it.each([
    [200, 'GET /search/fields as a user', '/search/fields', { method: 'GET' }],
    [200, 'POST /search with JSON', '/search', { body: { field: 'JobName', query: 'spring', pageSize: 5 } }],
    [
      200,
      'POST /search with a form',
      '/search',
      {
        body: new URLSearchParams([
          ['query', 'spring'],
          ['statuses', 'CJ_REVIEWING'],
          ['statuses', 'CJ_NEW'],
        ]),
      },
    ],
    [200, 'POST /search past the last page', '/search', { body: { page: 99 } }],
    [200, 'POST /search with an empty body', '/search', { body: '' }],
    [400, 'a missing client token', '/search', { headers: { 'X-Client-Token': undefined } }],
    [400, 'a blank session token on GET', '/search/fields', { method: 'GET', headers: { 'X-Session-Token': ' ' } }],
    [400, 'a body that does not parse', '/search', { body: '{"query":' }],
    [400, 'an invalid parameter', '/search', { body: { pageSize: 500 } }],
    [400, 'a body that is not an object', '/search', { body: '[1]' }],
    [400, 'an invalid nested reject field', '/reject', { body: { files: [{ fileId: 1, rejects: [{ reason: '' }] }] } }],
    [401, 'an unknown client token', '/search', { headers: { 'X-Client-Token': 'unknown' } }],
    [401, 'an unknown session token', '/search/fields', { method: 'GET', headers: { 'X-Session-Token': 'unknown' } }],
    [406, 'Accept: */*', '/search', { headers: { Accept: '*/*' } }],
    [
      406,
      'Accept: application/json;q=0 on GET',
      '/search/fields',
      { method: 'GET', headers: { Accept: 'application/json;q=0' } },
    ],
    [415, 'Content-Type: text/plain', '/search', { headers: { 'Content-Type': 'text/plain' } }],
    [413, 'a body over 1 MiB', '/search', { body: { query: 'x'.repeat(1_100_000) } }],
    [404, 'an unknown path', '/jobs/1/unknown', { method: 'GET' }],
    [405, 'GET on a POST endpoint', '/search', { method: 'GET' }],
    [405, 'DELETE on /reject', '/reject', { method: 'DELETE' }],
    [405, 'POST on GET /search/fields', '/search/fields', { body: {} }],
  ] as const)('answers %i to %s', async (status, _name, path, options) => {
    const answer = await call(path, options as Options);
    expect(answer.status).toBe(status);
  });

  it('answers 403 forbidden to a client without the reject grant', async () => {
    const answer = await call('/reject', {
      tokens: searchOnly,
      body: { files: [{ fileId: fileOf(inReview), customRejection: 'x' }] },
    });
    expect(answer.status).toBe(403);
  });

  it('answers 404, 409 and 410 for files that cannot be rejected', async () => {
    const reject = (fileId: number) => call('/reject', { body: { files: [{ fileId, customRejection: 'Too dark' }] } });
    expect((await reject(9_999_999)).status).toBe(404);
    expect((await reject(fileOf(fresh))).status).toBe(409);
    expect((await reject(fileOf(archived))).status).toBe(410);
  });

  it('answers 200 to a reject in JSON and in a form, and to its repeat', async () => {
    const body = {
      files: [
        {
          fileId: fileOf(inReview),
          rejects: [{ reason: 'Cropping', positions: [{ xPercent: 0.61, yPercent: 0.44 }] }],
        },
      ],
    };
    expect((await call('/reject', { body })).status).toBe(200);
    expect((await call('/reject', { body })).status).toBe(200);
    const form = new URLSearchParams([
      ['fileId', String(fileOf(inReview, 1))],
      ['reason', 'Colour'],
    ]);
    expect((await call('/reject', { body: form })).status).toBe(200);
  });
});

describe('a deliberate mismatch fails the suite', () => {
  it('rejects a real answer that lost a documented header', async () => {
    const answer = await stack.request('/search/fields', { method: 'GET', tokens: user });
    const headers = new Headers(answer.headers);
    headers.delete('X-Request-Id');
    expect(() =>
      assertMatchesOpenApi(
        { method: 'GET', path: '/search/fields' },
        { status: answer.status, headers, body: answer.text },
      ),
    ).toThrowError(OpenApiMismatchError);
  });

  it('rejects a real answer against a description that drifted from the service', async () => {
    const drifted = loadOpenApiDocument();
    const schemas = (
      drifted.components as { schemas: Record<string, { required: string[]; properties: Record<string, unknown> }> }
    ).schemas;
    schemas.JobSummary!.required.push('accountName');
    schemas.JobSummary!.properties.accountName = { type: 'string' };
    const validator = new OpenApiResponseValidator(drifted);
    const answer = await stack.request('/search', { tokens: user, body: { field: 'JobName', query: 'spring' } });
    expect(answer.json.jobs.length).toBeGreaterThan(0);
    const problems = validator.problems(
      { method: 'POST', path: '/search' },
      { status: answer.status, headers: answer.headers, body: answer.text },
    );
    expect(problems).toEqual(['body/jobs/0 lacks the required property "accountName"']);
  });
});

describe('the typed client generated from openapi.yaml', () => {
  it('lists the fields, searches and rejects against the running service, with typed answers', async () => {
    const api = createJobsApiClient(stack.baseUrl, user);
    /** The client has read the body already: check its parsed `data` or `error` with the real status and headers. */
    const checked = async <T extends { response: Response; data?: unknown; error?: unknown }>(
      request: { method: string; path: string },
      result: Promise<T>,
    ): Promise<T> => {
      const answer = await result;
      const { status, headers } = answer.response;
      assertMatchesOpenApi(request, { status, headers, body: answer.data ?? answer.error });
      return answer;
    };

    const fields = await checked({ method: 'GET', path: '/search/fields' }, api.GET('/search/fields'));
    expect(fields.data?.fields.map((field) => field.id)).toContain('JobTags');

    const found = await checked(
      { method: 'POST', path: '/search' },
      api.POST('/search', { body: { field: 'JobNumber', query: String(inReview.id) } }),
    );
    expect(found.data?.totalJobs).toBe(1);
    expect(found.data?.jobs[0]?.guid).toBe(inReview.guid);

    const refused = await checked(
      { method: 'POST', path: '/reject' },
      api.POST('/reject', { body: { files: [{ fileId: fileOf(archived), customRejection: 'Too dark' }] } }),
    );
    expect(refused.response.status).toBe(410);
    expect(refused.error).toMatchObject({ code: 'job_archived', fileId: fileOf(archived) });

    const invalid = await checked({ method: 'POST', path: '/search' }, api.POST('/search', { body: { pageSize: 0 } }));
    expect(invalid.error).toMatchObject({ code: 'invalid_parameter', parameter: 'pageSize' });
  });
});
