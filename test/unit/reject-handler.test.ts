import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resetDefaultAuthenticator } from '../../functions/auth/authenticate';
import type { Grant, Role } from '../../functions/auth/principal';
import { hashToken } from '../../functions/auth/tokens';
import { resetDocumentClient } from '../../functions/aws/dynamodb';
import { resetConfig } from '../../functions/config';
import { toFileItems, toJobItem } from '../../functions/jobs/store/items';
import type { Job, JobStatus } from '../../functions/jobs/model/model';
import { logger } from '../../functions/observability';
import { handler } from '../../functions/handlers/reject';
import { authKeys } from '../../functions/tables';
import { apiEvent, lambdaContext, passingHeaders } from '../support/api-event';
import { makeFile, makeJob } from '../support/jobs';

const ENV = { JOBS_TABLE: 'jobs-unit', AUTH_TABLE: 'auth-unit', SEARCH_ENGINE: 'embedded', AUTH_CACHE_TTL_MS: '0' };

const dynamo = mockClient(DynamoDBDocumentClient);

interface Caller {
  clientToken: string;
  sessionToken: string;
}

let callers = 0;
/** Registers a client and a session in the mocked auth table. */
const caller = (options: { grants?: Grant[]; role?: Role; accountId?: number } = {}): Caller => {
  callers += 1;
  const tokens = { clientToken: `client-token-${callers}`, sessionToken: `session-token-${callers}` };
  authItems.set(authKeys.client(hashToken(tokens.clientToken)), {
    pk: authKeys.client(hashToken(tokens.clientToken)),
    type: 'client',
    clientId: `client-${callers}`,
    name: 'Unit app',
    grants: options.grants ?? ['search', 'reject'],
    enabled: true,
    createdAt: '2024-01-01T00:00:00.000Z',
  });
  authItems.set(authKeys.session(hashToken(tokens.sessionToken)), {
    pk: authKeys.session(hashToken(tokens.sessionToken)),
    type: 'session',
    sessionId: `session-${callers}`,
    clientId: `client-${callers}`,
    accountId: options.accountId ?? 1001,
    userId: `user-${callers}`,
    role: options.role ?? 'user',
    createdAt: '2024-01-01T00:00:00.000Z',
    expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
  });
  return tokens;
};
const authItems = new Map<string, Record<string, unknown>>();

/** Stores jobs in the mocked jobs table: the file index and consistent reads answer from them. */
const storeJobs = (...jobs: Job[]): void => {
  const items = jobs.flatMap((job) => [toJobItem(job, 5), ...toFileItems(job)]);
  dynamo.on(QueryCommand).callsFake((input: { ExpressionAttributeValues: Record<string, number> }) => {
    const fileId = input.ExpressionAttributeValues[':fileId'];
    return {
      Items: items
        .filter((item) => item.entity === 'file' && (item as { fileId: number }).fileId === fileId)
        .map(({ pk, sk }) => ({ pk, sk, fileId })),
    };
  });
  dynamo
    .on(BatchGetCommand)
    .callsFake((input: { RequestItems: Record<string, { Keys: { pk: string; sk: string }[] }> }) => {
      const keys = input.RequestItems[ENV.JOBS_TABLE]?.Keys ?? [];
      return {
        Responses: {
          [ENV.JOBS_TABLE]: items.filter((item) => keys.some((key) => key.pk === item.pk && key.sk === item.sk)),
        },
      };
    });
};

const reviewing = (overrides: Partial<Job> = {}) => makeJob({ status: 'CJ_REVIEWING', ...overrides });

const send = async (
  tokens: Caller,
  body: object | string,
  headers: Record<string, string> = {},
): Promise<APIGatewayProxyResult & { json: Record<string, unknown> }> => {
  const result = (await handler(
    apiEvent({
      method: 'POST',
      path: '/reject',
      headers: { ...passingHeaders(tokens, 'POST'), ...headers },
      body,
    }),
    lambdaContext(),
  )) as APIGatewayProxyResult;
  return { ...result, json: JSON.parse(result.body) };
};

const cropping = (fileId: number) => ({
  fileId,
  rejects: [{ reason: 'Cropping', positions: [{ xPercent: 0.5, yPercent: 0.5 }] }],
});

const canceled = (...codes: string[]) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed]',
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

describe('POST /reject handler', () => {
  const saved: Record<string, string | undefined> = {};

  beforeAll(() => {
    for (const [name, value] of Object.entries(ENV)) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
    resetConfig();
    resetDocumentClient();
    resetDefaultAuthenticator();
    // Refusals and failures are logged by design; keep the test output readable.
    logger.setLogLevel('SILENT');
  });

  afterAll(() => {
    logger.setLogLevel('INFO');
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    resetConfig();
    resetDocumentClient();
    resetDefaultAuthenticator();
    dynamo.restore();
  });

  beforeEach(() => {
    dynamo.reset();
    dynamo.on(GetCommand).callsFake((input: { Key: { pk: string } }) => ({ Item: authItems.get(input.Key.pk) }));
    storeJobs();
  });

  it('answers 200 with the rejected files and their jobs, written in one transaction', async () => {
    const job = reviewing({ files: [makeFile(), makeFile()] });
    storeJobs(job);
    dynamo.on(TransactWriteCommand).resolves({});
    const [first, second] = job.files;

    const answer = await send(caller(), {
      files: [cropping(second!.id), { fileId: first!.id, customRejection: 'Redo' }],
    });

    expect(answer.statusCode).toBe(200);
    expect(answer.headers?.['Content-Type']).toBe('application/json; charset=utf-8');
    expect(answer.json).toEqual({
      _type: 'RejectResponseBody',
      files: [
        {
          fileId: second!.id,
          jobId: job.id,
          isRejected: true,
          rejectionReason: ' - Cropping',
          reviewDate: expect.any(String),
        },
        { fileId: first!.id, jobId: job.id, isRejected: true, rejectionReason: 'Redo', reviewDate: expect.any(String) },
      ],
      jobs: [{ id: job.id, status: 'CJ_REJECT_READY' }],
    });
    const writes = dynamo.commandCalls(TransactWriteCommand);
    expect(writes).toHaveLength(1);
    expect(writes[0]?.args[0].input.TransactItems).toHaveLength(3);
  });

  it('reads a form body: every listed file gets the same reasons', async () => {
    const job = reviewing({ files: [makeFile(), makeFile()] });
    storeJobs(job);
    dynamo.on(TransactWriteCommand).resolves({});
    const form = new URLSearchParams();
    for (const file of job.files) form.append('fileId', String(file.id));
    form.append('reason', 'Cropping');
    form.append('reason', 'Colour');

    const answer = await send(caller(), form.toString(), { 'Content-Type': 'application/x-www-form-urlencoded' });

    expect(answer.statusCode).toBe(200);
    expect((answer.json.files as Array<{ rejectionReason: string }>).map((file) => file.rejectionReason)).toEqual([
      ' - Cropping - Colour',
      ' - Cropping - Colour',
    ]);
  });

  it('answers 200 without writing when the same review is sent again', async () => {
    const reviewDate = '2024-02-02T08:00:00.000Z';
    const file = makeFile({
      isRejected: true,
      isReviewed: true,
      reviewDate,
      rejectionReason: ' - Cropping',
      reviews: { customRejection: null, rejects: cropping(0).rejects, reviewDate },
    });
    const job = reviewing({ status: 'CJ_REJECT_READY', files: [file] });
    storeJobs(job);

    const answer = await send(caller(), { files: [cropping(file.id)] });

    expect(answer.statusCode).toBe(200);
    expect(answer.json.files).toEqual([
      { fileId: file.id, jobId: job.id, isRejected: true, rejectionReason: ' - Cropping', reviewDate },
    ]);
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('answers 403 forbidden to a client without the reject grant, before reading the body', async () => {
    const answer = await send(caller({ grants: ['search'] }), '{not json');
    expect(answer.statusCode).toBe(403);
    expect(answer.json).toMatchObject({ code: 'forbidden' });
    expect(dynamo.commandCalls(QueryCommand)).toHaveLength(0);
  });

  it('answers 400 invalid_parameter naming the nested field', async () => {
    const answer = await send(caller(), {
      files: [{ fileId: 1, rejects: [{ reason: 'Cropping', positions: [{ xPercent: 2, yPercent: 0 }] }] }],
    });
    expect(answer.statusCode).toBe(400);
    expect(answer.json).toEqual({
      code: 'invalid_parameter',
      message: 'files[0].rejects[0].positions[0].xPercent must be a number from 0 to 1.',
      parameter: 'files[0].rejects[0].positions[0].xPercent',
      requestId: expect.any(String),
    });
    expect(dynamo.commandCalls(QueryCommand)).toHaveLength(0);
  });

  it('answers 400 invalid_parameter naming the form key', async () => {
    const answer = await send(caller(), 'fileId=1&fileId=1&reason=Cropping', {
      'Content-Type': 'application/x-www-form-urlencoded',
    });
    expect(answer.statusCode).toBe(400);
    expect(answer.json).toMatchObject({ code: 'invalid_parameter', parameter: 'fileId' });
  });

  it('answers 400 invalid_json for a body that does not parse', async () => {
    const answer = await send(caller(), '{"files": [');
    expect(answer.statusCode).toBe(400);
    expect(answer.json).toMatchObject({ code: 'invalid_json' });
  });

  it('answers 404 file_not_found naming the unknown file, and writes nothing', async () => {
    const job = reviewing();
    storeJobs(job);
    const answer = await send(caller(), { files: [cropping(job.files[0]!.id), cropping(424_242)] });
    expect(answer.statusCode).toBe(404);
    expect(answer.json).toEqual({
      code: 'file_not_found',
      message: 'The file does not exist.',
      fileId: 424_242,
      requestId: expect.any(String),
    });
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it("answers a user asking for another account's file exactly as for a missing file", async () => {
    const foreign = reviewing({ accountId: 2002 });
    storeJobs(foreign);
    const fileId = foreign.files[0]!.id;
    const tokens = caller({ accountId: 1001 });

    const foreignAnswer = await send(tokens, { files: [cropping(fileId)] });
    storeJobs();
    const missingAnswer = await send(tokens, { files: [cropping(fileId)] });

    expect(foreignAnswer.statusCode).toBe(404);
    const { requestId: _a, ...foreignBody } = foreignAnswer.json;
    const { requestId: _b, ...missingBody } = missingAnswer.json;
    expect(foreignBody).toEqual(missingBody);
  });

  it("lets an operator reject another account's file", async () => {
    const foreign = reviewing({ accountId: 2002 });
    storeJobs(foreign);
    dynamo.on(TransactWriteCommand).resolves({});
    const answer = await send(caller({ role: 'operator', accountId: 1 }), { files: [cropping(foreign.files[0]!.id)] });
    expect(answer.statusCode).toBe(200);
  });

  it('answers 410 job_archived when the job is archived', async () => {
    const job = reviewing({ status: 'CJ_ARCHIVED' });
    storeJobs(job);
    const answer = await send(caller(), { files: [cropping(job.files[0]!.id)] });
    expect(answer.statusCode).toBe(410);
    expect(answer.json).toMatchObject({ code: 'job_archived', fileId: job.files[0]!.id });
  });

  it.each<[string, Partial<Job>]>([
    ['the job is not in review', { status: 'CJ_WORK_PROGRESS' as JobStatus }],
    ['the customer accepted the file', { files: [makeFile({ acceptedByUser: true })] }],
  ])('answers 409 file_not_rejectable when %s', async (_case, overrides) => {
    const job = reviewing(overrides);
    storeJobs(job);
    const answer = await send(caller(), { files: [cropping(job.files[0]!.id)] });
    expect(answer.statusCode).toBe(409);
    expect(answer.json).toMatchObject({ code: 'file_not_rejectable', fileId: job.files[0]!.id });
  });

  it('names the first offending file in request order', async () => {
    const archived = reviewing({ status: 'CJ_ARCHIVED' });
    const fresh = reviewing({ status: 'CJ_NEW' });
    storeJobs(archived, fresh);
    const answer = await send(caller(), {
      files: [cropping(fresh.files[0]!.id), cropping(archived.files[0]!.id), cropping(1)],
    });
    expect(answer.json).toMatchObject({ code: 'file_not_rejectable', fileId: fresh.files[0]!.id });
  });

  it('answers 503 with Retry-After when concurrent writers win every attempt', async () => {
    const job = reviewing();
    storeJobs(job);
    dynamo.on(TransactWriteCommand).rejects(canceled('ConditionalCheckFailed', 'None'));
    const answer = await send(caller(), { files: [cropping(job.files[0]!.id)] });
    expect(answer.statusCode).toBe(503);
    expect(answer.headers?.['Retry-After']).toBe('1');
    expect(answer.json).toEqual({
      code: 'service_unavailable',
      message: 'The service is temporarily unavailable. Retry later.',
      requestId: expect.any(String),
    });
    expect(dynamo.commandCalls(TransactWriteCommand).length).toBeGreaterThan(1);
  });

  it('answers 503 with Retry-After when DynamoDB is throttling', async () => {
    const job = reviewing();
    storeJobs(job);
    const throttled = Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), {
      name: 'ProvisionedThroughputExceededException',
      $metadata: { httpStatusCode: 400 },
    });
    dynamo.on(QueryCommand).rejects(throttled);
    const answer = await send(caller(), { files: [cropping(job.files[0]!.id)] });
    expect(answer.statusCode).toBe(503);
    expect(answer.headers?.['Retry-After']).toBe('1');
    expect(answer.body).not.toContain('throughput');
  });

  it('answers 500 without leaking the cause when the transaction is refused for good', async () => {
    const job = reviewing();
    storeJobs(job);
    dynamo.on(TransactWriteCommand).rejects(canceled('ValidationError', 'None'));
    const answer = await send(caller(), { files: [cropping(job.files[0]!.id)] });
    expect(answer.statusCode).toBe(500);
    expect(answer.json).toEqual({
      code: 'internal_error',
      message: 'An unexpected error occurred.',
      requestId: expect.any(String),
    });
    expect(answer.body).not.toMatch(/Transaction|Validation|cancel/i);
  });
});
