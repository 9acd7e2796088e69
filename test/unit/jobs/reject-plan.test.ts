import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../../functions/http/errors';
import type { Principal } from '../../../functions/auth/principal';
import { type FileItem, toFileItem } from '../../../functions/jobs/store/items';
import {
  type JobFile,
  type JobStatus,
  MAX_PREVIOUS_REVIEWS,
  type Review,
  unreviewedFile,
} from '../../../functions/jobs/model/model';
import {
  attributeValueBytes,
  estimatedItemSize,
  FileRejectionRefusedError,
  ITEM_SIZE_BUDGET,
  isSameRejection,
  planRejection,
  rejectedFile,
  rejectedItemSize,
  RejectionTooLargeError,
  rejectionReasonOf,
  type StoredFile,
  type JobSnapshot,
  TRANSACTION_SIZE_BUDGET,
} from '../../../functions/jobs/review/reject';
import { isWriteConflict } from '../../../functions/aws/failures';
import { transactItems } from '../../../functions/jobs/review/review-transaction';
import type { FileRejection } from '../../../functions/http/reject-request';

const NOW = '2024-03-01T10:00:00.000Z';
const EARLIER = '2024-02-01T09:00:00.000Z';
const user: Pick<Principal, 'role' | 'accountId'> = { role: 'user', accountId: 10 };
const operator: Pick<Principal, 'role' | 'accountId'> = { role: 'operator', accountId: 1 };

const jobFile = (id: number, overrides: Partial<JobFile> = {}): JobFile =>
  unreviewedFile({ id, fileName: `file_${id}.jpg`, ...overrides });

const storedJob = (id: number, overrides: Partial<JobSnapshot> = {}): JobSnapshot => ({
  id,
  accountId: 10,
  status: 'CJ_REVIEWING',
  version: 4,
  itemBytes: 300,
  fileCount: 10,
  counts: { pending: 10, rejected: 0, accepted: 0 },
  countsStored: true,
  ...overrides,
});

const stored = (job: JobSnapshot, file: JobFile): StoredFile => ({ job, file, item: toFileItem(job.id, file, true) });

const rejection = (fileId: number, overrides: Partial<FileRejection> = {}): FileRejection => ({
  fileId,
  customRejection: null,
  rejects: [{ reason: 'Cropping', positions: [{ xPercent: 0.5, yPercent: 0.25 }] }],
  ...overrides,
});

const refusal = (run: () => unknown): { code: string; fileId: number } | undefined => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(FileRejectionRefusedError);
    const refused = error as FileRejectionRefusedError;
    return { code: refused.code, fileId: refused.fileId };
  }
  return undefined;
};

/** The size refusal a request ends in (the test fails when it is not refused so). */
const refusedWith = (run: () => unknown): RejectionTooLargeError => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(RejectionTooLargeError);
    return error as RejectionTooLargeError;
  }
  throw new Error('the request was not refused');
};

describe('rejection reason', () => {
  it('joins the reasons after a leading " - "', () => {
    expect(
      rejectionReasonOf({
        customRejection: 'ignored',
        rejects: [
          { reason: 'Cropping', positions: [] },
          { reason: 'Colour', positions: [] },
        ],
      }),
    ).toBe(' - Cropping - Colour');
  });

  it('is the custom rejection when there are no reasons', () => {
    expect(rejectionReasonOf({ customRejection: 'Shadow is missing', rejects: [] })).toBe('Shadow is missing');
  });
});

describe('a rejected file', () => {
  it('is rejected and reviewed now, with the review stored', () => {
    const after = rejectedFile(jobFile(1), rejection(1, { customRejection: 'Too dark' }), NOW);
    expect(after).toMatchObject({
      isRejected: true,
      isReviewed: true,
      reviewDate: NOW,
      rejectionReason: ' - Cropping',
      reviews: {
        customRejection: 'Too dark',
        rejects: [{ reason: 'Cropping', positions: [{ xPercent: 0.5, yPercent: 0.25 }] }],
        reviewDate: NOW,
      },
      previousReviews: [],
    });
  });

  it('moves an earlier review to previousReviews, oldest first', () => {
    const oldest: Review = { customRejection: 'first', rejects: [], reviewDate: '2024-01-01T00:00:00.000Z' };
    const earlier: Review = { customRejection: 'second', rejects: [], reviewDate: EARLIER };
    const before = jobFile(1, { isRejected: true, reviews: earlier, previousReviews: [oldest], reviewDate: EARLIER });
    expect(rejectedFile(before, rejection(1), NOW).previousReviews).toEqual([oldest, earlier]);
  });
});

describe('a repeated rejection', () => {
  const review: Review = {
    customRejection: null,
    rejects: [{ reason: 'Cropping', positions: [{ xPercent: 0.5, yPercent: 0.25 }] }],
    reviewDate: EARLIER,
  };
  const rejected = jobFile(1, { isRejected: true, isReviewed: true, reviews: review, reviewDate: EARLIER });

  it('is recognised when the custom rejection and rejects are the same', () => {
    expect(isSameRejection(rejected, rejection(1))).toBe(true);
  });

  it.each([
    ['the custom rejection differs', rejection(1, { customRejection: 'new' })],
    [
      'a reason differs',
      rejection(1, { rejects: [{ reason: 'Colour', positions: [{ xPercent: 0.5, yPercent: 0.25 }] }] }),
    ],
    [
      'a position differs',
      rejection(1, { rejects: [{ reason: 'Cropping', positions: [{ xPercent: 0.5, yPercent: 0.3 }] }] }),
    ],
    [
      'there are more reasons',
      rejection(1, {
        rejects: [
          { reason: 'Cropping', positions: [{ xPercent: 0.5, yPercent: 0.25 }] },
          { reason: 'Colour', positions: [] },
        ],
      }),
    ],
  ])('is a new review when %s', (_case, request) => {
    expect(isSameRejection(rejected, request)).toBe(false);
  });

  it('is a new review when the file is not rejected any more', () => {
    expect(isSameRejection({ ...rejected, isRejected: false }, rejection(1))).toBe(false);
  });
});

describe('planning a rejection', () => {
  it('changes each file and bumps each job once, answering files in request order and jobs by first appearance', () => {
    const jobA = storedJob(100);
    const jobB = storedJob(200, { status: 'CJ_FINISHED', version: 9 });
    const files = new Map([
      [1, stored(jobA, jobFile(1))],
      [2, stored(jobB, jobFile(2))],
      [3, stored(jobA, jobFile(3))],
    ]);
    const plan = planRejection({ files: [rejection(2), rejection(1), rejection(3)] }, files, user, NOW);
    expect(plan.changedJobs.map(({ job, files: changes }) => [job.id, changes.map((c) => c.after.id)])).toEqual([
      [200, [2]],
      [100, [1, 3]],
    ]);
    expect(plan.unchangedJobs).toEqual([]);
    expect(plan.response).toEqual({
      _type: 'RejectResponseBody',
      files: [
        { fileId: 2, jobId: 200, isRejected: true, rejectionReason: ' - Cropping', reviewDate: NOW },
        { fileId: 1, jobId: 100, isRejected: true, rejectionReason: ' - Cropping', reviewDate: NOW },
        { fileId: 3, jobId: 100, isRejected: true, rejectionReason: ' - Cropping', reviewDate: NOW },
      ],
      jobs: [
        { id: 200, status: 'CJ_REJECT_READY' },
        { id: 100, status: 'CJ_REJECT_READY' },
      ],
    });
  });

  it('writes nothing and answers the original review date when every file repeats its review', () => {
    const job = storedJob(100, { status: 'CJ_REJECT_READY' });
    const review: Review = { customRejection: null, rejects: rejection(1).rejects, reviewDate: EARLIER };
    const file = jobFile(1, { isRejected: true, reviews: review, reviewDate: EARLIER, rejectionReason: ' - Cropping' });
    const plan = planRejection({ files: [rejection(1)] }, new Map([[1, stored(job, file)]]), user, NOW);
    expect(plan.changedJobs).toEqual([]);
    expect(plan.unchangedJobs).toEqual([]);
    expect(plan.unchangedFiles).toEqual([]);
    expect(plan.response.files).toEqual([
      { fileId: 1, jobId: 100, isRejected: true, rejectionReason: ' - Cropping', reviewDate: EARLIER },
    ]);
    expect(plan.response.jobs).toEqual([{ id: 100, status: 'CJ_REJECT_READY' }]);
  });

  it('writes only the new files of a request mixing repeats and new ones, guarding the repeated jobs', () => {
    const jobA = storedJob(100, { status: 'CJ_REJECT_READY' });
    const jobB = storedJob(200);
    const review: Review = { customRejection: null, rejects: rejection(1).rejects, reviewDate: EARLIER };
    const repeated = jobFile(1, {
      isRejected: true,
      reviews: review,
      reviewDate: EARLIER,
      rejectionReason: ' - Cropping',
    });
    const files = new Map([
      [1, stored(jobA, repeated)],
      [2, stored(jobB, jobFile(2))],
    ]);
    const plan = planRejection({ files: [rejection(1), rejection(2)] }, files, user, NOW);
    expect(plan.changedJobs.map(({ job }) => job.id)).toEqual([200]);
    expect(plan.unchangedJobs.map((job) => job.id)).toEqual([100]);
    expect(plan.unchangedFiles.map((item) => item.fileId)).toEqual([1]);
    expect(plan.response.files.map((f) => f.reviewDate)).toEqual([EARLIER, NOW]);
    expect(plan.response.jobs).toEqual([
      { id: 100, status: 'CJ_REJECT_READY' },
      { id: 200, status: 'CJ_REJECT_READY' },
    ]);
  });

  it('answers file_not_found for a missing file', () => {
    expect(refusal(() => planRejection({ files: [rejection(5)] }, new Map(), user, NOW))).toEqual({
      code: 'file_not_found',
      fileId: 5,
    });
  });

  it("answers file_not_found to a user for another account's file, and lets an operator reject it", () => {
    const files = new Map([[1, stored(storedJob(100, { accountId: 99 }), jobFile(1))]]);
    expect(refusal(() => planRejection({ files: [rejection(1)] }, files, user, NOW))).toEqual({
      code: 'file_not_found',
      fileId: 1,
    });
    expect(planRejection({ files: [rejection(1)] }, files, operator, NOW).changedJobs).toHaveLength(1);
  });

  it("answers file_not_found to a user of account 0 for another account's file: 0 is an account like any other", () => {
    const files = new Map([[1, stored(storedJob(100, { accountId: 99 }), jobFile(1))]]);
    expect(refusal(() => planRejection({ files: [rejection(1)] }, files, { role: 'user', accountId: 0 }, NOW))).toEqual(
      {
        code: 'file_not_found',
        fileId: 1,
      },
    );
    const own = new Map([[1, stored(storedJob(100, { accountId: 0 }), jobFile(1))]]);
    expect(planRejection({ files: [rejection(1)] }, own, { role: 'user', accountId: 0 }, NOW).changedJobs).toHaveLength(
      1,
    );
  });

  it('answers job_archived when the job is archived', () => {
    const files = new Map([[1, stored(storedJob(100, { status: 'CJ_ARCHIVED' }), jobFile(1))]]);
    expect(refusal(() => planRejection({ files: [rejection(1)] }, files, user, NOW))).toEqual({
      code: 'job_archived',
      fileId: 1,
    });
  });

  it.each<JobStatus>([
    'CJ_NEW',
    'CJ_REQUEST_OFFER',
    'CJ_ACCEPT',
    'CJ_PREPROCESS',
    'CJ_JOB_PAID',
    'CJ_WORK_PROGRESS',
    'ERROR',
  ])('answers file_not_rejectable when the job is %s', (status) => {
    const files = new Map([[1, stored(storedJob(100, { status }), jobFile(1))]]);
    expect(refusal(() => planRejection({ files: [rejection(1)] }, files, user, NOW))?.code).toBe('file_not_rejectable');
  });

  it.each<JobStatus>(['CJ_REVIEWING', 'CJ_FINISHED', 'CJ_REJECT_READY', 'CJ_REJECT_ERROR'])(
    'rejects a file of a job in %s',
    (status) => {
      const files = new Map([[1, stored(storedJob(100, { status }), jobFile(1))]]);
      expect(planRejection({ files: [rejection(1)] }, files, user, NOW).response.jobs).toEqual([
        { id: 100, status: 'CJ_REJECT_READY' },
      ]);
    },
  );

  it('answers file_not_rejectable when the customer accepted the file', () => {
    const files = new Map([[1, stored(storedJob(100), jobFile(1, { acceptedByUser: true }))]]);
    expect(refusal(() => planRejection({ files: [rejection(1)] }, files, user, NOW))?.code).toBe('file_not_rejectable');
  });

  it('names the first offending file in request order, whatever its error', () => {
    const files = new Map([
      [1, stored(storedJob(100), jobFile(1))],
      [2, stored(storedJob(200, { status: 'CJ_NEW' }), jobFile(2))],
      [3, stored(storedJob(300, { status: 'CJ_ARCHIVED' }), jobFile(3))],
    ]);
    expect(
      refusal(() =>
        planRejection({ files: [rejection(1), rejection(2), rejection(3), rejection(4)] }, files, user, NOW),
      ),
    ).toEqual({ code: 'file_not_rejectable', fileId: 2 });
    expect(refusal(() => planRejection({ files: [rejection(4), rejection(3)] }, files, user, NOW))).toEqual({
      code: 'file_not_found',
      fileId: 4,
    });
  });
});

describe('the transaction of a plan', () => {
  const job = storedJob(100, { version: 7 });
  const before = jobFile(1, { reviewDate: EARLIER, isRejected: true });
  const files = new Map([[1, stored(job, before)]]);

  it('updates each file guarded by what was read, and the job guarded by its review status and no committed delivery still being written, adding one to its version', () => {
    const plan = planRejection({ files: [rejection(1)] }, files, user, NOW);
    const [fileWrite, jobWrite] = transactItems('jobs', plan, NOW);
    expect(fileWrite?.Update?.Key).toEqual({ pk: 'JOB#100', sk: 'FILE#0000000000000001' });
    expect(fileWrite?.Update?.ConditionExpression).toContain('attribute_exists(#pk)');
    expect(fileWrite?.Update?.ExpressionAttributeValues).toMatchObject({
      ':was_reviewDate': EARLIER,
      ':was_isRejected': true,
      ':was_acceptedByUser': false,
      ':now': NOW,
    });
    expect(jobWrite?.Update).toMatchObject({
      Key: { pk: 'JOB#100', sk: 'JOB' },
      UpdateExpression: expect.stringContaining('ADD #version :one'),
      ConditionExpression:
        '#status IN (:reviewable0, :reviewable1, :reviewable2, :reviewable3) AND ' +
        'attribute_not_exists(#deliveryCommitted)',
      ExpressionAttributeValues: {
        ':status': 'CJ_REJECT_READY',
        ':now': NOW,
        ':one': 1,
        ':reviewable0': 'CJ_REVIEWING',
        ':reviewable1': 'CJ_FINISHED',
        ':reviewable2': 'CJ_REJECT_READY',
        ':reviewable3': 'CJ_REJECT_ERROR',
      },
    });
    expect(jobWrite?.Update?.ExpressionAttributeValues).not.toHaveProperty(':read');
  });

  it('checks that repeated files are still as read and their jobs still in review', () => {
    const review: Review = { customRejection: null, rejects: rejection(1).rejects, reviewDate: EARLIER };
    const repeatedJob = storedJob(200, { status: 'CJ_REJECT_READY' });
    const repeated = jobFile(2, { isRejected: true, reviews: review, reviewDate: EARLIER });
    const plan = planRejection(
      { files: [rejection(1), rejection(2)] },
      new Map([
        [1, stored(job, jobFile(1))],
        [2, stored(repeatedJob, repeated)],
      ]),
      user,
      NOW,
    );
    const [, , jobCheck, fileCheck] = transactItems('jobs', plan, NOW);
    expect(jobCheck?.ConditionCheck).toMatchObject({
      Key: { pk: 'JOB#200', sk: 'JOB' },
      ConditionExpression: expect.stringContaining('#status IN'),
    });
    expect(fileCheck?.ConditionCheck).toMatchObject({
      Key: { pk: 'JOB#200', sk: 'FILE#0000000000000002' },
      ExpressionAttributeValues: { ':was_reviewDate': EARLIER, ':was_isRejected': true },
    });
  });

  it('guards attributes the item lacks or holds as null', () => {
    const item: FileItem = { ...toFileItem(100, jobFile(1), true) };
    delete (item as Partial<FileItem>).acceptedByUser;
    const plan = planRejection({ files: [rejection(1)] }, new Map([[1, { job, file: jobFile(1), item }]]), user, NOW);
    const condition = transactItems('jobs', plan, NOW)[0]?.Update?.ConditionExpression;
    expect(condition).toContain('attribute_not_exists(#acceptedByUser)');
    expect(condition).toContain('attribute_type(#reviewDate, :nullType)');
  });
});

describe('the estimated size of an item', () => {
  it('counts every attribute name and the UTF-8 bytes of every string', () => {
    expect(estimatedItemSize({ name: 'café', icon: '📷' })).toBe(4 + 5 + 4 + 4);
  });

  it('counts booleans and nulls as one byte, and lists and maps with 3 bytes each plus 1 per element', () => {
    expect(estimatedItemSize({ l: [true, null] })).toBe(1 + 3 + 2 * (1 + 1));
    expect(estimatedItemSize({ m: { ab: 'xyz' } })).toBe(1 + 3 + 1 + 2 + 3);
  });

  it('counts a number as two bytes plus one per two digits of its text, one more when negative', () => {
    expect(attributeValueBytes(0.61)).toBe(2 + 2);
    expect(attributeValueBytes(-12_345)).toBe(2 + 3 + 1);
    expect(attributeValueBytes(0.1234567890123456)).toBe(2 + 9);
  });

  it('leaves out attributes that are undefined, as the document client does', () => {
    expect(estimatedItemSize({ kept: 'a', dropped: undefined })).toBe(estimatedItemSize({ kept: 'a' }));
  });
});

describe('refusing a rejection DynamoDB could not store', () => {
  const bigJob = storedJob(500);

  /**
   * A rejected file with a long review history, padded so that rejecting it with `rejection(id)` leaves
   * its item exactly `bytes` bytes large (by the estimate the plan uses).
   */
  const fileSized = (id: number, bytes: number): StoredFile => {
    const history: Review[] = Array.from({ length: MAX_PREVIOUS_REVIEWS }, (_, index) => ({
      customRejection: `${index} ${'h'.repeat(1_000)}`,
      rejects: [],
      reviewDate: new Date(Date.UTC(2023, 0, 1, 0, 0, index)).toISOString(),
    }));
    const unpadded = jobFile(id, {
      isRejected: true,
      isReviewed: true,
      reviewDate: EARLIER,
      reviews: { customRejection: 'latest', rejects: [], reviewDate: EARLIER },
      previousReviews: history,
    });
    const sizeOf = (file: JobFile) =>
      rejectedItemSize(toFileItem(bigJob.id, file, true), rejectedFile(file, rejection(id), NOW));
    const file = { ...unpadded, remarkToProcessor: 'p'.repeat(bytes - sizeOf(unpadded)) };
    expect(sizeOf(file)).toBe(bytes);
    return stored(bigJob, file);
  };

  it('answers 409 file_not_rejectable naming a file whose item would outgrow the item budget', () => {
    const files = new Map([[1, fileSized(1, ITEM_SIZE_BUDGET + 1)]]);
    const error = refusedWith(() => planRejection({ files: [rejection(1)] }, files, user, NOW));
    expect(ERROR_STATUS[error.code]).toBe(409);
    expect(error).toMatchObject({
      code: 'file_not_rejectable',
      fileId: 1,
      limit: 'item',
      estimatedBytes: ITEM_SIZE_BUDGET + 1,
      budgetBytes: ITEM_SIZE_BUDGET,
    });
    expect(error).toBeInstanceOf(FileRejectionRefusedError);
  });

  it('accepts a file whose item ends exactly at the item budget', () => {
    const files = new Map([[1, fileSized(1, ITEM_SIZE_BUDGET)]]);
    const plan = planRejection({ files: [rejection(1)] }, files, user, NOW);
    expect(plan.changedJobs.flatMap((job) => job.files.map((change) => change.after.id))).toEqual([1]);
  });

  it('names the first offending file in request order, whatever its error', () => {
    const files = new Map([
      [1, stored(storedJob(100), jobFile(1))],
      [2, fileSized(2, ITEM_SIZE_BUDGET + 1)],
      [3, fileSized(3, ITEM_SIZE_BUDGET + 1)],
      [4, stored(storedJob(400, { status: 'CJ_ARCHIVED' }), jobFile(4))],
    ]);
    const all = [rejection(1), rejection(2), rejection(3), rejection(4)];
    expect(refusal(() => planRejection({ files: all }, files, user, NOW))).toEqual({
      code: 'file_not_rejectable',
      fileId: 2,
    });
    expect(refusal(() => planRejection({ files: [rejection(4), rejection(3)] }, files, user, NOW))).toEqual({
      code: 'job_archived',
      fileId: 4,
    });
  });

  it('refuses a request whose transaction would outgrow its budget, naming the file that crosses it', () => {
    const perFile = 300_000;
    const ids = Array.from({ length: 13 }, (_, index) => index + 1);
    const files = new Map(ids.map((id) => [id, fileSized(id, perFile)] as const));
    const crossing = Math.floor(TRANSACTION_SIZE_BUDGET / perFile) + 1;
    const error = refusedWith(() => planRejection({ files: ids.map((id) => rejection(id)) }, files, user, NOW));
    expect(error).toMatchObject({ code: 'file_not_rejectable', fileId: crossing, limit: 'transaction' });
    expect(error.estimatedBytes).toBeGreaterThan(TRANSACTION_SIZE_BUDGET);
    const fitting = ids.slice(0, crossing - 1).map((id) => rejection(id));
    expect(planRejection({ files: fitting }, files, user, NOW).response.files).toHaveLength(crossing - 1);
  });

  it('counts the files a request only checks, once it writes others', () => {
    const repeated = (id: number): StoredFile => {
      const { job, file } = fileSized(id, 300_000);
      const review: Review = { customRejection: null, rejects: rejection(id).rejects, reviewDate: EARLIER };
      const same = { ...file, reviews: review, rejectionReason: ' - Cropping' };
      return stored(job, same);
    };
    const ids = Array.from({ length: 13 }, (_, index) => index + 1);
    const files = new Map<number, StoredFile>(ids.map((id) => [id, repeated(id)]));
    files.set(99, stored(storedJob(900), jobFile(99)));
    const request = { files: ids.map((id) => rejection(id)) };
    expect(planRejection(request, files, user, NOW).changedJobs).toEqual([]);
    const error = refusedWith(() => planRejection({ files: [...request.files, rejection(99)] }, files, user, NOW));
    expect(error).toMatchObject({ limit: 'transaction', fileId: Math.floor(TRANSACTION_SIZE_BUDGET / 300_000) + 1 });
  });
});

describe('the transaction estimate at its edges', () => {
  /** What a rejection adds to its job's item, by the item-size model: its status, `reviewedDate` and next version. */
  const jobFieldBytes = (job: JobSnapshot): number =>
    estimatedItemSize({ status: 'CJ_REJECT_READY', reviewedDate: NOW, version: job.version + 1 });
  /** The estimated size of a file's item once rejected with `rejection(id)`. */
  const rejectedBytes = ({ job, file }: StoredFile): number =>
    rejectedItemSize(toFileItem(job.id, file, true), rejectedFile(file, rejection(file.id), NOW));

  it('counts each changed file after the change, and its job once, grown by the fields a rejection sets', () => {
    // Version 99 becomes 100, one byte more by the model; version 98 would not.
    const withBytes = (itemBytes: number) => storedJob(600, { version: 99, itemBytes });
    const files = (itemBytes: number) =>
      new Map([
        [1, stored(withBytes(itemBytes), jobFile(1))],
        [2, stored(withBytes(itemBytes), jobFile(2))],
      ]);
    const measure = files(0);
    const fixed = rejectedBytes(measure.get(1)!) + rejectedBytes(measure.get(2)!) + jobFieldBytes(withBytes(0));
    expect(jobFieldBytes(withBytes(0))).toBe(
      estimatedItemSize({ status: 'CJ_REJECT_READY', reviewedDate: NOW, version: 99 }) + 1,
    );
    const request = { files: [rejection(1), rejection(2)] };

    const atBudget = files(TRANSACTION_SIZE_BUDGET - fixed);
    expect(planRejection(request, atBudget, user, NOW).changedJobs[0]?.files).toHaveLength(2);

    const over = files(TRANSACTION_SIZE_BUDGET - fixed + 1);
    expect(refusedWith(() => planRejection(request, over, user, NOW))).toMatchObject({
      code: 'file_not_rejectable',
      limit: 'transaction',
      fileId: 2,
      estimatedBytes: TRANSACTION_SIZE_BUDGET + 1,
      budgetBytes: TRANSACTION_SIZE_BUDGET,
    });
  });

  it('counts a repeated file as read, with its job, when the request changes another file', () => {
    const review: Review = { customRejection: null, rejects: rejection(1).rejects, reviewDate: EARLIER };
    const repeatedFile = jobFile(1, {
      isRejected: true,
      isReviewed: true,
      reviewDate: EARLIER,
      reviews: review,
      rejectionReason: ' - Cropping',
    });
    const repeatedJob = (itemBytes: number) => storedJob(700, { itemBytes });
    const changed = stored(storedJob(800, { itemBytes: 5_000 }), jobFile(2));
    const files = (itemBytes: number) =>
      new Map([
        [1, stored(repeatedJob(itemBytes), repeatedFile)],
        [2, changed],
      ]);
    const fixed =
      estimatedItemSize(toFileItem(700, repeatedFile, true)) +
      jobFieldBytes(repeatedJob(0)) +
      rejectedBytes(changed) +
      changed.job.itemBytes +
      jobFieldBytes(changed.job);
    const request = { files: [rejection(1), rejection(2)] };

    const atBudget = planRejection(request, files(TRANSACTION_SIZE_BUDGET - fixed), user, NOW);
    expect(atBudget.unchangedFiles.map((item) => item.id)).toEqual([1]);
    expect(atBudget.changedJobs.map((change) => change.job.id)).toEqual([800]);

    const over = files(TRANSACTION_SIZE_BUDGET - fixed + 1);
    expect(refusedWith(() => planRejection(request, over, user, NOW))).toMatchObject({
      limit: 'transaction',
      fileId: 2,
      estimatedBytes: TRANSACTION_SIZE_BUDGET + 1,
    });
  });
});

describe('the history write', () => {
  const job = storedJob(100);
  const oldest: Review = { customRejection: 'first', rejects: [], reviewDate: '2024-01-01T00:00:00.000Z' };
  const current: Review = {
    customRejection: 'second',
    rejects: [{ reason: 'Colour', positions: [{ xPercent: 0.1, yPercent: 0.2 }] }],
    reviewDate: EARLIER,
  };
  const rejected = jobFile(1, {
    isRejected: true,
    isReviewed: true,
    reviewDate: EARLIER,
    reviews: current,
    previousReviews: [oldest],
  });
  const fileWrite = (file: StoredFile) =>
    transactItems('jobs', planRejection({ files: [rejection(1)] }, new Map([[1, file]]), user, NOW), NOW)[0]?.Update;

  it('appends the replaced review to previousReviews and sends only that review, never the history', () => {
    const update = fileWrite(stored(job, rejected));
    expect(update?.UpdateExpression).toContain(
      '#previousReviews = list_append(if_not_exists(#previousReviews, :empty), :moved)',
    );
    expect(update?.ExpressionAttributeValues?.[':moved']).toEqual([current]);
    expect(update?.ExpressionAttributeValues?.[':empty']).toEqual([]);
    expect(JSON.stringify(update?.ExpressionAttributeValues)).not.toContain('first');
    expect(update?.ExpressionAttributeValues?.[':review']).toMatchObject({ reviewDate: NOW });
  });

  it('requires the stored history to hold as many reviews as were read', () => {
    const update = fileWrite(stored(job, rejected));
    expect(update?.ConditionExpression).toContain('size(#previousReviews) = :was_previousReviewCount');
    expect(update?.ExpressionAttributeValues?.[':was_previousReviewCount']).toBe(1);
  });

  it('starts the history of an item that has none, requiring it still has none', () => {
    const item = toFileItem(job.id, rejected, true);
    delete (item as Partial<FileItem>).previousReviews;
    const update = fileWrite({ job, file: rejected, item });
    expect(update?.UpdateExpression).toContain('list_append(if_not_exists(#previousReviews, :empty), :moved)');
    expect(update?.ConditionExpression).toContain('attribute_not_exists(#previousReviews)');
  });

  it('replaces a null history with the one replaced review, requiring it is still null', () => {
    const item = { ...toFileItem(job.id, rejected, true), previousReviews: null } as unknown as FileItem;
    const update = fileWrite({ job, file: { ...rejected, previousReviews: [] }, item });
    expect(update?.UpdateExpression).toContain('#previousReviews = :moved');
    expect(update?.ConditionExpression).toContain('attribute_type(#previousReviews, :nullType)');
    expect(update?.ExpressionAttributeValues?.[':moved']).toEqual([current]);
  });

  it('leaves previousReviews alone when the file had no review to move', () => {
    const update = fileWrite(stored(job, jobFile(1)));
    expect(update?.UpdateExpression).not.toContain('#previousReviews');
    expect(update?.ExpressionAttributeNames).not.toHaveProperty('#previousReviews');
    expect(update?.ExpressionAttributeValues).not.toHaveProperty(':moved');
  });
});

describe('contention', () => {
  const canceled = (...codes: string[]) => ({
    name: 'TransactionCanceledException',
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

  it.each([
    ['a condition failed', canceled('None', 'ConditionalCheckFailed')],
    ['a transaction conflicted', canceled('TransactionConflict', 'None')],
    ['a conflict exception', { name: 'TransactionConflictException' }],
  ])('is recognised when %s', (_case, error) => {
    expect(isWriteConflict(error)).toBe(true);
  });

  it.each([
    ['a validation error cancelled it', canceled('ValidationError', 'None')],
    ['no reason is given', canceled('None')],
    ['the error is unrelated', new Error('boom')],
  ])('is not assumed when %s', (_case, error) => {
    expect(isWriteConflict(error)).toBe(false);
  });
});
