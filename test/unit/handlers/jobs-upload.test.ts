/**
 * POST /jobs/{id}/files/{fileId}/upload (functions/handlers/jobs-write.ts) invoked with the sample event
 * `events/jobs-upload.json` and its variants, the jobs and auth tables mocked: who may ask for which picture of
 * a file in which status, what is read (the job item first: another account's job reveals nothing of its files),
 * and the target answered — bound to a new upload of that file's variant, binding what the file declared.
 */
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Role } from '../../../functions/auth/principal';
import { handler } from '../../../functions/handlers/jobs-write';
import type { JobStatus } from '../../../functions/jobs/model/model';
import { jobKeys } from '../../../functions/tables';
import { lambdaContext } from '../../support/api-event';
import { TEST_PICTURES } from '../../support/pictures';
import { registerSampleCaller, sampleEvent, useUnitHandlerEnvironment } from './sample-events';

const dynamo = mockClient(DynamoDBDocumentClient);
const JOB_ID = 10_001;
const FILE_ID = 10_002;
const SHA = 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=';

const jobItem = (status: JobStatus, accountId = 1001) => ({
  pk: jobKeys.pk(JOB_ID),
  sk: jobKeys.jobSk,
  entity: 'job',
  id: JOB_ID,
  accountId,
  status,
  version: 7,
  fileKeys: 'padded',
});

const fileItem = (extra: Record<string, unknown> = {}) => ({
  pk: jobKeys.pk(JOB_ID),
  sk: jobKeys.fileSk(FILE_ID),
  entity: 'file',
  id: FILE_ID,
  fileId: FILE_ID,
  jobId: JOB_ID,
  fileName: 'shoe front.png',
  ...extra,
});

/** The caller, the job (absent: none) and its file (absent: none) the mocked tables hold. */
const given = (options: {
  role?: Role;
  accountId?: number;
  job?: ReturnType<typeof jobItem>;
  file?: ReturnType<typeof fileItem>;
}): void => {
  registerSampleCaller(dynamo, {
    authTable: 'auth-unit',
    grants: ['jobs'],
    role: options.role ?? 'user',
    accountId: options.accountId ?? 1001,
  });
  dynamo
    .on(GetCommand, { TableName: 'jobs-unit', Key: { pk: jobKeys.pk(JOB_ID), sk: jobKeys.jobSk } })
    .resolves(options.job === undefined ? {} : { Item: options.job });
  dynamo
    .on(GetCommand, { TableName: 'jobs-unit', Key: { pk: jobKeys.pk(JOB_ID), sk: jobKeys.fileSk(FILE_ID) } })
    .resolves(options.file === undefined ? {} : { Item: options.file });
};

const event = (body: unknown, pathParameters: Record<string, string> = {}): APIGatewayProxyEvent => {
  const sample = sampleEvent('jobs-upload.json');
  const parameters = { id: String(JOB_ID), fileId: String(FILE_ID), ...pathParameters };
  const form = typeof body === 'string' && !body.startsWith('{');
  const contentType = form ? 'application/x-www-form-urlencoded' : 'application/json';
  return {
    ...sample,
    headers: { ...sample.headers, 'Content-Type': contentType },
    multiValueHeaders: { ...sample.multiValueHeaders, 'Content-Type': [contentType] },
    path: `/jobs/${parameters.id}/files/${parameters.fileId}/upload`,
    pathParameters: parameters,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  };
};

const call = async (body: unknown, pathParameters?: Record<string, string>) => {
  const result = await handler(event(body, pathParameters), lambdaContext());
  return { status: result.statusCode, json: JSON.parse(result.body) as Record<string, unknown> };
};

/** The table reads the request made, by sort key (the auth table's lookups left out). */
const jobsTableReads = () =>
  dynamo
    .commandCalls(GetCommand)
    .map((each) => each.args[0].input)
    .filter((input) => input.TableName === 'jobs-unit')
    .map((input) => input.Key?.sk);

beforeEach(() => {
  useUnitHandlerEnvironment();
  dynamo.reset();
  dynamo.on(GetCommand).resolves({});
});

afterEach(() => vi.unstubAllEnvs());

describe('POST /jobs/{id}/files/{fileId}/upload', () => {
  it('answers the sample event with a POST target of a new upload of the original, valid an hour', async () => {
    given({ job: jobItem('CJ_NEW'), file: fileItem() });
    const before = Date.now();

    const { status, json } = await call(sampleEvent('jobs-upload.json').body);

    expect(status).toBe(200);
    expect(json).toMatchObject({
      _type: 'UploadTargetResponseBody',
      jobId: JOB_ID,
      fileId: FILE_ID,
      variant: 'original',
      url: `${TEST_PICTURES.endpoint}/${TEST_PICTURES.bucket}`,
      method: 'POST',
      fields: { 'Content-Type': 'image/png' },
    });
    const key = (json.fields as Record<string, string>).key;
    expect(key).toMatch(new RegExp(`^uploads/1001/${JOB_ID}/${FILE_ID}/original/[0-9a-z]{25}$`));
    expect(json.upload).toEqual({ url: json.url, method: 'POST', fields: json.fields, expiresAt: json.expiresAt });
    expect(Date.parse(json.expiresAt as string) - before).toBeGreaterThan(3_590_000);
    expect(jobsTableReads()).toEqual([jobKeys.jobSk, jobKeys.fileSk(FILE_ID)]);
  });

  it('gives an original whose file declared size and SHA-256 a PUT target binding both', async () => {
    given({ job: jobItem('CJ_REQUEST_OFFER'), file: fileItem({ declaredOriginal: { size: 5_000, sha256: SHA } }) });

    const { status, json } = await call({ variant: 'original' });

    expect(status).toBe(200);
    expect(json).toMatchObject({
      method: 'PUT',
      headers: { 'Content-Type': 'image/png', 'x-amz-checksum-sha256': SHA },
    });
    expect(json.url).toMatch(new RegExp(`/uploads/1001/${JOB_ID}/${FILE_ID}/original/[0-9a-z]{25}\\?`));
  });

  it('gives an operator a target of the edited version in each status that allows a delivery, with no declared bytes', async () => {
    for (const jobStatus of ['CJ_WORK_PROGRESS', 'CJ_REJECT_READY', 'CJ_REJECT_ERROR'] as const) {
      dynamo.reset();
      given({
        role: 'operator',
        accountId: 1,
        job: jobItem(jobStatus),
        file: fileItem({ declaredOriginal: { size: 5_000, sha256: SHA } }),
      });

      const { status, json } = await call('variant=edited');

      expect(status, jobStatus).toBe(200);
      expect(json).toMatchObject({ variant: 'edited', method: 'POST' });
      expect((json.fields as Record<string, string>).key).toMatch(`uploads/1001/${JOB_ID}/${FILE_ID}/edited/`);
    }
  });

  it('answers a user asking for the edited version 403, reading nothing of the job', async () => {
    given({ job: jobItem('CJ_WORK_PROGRESS'), file: fileItem() });

    expect(await call({ variant: 'edited' })).toMatchObject({ status: 403, json: { code: 'forbidden' } });
    expect(jobsTableReads()).toEqual([]);
  });

  it("answers another account's job 404 job_not_found, with no URL, before reading any file", async () => {
    given({ accountId: 1002, job: jobItem('CJ_NEW', 1001), file: fileItem() });

    const answer = await call({ variant: 'original' });

    expect(answer).toMatchObject({ status: 404, json: { code: 'job_not_found' } });
    expect(JSON.stringify(answer.json)).not.toMatch(/https?:/);
    expect(jobsTableReads()).toEqual([jobKeys.jobSk]);
  });

  it('answers a job that does not exist 404 job_not_found', async () => {
    given({ file: fileItem() });

    expect(await call({ variant: 'original' })).toMatchObject({ status: 404, json: { code: 'job_not_found' } });
  });

  it("answers an operator asking for another account's original 403", async () => {
    given({ role: 'operator', accountId: 1, job: jobItem('CJ_NEW', 1001), file: fileItem() });

    expect(await call({ variant: 'original' })).toMatchObject({ status: 403, json: { code: 'forbidden' } });
  });

  it.each(['CJ_ACCEPT', 'CJ_WORK_PROGRESS', 'CJ_REVIEWING', 'CJ_FINISHED', 'CJ_ARCHIVED', 'ERROR'] as const)(
    'answers an original asked for while the job is %s 409 job_not_editable',
    async (jobStatus) => {
      given({ job: jobItem(jobStatus), file: fileItem() });

      expect(await call({ variant: 'original' })).toMatchObject({ status: 409, json: { code: 'job_not_editable' } });
    },
  );

  it.each(['CJ_NEW', 'CJ_REQUEST_OFFER', 'CJ_JOB_PAID', 'CJ_REVIEWING', 'CJ_FINISHED', 'CJ_ARCHIVED'] as const)(
    'answers an edited version asked for while the job is %s 409 invalid_transition',
    async (jobStatus) => {
      given({ role: 'operator', job: jobItem(jobStatus), file: fileItem() });

      expect(await call({ variant: 'edited' })).toMatchObject({
        status: 409,
        json: { code: 'invalid_transition', parameter: 'status' },
      });
    },
  );

  it('answers a file that is not the job’s 404 file_not_found naming it', async () => {
    given({ job: jobItem('CJ_NEW') });

    expect(await call({ variant: 'original' })).toMatchObject({
      status: 404,
      json: { code: 'file_not_found', fileId: FILE_ID },
    });
  });

  it.each([
    [{ id: 'abc' }, 'id'],
    [{ id: '0' }, 'id'],
    [{ fileId: '-3' }, 'fileId'],
    [{ fileId: '9007199254740992' }, 'fileId'],
  ])('answers the path %j 400 invalid_parameter naming %s, reading nothing', async (path, parameter) => {
    given({ job: jobItem('CJ_NEW'), file: fileItem() });

    expect(await call({ variant: 'original' }, path)).toMatchObject({
      status: 400,
      json: { code: 'invalid_parameter', parameter },
    });
    expect(jobsTableReads()).toEqual([]);
  });

  it.each([{}, { variant: 'preview' }, { variant: ['original'] }])(
    'answers the body %j 400 invalid_parameter naming variant',
    async (body) => {
      given({ job: jobItem('CJ_NEW'), file: fileItem() });

      expect(await call(body)).toMatchObject({
        status: 400,
        json: { code: 'invalid_parameter', parameter: 'variant' },
      });
    },
  );

  it('answers a client without the jobs grant 403, naming the grant', async () => {
    registerSampleCaller(dynamo, { authTable: 'auth-unit', grants: ['search'], role: 'user', accountId: 1001 });

    expect(await call({ variant: 'original' })).toMatchObject({
      status: 403,
      json: { code: 'forbidden', grant: 'jobs' },
    });
  });
});
