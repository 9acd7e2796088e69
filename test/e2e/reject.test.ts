/**
 * POST /reject through real HTTP, the real handlers, DynamoDB Local, the stream poller and the embedded
 * search index: every rule of docs/contract.md §5.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentClient } from '../../functions/aws/dynamodb';
import type { Job, JobStatus } from '../../functions/jobs/model/model';
import { JobRepository } from '../../functions/jobs/store/repository';
import { makeFile, makeJob } from '../support/jobs';
import {
  DEFAULT_TEST_ACCOUNT_ID,
  type IssuedTokens,
  startTestStack,
  type TestResponse,
  type TestStack,
} from '../support/local-stack';

let stack: TestStack;
let repository: JobRepository;
let operator: IssuedTokens;

beforeAll(async () => {
  stack = await startTestStack();
  repository = new JobRepository(documentClient(), stack.tables.jobsTable);
  operator = await stack.issue({ role: 'operator', accountId: 1 });
});

afterAll(async () => {
  await stack?.stop();
});

/** A job in review of the default test account, with `fileCount` fresh files; imported and indexed. */
const jobInReview = async (overrides: Partial<Job> = {}, fileCount = 2): Promise<Job> => {
  const job = makeJob({
    status: 'CJ_REVIEWING',
    accountId: DEFAULT_TEST_ACCOUNT_ID,
    files: Array.from({ length: fileCount }, () => makeFile()),
    ...overrides,
  });
  await stack.importJobs([job]);
  return job;
};

const fileIdsOf = (job: Job): number[] => job.files.map((file) => file.id);

const cropping = (fileId: number, customRejection = 'Shadow under the shoe is missing') => ({
  fileId,
  customRejection,
  rejects: [{ reason: 'Cropping', positions: [{ xPercent: 0.61, yPercent: 0.44 }] }],
});

const reject = (body: unknown, tokens?: IssuedTokens): Promise<TestResponse> =>
  stack.request('/reject', { body, ...(tokens === undefined ? {} : { tokens }) });

/** The job as search returns it to an operator, once every change has been indexed. */
const searched = async (jobId: number) => {
  await stack.drained();
  const answer = await stack.request('/search', {
    body: { field: 'JobNumber', query: String(jobId) },
    tokens: operator,
  });
  expect(answer.status).toBe(200);
  return answer.json.jobs[0] as { id: number; status: JobStatus; reviewedDate: string | null } | undefined;
};

const expectRefusal = (answer: TestResponse, status: number, code: string, fileId: number): void => {
  expect(answer.status).toBe(status);
  expect(answer.json).toEqual({
    code,
    message: expect.any(String),
    fileId,
    requestId: answer.headers.get('x-request-id'),
  });
};

describe('POST /reject, rejecting files', () => {
  it('rejects files of two jobs, answering files in request order and each job once', async () => {
    const first = await jobInReview();
    const second = await jobInReview({ status: 'CJ_FINISHED' }, 1);
    const [a, b] = fileIdsOf(first);
    const [c] = fileIdsOf(second);

    const answer = await reject({ files: [cropping(b!), cropping(c!), { fileId: a!, customRejection: 'Too dark' }] });

    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const reviewDate = answer.json.files[0].reviewDate as string;
    expect(reviewDate).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(answer.json).toEqual({
      _type: 'RejectResponseBody',
      files: [
        { fileId: b, jobId: first.id, isRejected: true, rejectionReason: ' - Cropping', reviewDate },
        { fileId: c, jobId: second.id, isRejected: true, rejectionReason: ' - Cropping', reviewDate },
        { fileId: a, jobId: first.id, isRejected: true, rejectionReason: 'Too dark', reviewDate },
      ],
      jobs: [
        { id: first.id, status: 'CJ_REJECT_READY' },
        { id: second.id, status: 'CJ_REJECT_READY' },
      ],
    });

    const stored = await repository.getJob(first.id);
    expect(stored?.job).toMatchObject({ status: 'CJ_REJECT_READY', reviewedDate: reviewDate });
    expect(stored?.job.files.find((file) => file.id === b)).toMatchObject({
      isRejected: true,
      isReviewed: true,
      reviewDate,
      rejectionReason: ' - Cropping',
      reviews: {
        customRejection: 'Shadow under the shoe is missing',
        rejects: [{ reason: 'Cropping', positions: [{ xPercent: 0.61, yPercent: 0.44 }] }],
        reviewDate,
      },
      previousReviews: [],
    });
  });

  it('brings the new status and review date to search through the stream', async () => {
    const job = await jobInReview();
    expect(await searched(job.id)).toMatchObject({ status: 'CJ_REVIEWING', reviewedDate: null });

    const answer = await reject({ files: [cropping(job.files[0]!.id)] });

    expect(answer.status).toBe(200);
    expect(await searched(job.id)).toMatchObject({
      id: job.id,
      status: 'CJ_REJECT_READY',
      reviewedDate: answer.json.files[0].reviewDate,
    });
  });

  it('reads a form body, giving every listed file the same reasons', async () => {
    const job = await jobInReview();
    const form = new URLSearchParams();
    for (const fileId of fileIdsOf(job)) form.append('fileId', String(fileId));
    form.append('reason', 'Cropping');
    form.append('reason', 'Colour');
    form.append('customRejection', 'Background is grey');

    const answer = await reject(form);

    expect(answer.status).toBe(200);
    expect(answer.json.files.map((file: { rejectionReason: string }) => file.rejectionReason)).toEqual([
      ' - Cropping - Colour',
      ' - Cropping - Colour',
    ]);
    const stored = await repository.getJob(job.id);
    for (const file of stored!.job.files) {
      expect(file.reviews).toMatchObject({
        customRejection: 'Background is grey',
        rejects: [
          { reason: 'Cropping', positions: [] },
          { reason: 'Colour', positions: [] },
        ],
      });
    }
  });

  it('keeps an earlier review in previousReviews when a file is rejected again', async () => {
    const job = await jobInReview({}, 1);
    const fileId = job.files[0]!.id;
    const first = await reject({ files: [cropping(fileId, 'First try')] });
    const second = await reject({ files: [cropping(fileId, 'Second try')] });
    expect(second.status).toBe(200);
    const file = (await repository.getJob(job.id))!.job.files[0]!;
    expect(file.reviews).toMatchObject({ customRejection: 'Second try', reviewDate: second.json.files[0].reviewDate });
    expect(file.previousReviews).toEqual([
      {
        customRejection: 'First try',
        rejects: [{ reason: 'Cropping', positions: [{ xPercent: 0.61, yPercent: 0.44 }] }],
        reviewDate: first.json.files[0].reviewDate,
      },
    ]);
  });
});

describe('POST /reject, all or nothing', () => {
  it('changes nothing, in the table or in search, when one file of the request is refused', async () => {
    const good = await jobInReview();
    const archived = await jobInReview({ status: 'CJ_ARCHIVED' });
    const before = [await repository.getJob(good.id), await repository.getJob(archived.id)];
    const searchedBefore = await searched(good.id);

    const answer = await reject({ files: [cropping(good.files[0]!.id), cropping(archived.files[1]!.id)] });

    expectRefusal(answer, 410, 'job_archived', archived.files[1]!.id);
    expect([await repository.getJob(good.id), await repository.getJob(archived.id)]).toEqual(before);
    expect(await searched(good.id)).toEqual(searchedBefore);
    expect(searchedBefore).toMatchObject({ status: 'CJ_REVIEWING', reviewedDate: null });
  });

  it('names the first offending file in request order', async () => {
    const inProgress = await jobInReview({ status: 'CJ_WORK_PROGRESS' });
    const archived = await jobInReview({ status: 'CJ_ARCHIVED' });
    const answer = await reject({
      files: [cropping(inProgress.files[0]!.id), cropping(archived.files[0]!.id), cropping(999_999_999)],
    });
    expectRefusal(answer, 409, 'file_not_rejectable', inProgress.files[0]!.id);
  });
});

describe('POST /reject, refusals', () => {
  it('answers 404 file_not_found for an unknown file', async () => {
    expectRefusal(await reject({ files: [cropping(987_654_321)] }), 404, 'file_not_found', 987_654_321);
  });

  it("answers a user asking for another account's file exactly as for a missing one, and lets an operator reject it", async () => {
    const foreign = await jobInReview({ accountId: 4242 });
    const fileId = foreign.files[0]!.id;
    const missingId = 987_000_001;

    const foreignAnswer = await reject({ files: [cropping(fileId)] });
    const missingAnswer = await reject({ files: [cropping(missingId)] });

    expectRefusal(foreignAnswer, 404, 'file_not_found', fileId);
    expect({ ...foreignAnswer.json, requestId: '', fileId: 0 }).toEqual({
      ...missingAnswer.json,
      requestId: '',
      fileId: 0,
    });
    expect((await repository.getJob(foreign.id))?.job.files[0]?.isRejected).toBe(false);

    const operatorAnswer = await reject({ files: [cropping(fileId)] }, operator);
    expect(operatorAnswer.status).toBe(200);
    expect(operatorAnswer.json.jobs).toEqual([{ id: foreign.id, status: 'CJ_REJECT_READY' }]);
  });

  it('answers 410 job_archived for a file of an archived job', async () => {
    const job = await jobInReview({ status: 'CJ_ARCHIVED' });
    expectRefusal(await reject({ files: [cropping(job.files[0]!.id)] }), 410, 'job_archived', job.files[0]!.id);
  });

  it.each<JobStatus>(['CJ_NEW', 'CJ_WORK_PROGRESS', 'ERROR'])(
    'answers 409 file_not_rejectable for a file of a job in %s',
    async (status) => {
      const job = await jobInReview({ status });
      expectRefusal(
        await reject({ files: [cropping(job.files[0]!.id)] }),
        409,
        'file_not_rejectable',
        job.files[0]!.id,
      );
    },
  );

  it('answers 409 file_not_rejectable for a file the customer accepted', async () => {
    const job = await jobInReview({ files: [makeFile(), makeFile({ acceptedByUser: true })] });
    expectRefusal(await reject({ files: [cropping(job.files[1]!.id)] }), 409, 'file_not_rejectable', job.files[1]!.id);
  });

  it('answers 400 invalid_parameter naming the nested field', async () => {
    const answer = await reject({
      files: [{ fileId: 1, rejects: [{ reason: 'Cropping', positions: [{ xPercent: 0.5, yPercent: 1.5 }] }] }],
    });
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({
      code: 'invalid_parameter',
      parameter: 'files[0].rejects[0].positions[0].yPercent',
    });
  });

  it('answers 400 invalid_parameter when a file is listed twice', async () => {
    const answer = await reject({ files: [cropping(5), cropping(6), cropping(5)] });
    expect(answer.json).toMatchObject({ code: 'invalid_parameter', parameter: 'files[2].fileId' });
  });

  it('answers 403 forbidden to a client without the reject grant', async () => {
    const searchOnly = await stack.issue({ grants: ['search'] });
    const answer = await reject({ files: [cropping(1)] }, searchOnly);
    expect(answer.status).toBe(403);
    expect(answer.json.code).toBe('forbidden');
  });
});

describe('POST /reject, repeats and races', () => {
  it('answers a repeat with the original review date and changes nothing', async () => {
    const job = await jobInReview();
    const request = { files: [cropping(job.files[0]!.id)] };
    const first = await reject(request);
    const afterFirst = await repository.getJob(job.id);

    const repeat = await reject(request);

    expect(repeat.status).toBe(200);
    expect(repeat.json).toEqual(first.json);
    expect(await repository.getJob(job.id)).toEqual(afterFirst);
  });

  it('writes only the new files of a request mixing a repeat with new rejections', async () => {
    const job = await jobInReview();
    const [repeated, fresh] = fileIdsOf(job);
    const first = await reject({ files: [cropping(repeated!)] });
    const versionAfterFirst = (await repository.getJob(job.id))!.version;

    const mixed = await reject({ files: [cropping(repeated!), cropping(fresh!)] });

    expect(mixed.status).toBe(200);
    expect(mixed.json.files[0].reviewDate).toBe(first.json.files[0].reviewDate);
    expect(mixed.json.files[1].isRejected).toBe(true);
    const stored = (await repository.getJob(job.id))!;
    expect(stored.version).toBe(versionAfterFirst + 1);
    expect(stored.job.files.find((file) => file.id === repeated)?.reviewDate).toBe(first.json.files[0].reviewDate);
  });

  it('answers 20 concurrent identical rejects all with 200 and one review date', async () => {
    const job = await jobInReview();
    const request = { files: fileIdsOf(job).map((fileId) => cropping(fileId)) };
    const versionBefore = (await repository.getJob(job.id))!.version;

    const answers = await Promise.all(Array.from({ length: 20 }, () => reject(request)));

    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 20 }, () => 200));
    const dates = new Set(
      answers.flatMap((answer) => answer.json.files.map((file: { reviewDate: string }) => file.reviewDate)),
    );
    expect(dates.size).toBe(1);
    const stored = (await repository.getJob(job.id))!;
    expect(stored.version).toBe(versionBefore + 1);
    for (const file of stored.job.files) expect(file).toMatchObject({ reviewDate: [...dates][0], previousReviews: [] });
  });

  it('loses no review when different files of one job are rejected concurrently', async () => {
    const job = await jobInReview({}, 8);
    const versionBefore = (await repository.getJob(job.id))!.version;

    const answers = await Promise.all(
      job.files.map((file, index) => reject({ files: [cropping(file.id, `Fix number ${index}`)] })),
    );

    expect(answers.map((answer) => answer.status)).toEqual(job.files.map(() => 200));
    const stored = (await repository.getJob(job.id))!;
    expect(stored.version).toBe(versionBefore + job.files.length);
    expect(stored.job.status).toBe('CJ_REJECT_READY');
    stored.job.files.forEach((file, index) => {
      expect(file).toMatchObject({ isRejected: true, reviews: { customRejection: `Fix number ${index}` } });
    });
    expect(await searched(job.id)).toMatchObject({ status: 'CJ_REJECT_READY', reviewedDate: stored.job.reviewedDate });
  });
});
