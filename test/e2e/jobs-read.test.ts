/**
 * GET /jobs/{id}, GET /jobs/{id}/files, GET /statuses and POST /accept through real HTTP, the real handlers
 * and DynamoDB Local (docs/contract.md §6a); every answer is also checked against openapi.yaml.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../functions/jobs/model/model';
import { makeFile, makeJob } from '../support/jobs';
import { DEFAULT_TEST_ACCOUNT_ID, type IssuedTokens, startTestStack, type TestStack } from '../support/local-stack';

let stack: TestStack;
let user: IssuedTokens;
let otherUser: IssuedTokens;
let operator: IssuedTokens;
let noJobsGrant: IssuedTokens;

beforeAll(async () => {
  stack = await startTestStack();
  const grants = ['search', 'reject', 'jobs'] as const;
  [user, otherUser, operator, noJobsGrant] = await Promise.all([
    stack.issue({ grants: [...grants] }),
    stack.issue({ grants: [...grants], accountId: DEFAULT_TEST_ACCOUNT_ID + 1 }),
    stack.issue({ grants: [...grants], role: 'operator', accountId: 1 }),
    stack.issue({ grants: ['search', 'reject'] }),
  ]);
});

afterAll(async () => {
  await stack?.stop();
});

const get = (path: string, tokens: IssuedTokens = user, headers: Record<string, string> = {}) =>
  stack.request(path, { method: 'GET', tokens, headers });

const post = (path: string, body: unknown, tokens: IssuedTokens = user) => stack.request(path, { body, tokens });

/** A job of the default account in review, with `count` files; imported. */
const jobInReview = async (count = 3, overrides: Partial<Job> = {}): Promise<Job> => {
  const job = makeJob({
    status: 'CJ_REVIEWING',
    accountId: DEFAULT_TEST_ACCOUNT_ID,
    deliveredDate: '2025-01-02T10:00:00.000Z',
    files: Array.from({ length: count }, () => makeFile()),
    ...overrides,
  });
  await stack.importJobs([job]);
  return job;
};

const idsOf = (files: Array<{ id: number }>): number[] => files.map((file) => file.id);

describe('GET /jobs/{id}', () => {
  it('answers the job with its counts, version and an ETag of the version', async () => {
    const job = await jobInReview(3);
    const answer = await get(`/jobs/${job.id}`);
    expect(answer.status).toBe(200);
    const { files: _files, ...fields } = job;
    expect(answer.json).toEqual({
      _type: 'JobResponseBody',
      job: { ...fields, fileCount: 3, version: expect.any(Number), review: { pending: 3, rejected: 0, accepted: 0 } },
    });
    expect(answer.headers.get('etag')).toBe(`"${answer.json.job.version}"`);
  });

  it('answers 304 without a body to If-None-Match with the current ETag, and 200 after a change', async () => {
    const job = await jobInReview(2);
    const first = await get(`/jobs/${job.id}`);
    const etag = first.headers.get('etag')!;
    const same = await get(`/jobs/${job.id}`, user, { 'If-None-Match': etag });
    expect(same.status).toBe(304);
    expect(same.text).toBe('');
    expect(same.headers.get('etag')).toBe(etag);
    expect(same.headers.get('cache-control')).toBe('no-store');
    expect(same.headers.get('x-request-id')).toEqual(expect.any(String));
    // A 304 has no content: no media type, and no Content-Length: 0 (which would describe an empty job).
    expect(same.headers.get('content-type')).toBeNull();
    expect(same.headers.get('content-length')).toBeNull();
    expect((await get(`/jobs/${job.id}`, user, { 'If-None-Match': `"1", W/${etag}` })).status).toBe(304);
    expect((await post('/accept', { fileIds: [job.files[0]!.id] })).status).toBe(200);
    const changed = await get(`/jobs/${job.id}`, user, { 'If-None-Match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(changed.json.job.review).toEqual({ pending: 1, rejected: 0, accepted: 1 });
  });

  it("answers another account's job exactly as a missing one", async () => {
    const job = await jobInReview(1);
    const other = await get(`/jobs/${job.id}`, otherUser);
    const missing = await get(`/jobs/987654321`, otherUser);
    expect(other.status).toBe(404);
    expect(other.json).toEqual({ ...missing.json, requestId: other.json.requestId });
    expect(other.json.code).toBe('job_not_found');
    expect((await get(`/jobs/${job.id}`, operator)).status).toBe(200);
  });

  it.each(['abc', '0', '-5', '1.5', '9007199254740992'])(
    'answers 400 invalid_parameter naming id to /jobs/%s',
    async (id) => {
      const answer = await get(`/jobs/${id}`);
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ code: 'invalid_parameter', parameter: 'id' });
    },
  );

  it('needs the jobs grant, and answers 405 with Allow to another method', async () => {
    expect((await get('/jobs/1', noJobsGrant)).json.code).toBe('forbidden');
    const wrong = await stack.request('/jobs/1', { method: 'DELETE', tokens: user });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toContain('GET');
  });
});

describe('GET /jobs/{id}/files', () => {
  it('pages every file in id order with a cursor, and ends with nextCursor null', async () => {
    const job = await jobInReview(5);
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor === null ? '?limit=2' : `?limit=2&cursor=${encodeURIComponent(cursor)}`;
      const page = await get(`/jobs/${job.id}/files${query}`);
      expect(page.status, page.text).toBe(200);
      expect(page.json.jobId).toBe(job.id);
      seen.push(...idsOf(page.json.files));
      cursor = page.json.nextCursor;
      pages += 1;
    } while (cursor !== null && pages < 10);
    expect(seen).toEqual(idsOf(job.files).sort((a, b) => a - b));
    expect(pages).toBe(3);
  });

  it('lists the files of one review state, each with every file field', async () => {
    const job = await jobInReview(4);
    const [a, b, c] = idsOf(job.files).sort((x, y) => x - y);
    expect((await post('/accept', { fileIds: [a] })).status).toBe(200);
    expect((await post('/reject', { files: [{ fileId: b, customRejection: 'Too dark' }] })).status).toBe(200);
    const accepted = await get(`/jobs/${job.id}/files?review=accepted`);
    expect(idsOf(accepted.json.files)).toEqual([a]);
    const rejected = await get(`/jobs/${job.id}/files?review=rejected`);
    expect(rejected.json.files).toEqual([
      expect.objectContaining({
        id: b,
        isRejected: true,
        isReviewed: true,
        rejectionReason: 'Too dark',
        reviews: { customRejection: 'Too dark', rejects: [], reviewDate: expect.any(String) },
        previousReviews: [],
      }),
    ]);
    expect(Object.keys(rejected.json.files[0]).sort()).toEqual(
      [
        'id',
        'fileName',
        'tags',
        'remarkToProcessor',
        'acceptedByUser',
        'isRejected',
        'isReviewed',
        'rejectionReason',
        'reviewDate',
        'reviews',
        'previousReviews',
        'original',
        'edited',
      ].sort(),
    );
    const pending = await get(`/jobs/${job.id}/files?review=pending&limit=1`);
    expect(idsOf(pending.json.files)).toEqual([c]);
    expect(pending.json.nextCursor).not.toBeNull();
  });

  it('refuses a cursor from another job, filter or caller, or changed, with 400 naming cursor', async () => {
    const job = await jobInReview(3);
    const other = await jobInReview(3);
    const first = await get(`/jobs/${job.id}/files?limit=1`);
    const cursor: string = first.json.nextCursor;
    const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('A') ? 'B' : 'A'}A`;
    const refusals = [
      await get(`/jobs/${other.id}/files?limit=1&cursor=${encodeURIComponent(cursor)}`),
      await get(`/jobs/${job.id}/files?review=pending&cursor=${encodeURIComponent(cursor)}`),
      await get(`/jobs/${job.id}/files?cursor=${encodeURIComponent(cursor)}`, operator),
      await get(`/jobs/${job.id}/files?cursor=${encodeURIComponent(tampered)}`),
      await get(`/jobs/${job.id}/files?cursor=garbage`),
    ];
    for (const answer of refusals)
      expect(answer.json).toMatchObject({ code: 'invalid_parameter', parameter: 'cursor' });
    expect((await get(`/jobs/${job.id}/files?limit=5&cursor=${encodeURIComponent(cursor)}`)).status).toBe(200);
  });

  it.each([
    ['review=done', 'review'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=x', 'limit'],
    ['cursor=', 'cursor'],
  ])('answers 400 naming the parameter to ?%s', async (query, parameter) => {
    const job = await jobInReview(1);
    const answer = await get(`/jobs/${job.id}/files?${query}`);
    expect(answer.json).toMatchObject({ code: 'invalid_parameter', parameter });
  });

  it("answers another account's job as job_not_found", async () => {
    const job = await jobInReview(1);
    expect((await get(`/jobs/${job.id}/files`, otherUser)).json.code).toBe('job_not_found');
  });
});

describe('GET /statuses', () => {
  it('lists every status in lifecycle order with the moves of the caller’s role, without a grant', async () => {
    const forUser = await get('/statuses', noJobsGrant);
    expect(forUser.status).toBe(200);
    expect(forUser.json.statuses.map((status: { id: string }) => status.id)).toEqual([
      'CJ_NEW',
      'CJ_REQUEST_OFFER',
      'CJ_ACCEPT',
      'CJ_PREPROCESS',
      'CJ_JOB_PAID',
      'CJ_WORK_PROGRESS',
      'CJ_REVIEWING',
      'CJ_REJECT_READY',
      'CJ_REJECT_ERROR',
      'CJ_FINISHED',
      'CJ_ARCHIVED',
      'ERROR',
    ]);
    expect(forUser.json.statuses[0]).toEqual({
      id: 'CJ_NEW',
      description: expect.any(String),
      next: ['CJ_REQUEST_OFFER', 'CJ_ARCHIVED'],
    });
    const forOperator = await get('/statuses', operator);
    expect(forOperator.json.statuses[6]).toMatchObject({ id: 'CJ_REVIEWING', next: ['CJ_FINISHED', 'ERROR'] });
  });
});

describe('POST /accept', () => {
  it('accepts files all or nothing, finishes the job with its last file, and repeats change nothing', async () => {
    const job = await jobInReview(2);
    const [a, b] = idsOf(job.files);
    const refused = await post('/accept', { fileIds: [a, 123456789] });
    expect(refused.json).toMatchObject({ code: 'file_not_found', fileId: 123456789 });
    expect((await get(`/jobs/${job.id}`)).json.job.review).toEqual({ pending: 2, rejected: 0, accepted: 0 });
    const first = await post('/accept', new URLSearchParams([['fileId', String(a)]]));
    expect(first.json).toEqual({
      _type: 'AcceptResponseBody',
      files: [{ fileId: a, jobId: job.id, acceptedByUser: true, reviewDate: expect.any(String) }],
      jobs: [{ id: job.id, status: 'CJ_REVIEWING' }],
    });
    const last = await post('/accept', { fileIds: [b, a] });
    expect(last.json.jobs).toEqual([{ id: job.id, status: 'CJ_FINISHED' }]);
    expect(last.json.files[1]).toEqual(first.json.files[0]);
    const { version } = (await get(`/jobs/${job.id}`)).json.job;
    const again = await post('/accept', { fileIds: [a, b] });
    expect(again.status).toBe(200);
    const after = (await get(`/jobs/${job.id}`)).json.job;
    expect(after).toMatchObject({ version, status: 'CJ_FINISHED', review: { pending: 0, rejected: 0, accepted: 2 } });
  });

  it('refuses a job not in review (409 file_not_acceptable), an archived one (410), and another account (404)', async () => {
    const fresh = await jobInReview(1, { status: 'CJ_NEW', deliveredDate: null });
    const archived = await jobInReview(1, { status: 'CJ_ARCHIVED' });
    expect((await post('/accept', { fileIds: [fresh.files[0]!.id] })).json).toMatchObject({
      code: 'file_not_acceptable',
      fileId: fresh.files[0]!.id,
    });
    expect((await post('/accept', { fileIds: [archived.files[0]!.id] })).status).toBe(410);
    expect((await post('/accept', { fileIds: [fresh.files[0]!.id] }, otherUser)).json.code).toBe('file_not_found');
  });

  it.each([
    [{}, 'fileIds'],
    [{ fileIds: [] }, 'fileIds'],
    [{ fileIds: [1, 1] }, 'fileIds[1]'],
    [{ fileIds: ['x'] }, 'fileIds[0]'],
  ])('answers 400 naming the field to %j', async (body, parameter) => {
    expect((await post('/accept', body)).json).toMatchObject({ code: 'invalid_parameter', parameter });
  });

  it('needs the reject grant', async () => {
    const searchOnly = await stack.issue({ grants: ['search'] });
    expect((await post('/accept', { fileIds: [1] }, searchOnly)).json.code).toBe('forbidden');
  });
});
