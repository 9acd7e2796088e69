/**
 * The job writes through real HTTP, the real handlers, DynamoDB Local, the stream poller and the embedded
 * search index: `POST /jobs`, `PATCH /jobs/{id}` and `POST /jobs/{id}/delivery` as docs/contract.md §6a
 * says, every refusal changing nothing. Every answer is also checked against openapi.yaml.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthStore } from '../../functions/auth/store';
import { documentClient } from '../../functions/aws/dynamodb';
import type { Job } from '../../functions/jobs/model/model';
import { JobRepository } from '../../functions/jobs/store/repository';
import { RejectFiles } from '../../functions/jobs/review/reject-files';
import { makeFile, makeJob } from '../support/jobs';
import { readyEdits, readyOriginals, writeVariant } from '../support/pictures';
import {
  DEFAULT_TEST_ACCOUNT_ID,
  type IssuedTokens,
  startTestStack,
  type TestResponse,
  type TestStack,
} from '../support/local-stack';

let stack: TestStack;
let repository: JobRepository;
let user: IssuedTokens;
let operator: IssuedTokens;
let stranger: IssuedTokens;

beforeAll(async () => {
  stack = await startTestStack();
  repository = new JobRepository(documentClient(), stack.tables.jobsTable);
  const grants = ['search', 'reject', 'jobs'] as const;
  user = await stack.issue({ grants: [...grants] });
  operator = await stack.issue({ grants: [...grants], role: 'operator', accountId: 1 });
  stranger = await stack.issue({ grants: [...grants], accountId: DEFAULT_TEST_ACCOUNT_ID + 1 });
});

afterAll(async () => {
  await stack?.stop();
});

const create = (
  body: unknown,
  tokens: Pick<IssuedTokens, 'clientToken' | 'sessionToken'> = user,
  headers: Record<string, string> = {},
): Promise<TestResponse> => stack.request('/jobs', { body, tokens, headers });

const patch = (
  jobId: number,
  body: unknown,
  ifMatch: string | undefined,
  tokens = user,
  headers: Record<string, string | undefined> = {},
): Promise<TestResponse> =>
  stack.request(`/jobs/${jobId}`, {
    method: 'PATCH',
    body,
    tokens,
    headers: { 'Content-Type': 'application/json', 'If-Match': ifMatch, ...headers },
  });

const deliver = (jobId: number, body: unknown, tokens = operator): Promise<TestResponse> =>
  stack.request(`/jobs/${jobId}/delivery`, { body, tokens });

const expectError = (answer: TestResponse, status: number, code: string, context: object = {}): void => {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.json).toEqual({ code, message: expect.any(String), requestId: expect.any(String), ...context });
};

/** A job created through the API with `files` files, and its answer. */
const created = async (files = 2, name = 'Spring catalogue') => {
  const answer = await create({
    name,
    files: Array.from({ length: files }, (_, index) => ({ fileName: `shoe_${index}.jpg` })),
  });
  expect(answer.status, answer.text).toBe(201);
  return answer.json as { job: { id: number; version: number }; files: Array<{ id: number; fileName: string }> };
};

describe('POST /jobs', () => {
  it('creates the job in the caller account: 201, Location, ETag, the job as GET answers it, file ids in order', async () => {
    const answer = await create({
      name: 'Spring catalogue',
      description: 'White background',
      invoiceReference: 'PO-7',
      tags: ['spring'],
      files: [{ fileName: 'b.jpg', tags: ['front'], remarkToProcessor: 'Remove the tag' }, { fileName: 'a.jpg' }],
    });

    expect(answer.status, answer.text).toBe(201);
    const { job, files } = answer.json;
    expect(answer.headers.get('location')).toBe(`/jobs/${job.id}`);
    expect(answer.headers.get('etag')).toBe(`"${job.version}"`);
    const followed = await stack.request(answer.headers.get('location')!, { method: 'GET', tokens: user });
    expect(followed.status, followed.text).toBe(200);
    expect(followed.json.job.id).toBe(job.id);
    expect(answer.json._type).toBe('JobResponseBody');
    expect(job).toEqual({
      id: expect.any(Number),
      accountId: DEFAULT_TEST_ACCOUNT_ID,
      accountName: '',
      status: 'CJ_NEW',
      guid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Spring catalogue',
      description: 'White background',
      invoiceReference: 'PO-7',
      tags: ['spring'],
      realCost: 0,
      createdDate: expect.stringMatching(/Z$/),
      acceptedDate: null,
      orderedDate: null,
      deliveredDate: null,
      reviewedDate: null,
      fileCount: 2,
      version: expect.any(Number),
      review: { pending: 0, rejected: 0, accepted: 0 },
    });
    expect(files.map((file: { fileName: string }) => file.fileName)).toEqual(['b.jpg', 'a.jpg']);
    const stored = await repository.getJob(job.id);
    expect(stored?.job.files.map((file) => file.id).sort()).toEqual(
      files.map((file: { id: number }) => file.id).sort(),
    );
    expect(stored?.job.files.find((file) => file.fileName === 'b.jpg')).toMatchObject({
      tags: ['front'],
      remarkToProcessor: 'Remove the tag',
      isReviewed: false,
    });
  });

  it('is found by search after the indexing delay, with its fileCount', async () => {
    const { job } = await created(3, 'Autumn lookbook');
    await stack.drained();
    const answer = await stack.request('/search', {
      body: { field: 'JobNumber', query: String(job.id) },
      tokens: user,
    });
    expect(answer.json.jobs).toEqual([expect.objectContaining({ id: job.id, fileCount: 3, status: 'CJ_NEW' })]);
  });

  it('takes a form body without files, and refuses files in a form', async () => {
    const answer = await create(
      new URLSearchParams([
        ['name', 'Form job'],
        ['tags', 'a'],
        ['tags', 'b'],
      ]),
    );
    expect(answer.status, answer.text).toBe(201);
    expect(answer.json.job).toMatchObject({ name: 'Form job', tags: ['a', 'b'], fileCount: 0 });
    expectError(
      await create(
        new URLSearchParams([
          ['name', 'x'],
          ['files', 'a.jpg'],
        ]),
      ),
      400,
      'invalid_parameter',
      {
        parameter: 'files',
      },
    );
  });

  it('names the first bad field', async () => {
    expectError(await create({}), 400, 'invalid_parameter', { parameter: 'name' });
    expectError(await create({ name: 'x'.repeat(201) }), 400, 'invalid_parameter', { parameter: 'name' });
    expectError(await create({ name: 'x', files: [{ fileName: 'a' }, { fileName: '' }] }), 400, 'invalid_parameter', {
      parameter: 'files[1].fileName',
    });
    expectError(await create({ name: 'x', tags: Array(21).fill('t') }), 400, 'invalid_parameter', {
      parameter: 'tags',
    });
    expectError(
      await create({ name: 'x', files: Array.from({ length: 1_001 }, () => ({ fileName: 'a' })) }),
      400,
      'invalid_parameter',
      { parameter: 'files' },
    );
  });

  it('keeps a user to its own account and accountName to operators; an operator names the account', async () => {
    expectError(await create({ name: 'x', accountId: DEFAULT_TEST_ACCOUNT_ID + 1 }), 403, 'forbidden');
    expectError(await create({ name: 'x', accountName: 'Mine' }), 403, 'forbidden');
    expect((await create({ name: 'x', accountId: DEFAULT_TEST_ACCOUNT_ID })).status).toBe(201);
    expectError(await create({ name: 'x' }, operator), 400, 'invalid_parameter', { parameter: 'accountId' });
    const answer = await create({ name: 'For 77', accountId: 77, accountName: 'Studio 77' }, operator);
    expect(answer.status).toBe(201);
    expect(answer.json.job).toMatchObject({ accountId: 77, accountName: 'Studio 77' });
  });

  it('needs the jobs grant, and names it in the 403', async () => {
    const searchOnly = await stack.issue({ grants: ['search', 'reject'] });
    const refused = await create({ name: 'x' }, searchOnly);
    expectError(refused, 403, 'forbidden', { grant: 'jobs' });
    expect(refused.json.message).toBe('This operation needs the grant jobs, which the client lacks.');
  });

  it('answers the first answer again for a repeated Idempotency-Key, and refuses it with another body', async () => {
    const key = { 'Idempotency-Key': `order-${crypto.randomUUID()}` };
    const body = { name: 'Once', files: [{ fileName: 'a.jpg' }] };
    const first = await create(body, user, key);
    const again = await create(body, user, key);

    expect(again.status).toBe(201);
    // The same job and files; each file's upload target signed afresh (a new upload of the same original).
    const withoutUploads = (json: { files: Array<{ upload: unknown }> }) => ({
      ...json,
      files: json.files.map(({ upload: _upload, ...file }) => file),
    });
    expect(withoutUploads(again.json)).toEqual(withoutUploads(first.json));
    const [firstKey, againKey] = [first, again].map((answer) => answer.json.files[0].upload.fields.key as string);
    expect(againKey).not.toBe(firstKey);
    expect(againKey?.split('/').slice(0, 5)).toEqual(firstKey?.split('/').slice(0, 5));
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expectError(await create({ ...body, name: 'Twice' }, user, key), 409, 'idempotency_key_reused', {
      headerName: 'Idempotency-Key',
    });
    expectError(await create(body, user, { 'Idempotency-Key': 'has space' }), 400, 'invalid_parameter', {
      parameter: 'Idempotency-Key',
    });
  });

  it('scopes an Idempotency-Key by account: another account of the client gets its own job, the same account the first answer', async () => {
    const client = await stack.issue({ grants: ['jobs'] });
    const store = new AuthStore(documentClient(), stack.tables.authTable);
    const session = async (accountId: number, userId: string) => ({
      clientToken: client.clientToken,
      sessionToken: (
        await store.createSession({
          clientToken: client.clientToken,
          accountId,
          role: 'user',
          userId,
          ttlSeconds: 3600,
        })
      ).token,
    });
    const inAccount = { clientToken: client.clientToken, sessionToken: client.sessionToken };
    const inOtherAccount = await session(DEFAULT_TEST_ACCOUNT_ID + 7, 'other-account-user');
    const sameAccountOtherUser = await session(DEFAULT_TEST_ACCOUNT_ID, 'colleague');
    const key = { 'Idempotency-Key': `order-${crypto.randomUUID()}` };

    const first = await create({ name: 'Ours' }, inAccount, key);
    const other = await create({ name: 'Theirs' }, inOtherAccount, key);
    const again = await create({ name: 'Ours' }, sameAccountOtherUser, key);

    expect([first.status, other.status, again.status]).toEqual([201, 201, 201]);
    expect(other.json.job).toMatchObject({ accountId: DEFAULT_TEST_ACCOUNT_ID + 7, name: 'Theirs' });
    expect(other.json.job.id).not.toBe(first.json.job.id);
    expect(again.json).toEqual(first.json);
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
  });

  it('creates one job for concurrent requests with one Idempotency-Key', async () => {
    const key = { 'Idempotency-Key': crypto.randomUUID() };
    const answers = await Promise.all([1, 2, 3, 4].map(() => create({ name: 'Raced' }, user, key)));
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201, 201]);
    expect(new Set(answers.map((answer) => answer.json.job.id)).size).toBe(1);
  });
});

describe('PATCH /jobs/{id}', () => {
  it('needs If-Match (428), refuses a stale one with the current version in ETag and body (412), and changes nothing', async () => {
    const { job } = await created();
    expectError(await patch(job.id, { name: 'New' }, undefined), 428, 'precondition_required');
    const stale = await patch(job.id, { name: 'New' }, '"1"');
    expectError(stale, 412, 'precondition_failed', { currentVersion: job.version });
    expect(stale.headers.get('etag')).toBe(`"${job.version}"`);
    expect((await repository.getJob(job.id))?.job.name).toBe('Spring catalogue');
  });

  it('answers 428 for If-Match: *, which names no version, so two stale editors cannot both win', async () => {
    const { job } = await created();
    const first = await patch(job.id, { name: 'First' }, '*');
    const second = await patch(job.id, { name: 'Second' }, '*');
    expectError(first, 428, 'precondition_required');
    expectError(second, 428, 'precondition_required');
    expect(await repository.getJob(job.id)).toMatchObject({ job: { name: 'Spring catalogue' }, version: job.version });
  });

  it('answers 400 naming If-Match for one that is no strong quoted ETag, after the fields and before the job', async () => {
    const { job } = await created();
    for (const ifMatch of [String(job.version), `W/"${job.version}"`, `"${job.version}`]) {
      expectError(await patch(job.id, { name: 'New' }, ifMatch), 400, 'invalid_parameter', { parameter: 'If-Match' });
    }
    expectError(await patch(job.id, { name: '' }, String(job.version)), 400, 'invalid_parameter', {
      parameter: 'name',
    });
    expectError(await patch(987_654_321_987, { name: 'x' }, '1'), 400, 'invalid_parameter', {
      parameter: 'If-Match',
    });
    expect((await repository.getJob(job.id))?.job.name).toBe('Spring catalogue');
  });

  it('edits fields and moves the status, answering the job and its new ETag', async () => {
    const { job, files } = await created();
    await readyOriginals(
      documentClient(),
      stack.tables.jobsTable,
      job.id,
      files.map((file) => file.id),
    );
    const edited = await patch(
      job.id,
      { name: 'Renamed', tags: ['x'], status: 'CJ_REQUEST_OFFER' },
      `"${job.version}"`,
    );

    expect(edited.status, edited.text).toBe(200);
    expect(edited.json.job).toMatchObject({ name: 'Renamed', tags: ['x'], status: 'CJ_REQUEST_OFFER' });
    expect(edited.json.job.version).toBeGreaterThan(job.version);
    expect(edited.headers.get('etag')).toBe(`"${edited.json.job.version}"`);
    const same = await patch(job.id, { name: 'Renamed' }, edited.headers.get('etag')!);
    expect(same.status).toBe(200);
    expect(same.json.job.version).toBe(edited.json.job.version);
  });

  it('refuses moves off the table (naming status), user edits past CJ_REQUEST_OFFER and operator fields', async () => {
    const { job } = await created();
    const etag = `"${job.version}"`;
    expectError(await patch(job.id, { status: 'CJ_FINISHED' }, etag), 409, 'invalid_transition', {
      parameter: 'status',
    });
    expectError(await patch(job.id, { realCost: 10 }, etag), 403, 'forbidden');
    const accepted = await patch(job.id, { status: 'CJ_ACCEPT' }, etag, operator);
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.json.job.acceptedDate).toEqual(expect.stringMatching(/Z$/));
    expectError(await patch(job.id, { name: 'Late' }, accepted.headers.get('etag')!), 409, 'job_not_editable');
    const paid = await patch(
      job.id,
      { status: 'CJ_JOB_PAID', realCost: 12.5 },
      accepted.headers.get('etag')!,
      operator,
    );
    expect(paid.json.job).toMatchObject({ status: 'CJ_JOB_PAID', realCost: 12.5, orderedDate: expect.any(String) });
    expectError(
      await patch(job.id, { realCost: 1.005 }, paid.headers.get('etag')!, operator),
      400,
      'invalid_parameter',
      {
        parameter: 'realCost',
      },
    );
  });

  it('answers another account job as job_not_found, and a bad id as invalid_parameter id', async () => {
    const { job } = await created();
    expectError(await patch(job.id, { name: 'Mine' }, `"${job.version}"`, stranger), 404, 'job_not_found');
    expectError(await patch(987_654_321_987, { name: 'x' }, '"1"'), 404, 'job_not_found');
    expectError(await patch(0, { name: 'x' }, '"1"'), 400, 'invalid_parameter', { parameter: 'id' });
  });

  it('lets exactly one of two edits holding one version win', async () => {
    const { job } = await created();
    const answers = await Promise.all([
      patch(job.id, { name: 'First' }, `"${job.version}"`),
      patch(job.id, { name: 'Second' }, `"${job.version}"`),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 412]);
    const winner = answers.find((answer) => answer.status === 200)!;
    expect((await repository.getJob(job.id))?.job.name).toBe(winner.json.job.name);
  });

  it('answers 410 job_archived to any PATCH of an archived job, operator or user, whatever the version', async () => {
    const { job } = await created();
    const archived = await patch(job.id, { status: 'CJ_ARCHIVED' }, `"${job.version}"`);
    expect(archived.status, archived.text).toBe(200);
    const etag = archived.headers.get('etag')!;
    const stored = await repository.getJob(job.id);

    expectError(await patch(job.id, { name: 'Revived', realCost: 3 }, etag, operator), 410, 'job_archived');
    expectError(await patch(job.id, { status: 'CJ_NEW' }, etag, operator), 410, 'job_archived');
    expectError(await patch(job.id, { name: 'Mine again' }, etag), 410, 'job_archived');
    expectError(await patch(job.id, {}, etag), 410, 'job_archived');
    expectError(await patch(job.id, { name: 'Stale' }, `"${job.version}"`, operator), 410, 'job_archived');
    expect(await repository.getJob(job.id)).toEqual(stored);
  });

  it('refuses a PATCH without Content-Type (415)', async () => {
    const { job } = await created();
    expectError(
      await patch(job.id, { name: 'x' }, `"${job.version}"`, user, { 'Content-Type': undefined }),
      415,
      'unsupported_media_type',
    );
  });
});

describe('POST /jobs/{id}/delivery', () => {
  /** An imported job in work, its first file rejected earlier and its second accepted. */
  const inWork = async (): Promise<Job> => {
    const job = makeJob({
      accountId: DEFAULT_TEST_ACCOUNT_ID,
      status: 'CJ_REVIEWING',
      files: [makeFile(), makeFile({ acceptedByUser: true, isReviewed: true }), makeFile()],
    });
    await stack.importJobs([job]);
    await new RejectFiles({ client: documentClient(), tableName: stack.tables.jobsTable }).run(
      { files: [{ fileId: job.files[0]!.id, customRejection: 'Shadow missing', rejects: [] }] },
      { role: 'operator', accountId: 1 },
    );
    const stored = await repository.getJob(job.id);
    expect(stored?.job.status).toBe('CJ_REJECT_READY');
    await readyEdits(
      documentClient(),
      stack.tables.jobsTable,
      job.id,
      job.files.map((file) => file.id),
    );
    return job;
  };

  it('refuses a file whose edited picture is missing or invalid (409 file_not_deliverable naming it), changing nothing', async () => {
    const job = await inWork();
    const [first, , third] = job.files.map((file) => file.id) as [number, number, number];
    await writeVariant(documentClient(), stack.tables.jobsTable, job.id, [third], 'edited', () => ({
      status: 'invalid',
      uploadId: 'mi3k2j1h0ffffffffffffffff',
      reason: 'The file is empty.',
      uploadedDate: '2026-11-28T09:00:00.000Z',
    }));
    const before = await repository.getJob(job.id);

    expectError(await deliver(job.id, { fileIds: [first, third] }), 409, 'file_not_deliverable', { fileId: third });
    expectError(await deliver(job.id, {}), 409, 'file_not_deliverable', { fileId: third });
    expect(await repository.getJob(job.id)).toEqual(before);
  });

  it('sends every file not accepted back to review; the job is CJ_REVIEWING with deliveredDate and counts', async () => {
    const job = await inWork();
    const answer = await deliver(job.id, {});

    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.job).toMatchObject({
      status: 'CJ_REVIEWING',
      deliveredDate: expect.stringMatching(/Z$/),
      review: { pending: 2, rejected: 0, accepted: 1 },
    });
    expect(answer.headers.get('etag')).toBe(`"${answer.json.job.version}"`);
    const stored = await repository.getJob(job.id);
    const reworked = stored?.job.files.find((file) => file.id === job.files[0]!.id);
    expect(reworked).toMatchObject({ isRejected: false, isReviewed: false, rejectionReason: null, reviews: null });
    expect(reworked?.previousReviews).toEqual([expect.objectContaining({ customRejection: 'Shadow missing' })]);
  });

  it('refuses users, other statuses, files not of the job and accepted files, changing nothing', async () => {
    const job = await inWork();
    const before = await repository.getJob(job.id);
    expectError(await deliver(job.id, {}, user), 403, 'forbidden');
    expectError(await deliver(job.id, { fileIds: [job.files[0]!.id, 12_345] }), 404, 'file_not_found', {
      fileId: 12_345,
    });
    expectError(await deliver(job.id, { fileIds: [job.files[1]!.id] }), 409, 'file_not_deliverable', {
      fileId: job.files[1]!.id,
    });
    expectError(await deliver(987_654_321_987, {}), 404, 'job_not_found');
    expect(await repository.getJob(job.id)).toEqual(before);
    const { job: fresh } = await created();
    expectError(await deliver(fresh.id, {}), 409, 'invalid_transition', { parameter: 'status' });
  });
});
