/**
 * POST /search through its whole Lambda chain, on API Gateway events, without any network:
 * - the auth table is a mocked DynamoDB document client (aws-sdk-client-mock) answering the client and
 *   session GetItem lookups;
 * - the search index is the real embedded engine, in memory, filled with `apply()` like the indexer does.
 */
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { resetDefaultAuthenticator } from '../../functions/auth/authenticate';
import type { Grant, Role } from '../../functions/auth/principal';
import { hashToken } from '../../functions/auth/tokens';
import { resetDocumentClient } from '../../functions/aws/dynamodb';
import { resetConfig } from '../../functions/config';
import type { Job } from '../../functions/jobs/model/model';
import { toSearchDocument } from '../../functions/search/search-document';
import { handler } from '../../functions/handlers/search';
import { resetSearchIndex, searchIndex } from '../../functions/search/engine';
import { SearchUnavailableError } from '../../functions/search/search-index';
import { authKeys } from '../../functions/tables';
import { apiEvent, lambdaContext, passingHeaders } from '../support/api-event';
import { makeFile, makeJob } from '../support/jobs';

const AUTH_TABLE = 'auth-unit';
const dynamo = mockClient(DynamoDBDocumentClient);

interface Caller {
  clientToken: string;
  sessionToken: string;
}

/** Makes the mocked auth table hold a client with `grants` and a session of `role` in `accountId`. */
const registerCaller = (name: string, options: { role: Role; accountId: number; grants?: Grant[] }): Caller => {
  const caller = { clientToken: `client-${name}`, sessionToken: `session-${name}` };
  dynamo
    .on(GetCommand, { TableName: AUTH_TABLE, Key: { pk: authKeys.client(hashToken(caller.clientToken)) } })
    .resolves({
      Item: {
        type: 'client',
        clientId: `client-id-${name}`,
        name,
        grants: options.grants ?? ['search'],
        enabled: true,
        createdAt: '2024-01-01T00:00:00.000Z',
      },
    });
  dynamo
    .on(GetCommand, { TableName: AUTH_TABLE, Key: { pk: authKeys.session(hashToken(caller.sessionToken)) } })
    .resolves({
      Item: {
        type: 'session',
        sessionId: `session-id-${name}`,
        clientId: `client-id-${name}`,
        accountId: options.accountId,
        userId: `user-${name}`,
        role: options.role,
        createdAt: '2024-01-01T00:00:00.000Z',
        expiresAt: '2999-01-01T00:00:00.000Z',
      },
    });
  return caller;
};

/** Invokes the Lambda handler with a POST /search event. */
const search = async (
  caller: Caller,
  body: object | string = {},
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: Record<string, unknown> }> => {
  const event = apiEvent({
    method: 'POST',
    path: '/search',
    headers: { ...passingHeaders(caller, 'POST'), ...headers },
    body,
  });
  const result = await handler(event, lambdaContext());
  return { status: result.statusCode, headers: result.headers ?? {}, body: JSON.parse(result.body) };
};

/** Puts jobs into the container's search index, as the stream indexer would. */
const index = async (jobs: Job[]): Promise<void> => {
  const engine = await searchIndex();
  await engine.apply(jobs.map((job) => ({ type: 'upsert', document: toSearchDocument(job, 1) })));
};

const ACCOUNT = 501;
const OTHER_ACCOUNT = 502;

const spring = makeJob({
  id: 9001,
  accountId: ACCOUNT,
  status: 'CJ_REVIEWING',
  name: 'Spring catalogue',
  description: 'Shoes on white',
  createdDate: '2016-05-06T17:22:02.86+02:00',
  acceptedDate: '2016-05-07T09:00:00Z',
  deliveredDate: '2016-05-09T12:00:00.123456Z',
  realCost: 120.5,
  files: [makeFile({ fileName: 'cem_test15.jpg' }), makeFile()],
});
const autumn = makeJob({
  id: 9002,
  accountId: ACCOUNT,
  status: 'CJ_NEW',
  name: 'Autumn lookbook',
  createdDate: '2016-09-01T08:00:00.000Z',
});
const foreign = makeJob({
  id: 9003,
  accountId: OTHER_ACCOUNT,
  status: 'CJ_NEW',
  name: 'Spring collection',
  createdDate: '2016-07-01T08:00:00.000Z',
});

let user: Caller;
let operator: Caller;

beforeAll(() => {
  vi.stubEnv('JOBS_TABLE', 'jobs-unit');
  vi.stubEnv('AUTH_TABLE', AUTH_TABLE);
  vi.stubEnv('SEARCH_ENGINE', 'embedded');
  vi.stubEnv('SEARCH_DB_PATH', ':memory:');
  vi.stubEnv('AUTH_CACHE_TTL_MS', '0');
});

beforeEach(async () => {
  resetConfig();
  resetDocumentClient();
  resetDefaultAuthenticator();
  dynamo.reset();
  dynamo.on(GetCommand).resolves({});
  user = registerCaller('user', { role: 'user', accountId: ACCOUNT });
  operator = registerCaller('operator', { role: 'operator', accountId: 1 });
  await index([spring, autumn, foreign]);
});

afterEach(async () => {
  vi.restoreAllMocks();
  await resetSearchIndex();
});

afterAll(() => {
  vi.unstubAllEnvs();
  dynamo.restore();
});

describe('POST /search handler', () => {
  it("answers 200 with the seed's search response: totalJobs and the page of jobs, newest first", async () => {
    const answer = await search(user);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ _type: 'SearchResponseBody', totalJobs: 2 });
    expect((answer.body.jobs as Array<{ id: number }>).map((job) => job.id)).toEqual([autumn.id, spring.id]);
  });

  it("returns each job as exactly the seed's 13 fields, in the seed's order, datetimes in UTC with milliseconds", async () => {
    const answer = await search(user, { field: 'JobName', query: 'spring' });
    expect(answer.body.jobs).toEqual([
      {
        id: 9001,
        accountId: ACCOUNT,
        status: 'CJ_REVIEWING',
        guid: spring.guid,
        name: 'Spring catalogue',
        description: 'Shoes on white',
        acceptedDate: '2016-05-07T09:00:00.000Z',
        createdDate: '2016-05-06T15:22:02.860Z',
        deliveredDate: '2016-05-09T12:00:00.123Z',
        orderedDate: null,
        reviewedDate: null,
        realCost: 120.5,
        fileCount: 2,
      },
    ]);
    const [job] = answer.body.jobs as object[];
    expect(Object.keys(job!)).toEqual([
      'id',
      'accountId',
      'status',
      'guid',
      'name',
      'description',
      'acceptedDate',
      'createdDate',
      'deliveredDate',
      'orderedDate',
      'reviewedDate',
      'realCost',
      'fileCount',
    ]);
  });

  it('answers with the common headers of every answer', async () => {
    const answer = await search(user);
    expect(answer.headers).toMatchObject({
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Request-Id': expect.any(String),
    });
  });

  it('confines a user to its own account, and sends the engine a query scoped to it', async () => {
    const engine = await searchIndex();
    const spy = vi.spyOn(engine, 'search');
    const answer = await search(user, { query: 'spring' });
    expect(answer.body.totalJobs).toBe(1);
    expect(spy).toHaveBeenCalledWith(expect.objectContaining({ accountId: ACCOUNT, text: 'spring', field: 'Global' }));
  });

  it('lets an operator search every account', async () => {
    const engine = await searchIndex();
    const spy = vi.spyOn(engine, 'search');
    const answer = await search(operator, { query: 'spring' });
    expect(answer.body.totalJobs).toBe(2);
    expect(spy.mock.calls[0]![0]).not.toHaveProperty('accountId');
  });

  it('reads a form body like the same JSON body', async () => {
    const form = await search(user, 'field=job+name&query=Spr&statuses=CJ_REVIEWING&statuses=CJ_NEW&pageSize=1', {
      'Content-Type': 'application/x-www-form-urlencoded',
    });
    const json = await search(user, {
      field: 'job name',
      query: 'Spr',
      statuses: ['CJ_REVIEWING', 'CJ_NEW'],
      pageSize: 1,
    });
    expect(form.status).toBe(200);
    expect(form.body).toEqual(json.body);
    expect(form.body.totalJobs).toBe(1);
  });

  it('answers a page past the end with no jobs and the true totalJobs', async () => {
    const answer = await search(user, { page: 7, pageSize: 10 });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ _type: 'SearchResponseBody', totalJobs: 2, jobs: [] });
  });

  it('applies the created and delivered date ranges, half-open', async () => {
    const created = await search(user, { dateFrom: '2016-05-06T15:22:02.860Z', dateTo: '2016-09-01T08:00:00Z' });
    expect((created.body.jobs as Array<{ id: number }>).map((job) => job.id)).toEqual([spring.id]);
    const delivered = await search(user, { deliveredDateFrom: '2016-01-01' });
    expect((delivered.body.jobs as Array<{ id: number }>).map((job) => job.id)).toEqual([spring.id]);
  });

  it.each([
    [{ field: 'AccountNumber' }, 'field'],
    [{ field: 'Nope' }, 'field'],
    [{ query: 'q'.repeat(501) }, 'query'],
    [{ page: -1 }, 'page'],
    [{ page: 500 }, 'page'],
    [{ pageSize: 101 }, 'pageSize'],
    [{ statuses: ['CJ_GONE'] }, 'statuses'],
    [{ dateFrom: '2016-02-30' }, 'dateFrom'],
    [{ dateTo: '2016-01-14T10:00:00' }, 'dateTo'],
    [{ deliveredDateFrom: '2016-01-14T24:00:00Z' }, 'deliveredDateFrom'],
    [{ deliveredDateFrom: '2016-02-01', deliveredDateTo: '2016-01-01' }, 'deliveredDateTo'],
  ])('answers 400 invalid_parameter for %j, naming %s', async (body, parameter) => {
    const answer = await search(user, body);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      code: 'invalid_parameter',
      message: expect.any(String),
      parameter,
      requestId: answer.headers['X-Request-Id'],
    });
  });

  it('refuses a user-only field to an operator as invalid field', async () => {
    const answer = await search(operator, { field: 'JobTags' });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'invalid_parameter', parameter: 'field' });
  });

  it('answers 400 invalid_parameter "body" for a JSON body that is not an object', async () => {
    const answer = await search(user, '["Global"]');
    expect(answer.body).toMatchObject({ code: 'invalid_parameter', parameter: 'body' });
  });

  it('answers 403 forbidden to a client without the search grant, before reading the body', async () => {
    const rejectOnly = registerCaller('reject-only', { role: 'user', accountId: ACCOUNT, grants: ['reject'] });
    const answer = await search(rejectOnly, '{not json');
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ code: 'forbidden' });
  });

  it('answers 401 invalid_session to an unknown session, without searching', async () => {
    const engine = await searchIndex();
    const spy = vi.spyOn(engine, 'search');
    const answer = await search({ clientToken: user.clientToken, sessionToken: 'no-such-session' });
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ code: 'invalid_session' });
    expect(spy).not.toHaveBeenCalled();
  });

  it('answers 503 with Retry-After when the search engine is unavailable, without saying why', async () => {
    const engine = await searchIndex();
    vi.spyOn(engine, 'search').mockRejectedValue(
      new SearchUnavailableError('connect ECONNREFUSED 10.0.0.7:443 (jobs-domain)'),
    );
    const answer = await search(user);
    expect(answer.status).toBe(503);
    expect(answer.headers['Retry-After']).toMatch(/^\d+$/);
    expect(answer.body).toEqual({
      code: 'service_unavailable',
      message: expect.any(String),
      requestId: expect.any(String),
    });
    expect(JSON.stringify(answer.body)).not.toMatch(/ECONNREFUSED|jobs-domain|SearchUnavailableError/);
  });

  it('answers 503 when the auth table is throttled', async () => {
    dynamo.on(GetCommand).rejects(
      Object.assign(new Error('Rate exceeded'), {
        name: 'ProvisionedThroughputExceededException',
        $metadata: { httpStatusCode: 400 },
      }),
    );
    const answer = await search(user);
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({ code: 'service_unavailable' });
  });

  it('answers 500 internal_error when the engine fails unexpectedly, leaking nothing', async () => {
    const engine = await searchIndex();
    vi.spyOn(engine, 'search').mockRejectedValue(new TypeError("Cannot read properties of undefined (reading 'rows')"));
    const answer = await search(user);
    expect(answer.status).toBe(500);
    expect(answer.body).toEqual({ code: 'internal_error', message: expect.any(String), requestId: expect.any(String) });
    expect(JSON.stringify(answer.body)).not.toMatch(/rows|TypeError/);
  });
});
