/**
 * The rules of an acceptance (functions/jobs/review/accept.ts) through the shared review plan
 * (functions/jobs/review/review-plan.ts): who may accept which file, what an accepted file becomes, when its job
 * finishes, and what a repeat writes.
 */
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../../functions/auth/principal';
import {
  ACCEPT_TOO_LARGE_MESSAGE,
  acceptedFile,
  acceptRefusalOf,
  AMBIGUOUS_ACCEPT_MESSAGE,
  FileAcceptanceRefusedError,
  FINISHED_JOB_STATUS,
  planAcceptance,
} from '../../../functions/jobs/review/accept';
import { toFileItem } from '../../../functions/jobs/store/items';
import { type JobFile, JOB_STATUSES, REVIEWABLE_STATUSES, unreviewedFile } from '../../../functions/jobs/model/model';
import { estimatedItemSize, ITEM_SIZE_BUDGET, TRANSACTION_SIZE_BUDGET } from '../../../functions/jobs/store/item-sizes';
import type { JobSnapshot, StoredFile } from '../../../functions/jobs/review/review-plan';

const NOW = '2024-03-01T10:00:00.000Z';
const user: Pick<Principal, 'role' | 'accountId'> = { role: 'user', accountId: 10 };
const operator: Pick<Principal, 'role' | 'accountId'> = { role: 'operator', accountId: 1 };

const job = (id: number, overrides: Partial<JobSnapshot> = {}): JobSnapshot => ({
  id,
  accountId: 10,
  status: 'CJ_REVIEWING',
  version: 4,
  itemBytes: 300,
  fileCount: 3,
  counts: { pending: 3, rejected: 0, accepted: 0 },
  countsStored: true,
  ...overrides,
});

const file = (id: number, overrides: Partial<JobFile> = {}): JobFile =>
  unreviewedFile({ id, fileName: `file_${id}.jpg`, ...overrides });

const stored = (snapshot: JobSnapshot, jobFile: JobFile): StoredFile => ({
  job: snapshot,
  file: jobFile,
  item: toFileItem(snapshot.id, jobFile, true),
});

const refusal = (run: () => unknown): { code: string; fileId: number; message: string } | undefined => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(FileAcceptanceRefusedError);
    const refused = error as FileAcceptanceRefusedError;
    expect(refused.name).toBe('FileAcceptanceRefusedError');
    expect(refused.context).toEqual({ fileId: refused.fileId });
    return { code: refused.code, fileId: refused.fileId, message: refused.message };
  }
  return undefined;
};

describe('acceptRefusalOf', () => {
  it('refuses an unknown file and another account’s file to a user, as not found', () => {
    expect(acceptRefusalOf(undefined, user)).toBe('file_not_found');
    expect(acceptRefusalOf(stored(job(1, { accountId: 11 }), file(1)), user)).toBe('file_not_found');
    expect(acceptRefusalOf(stored(job(1, { accountId: 0 }), file(1)), { role: 'user', accountId: 0 })).toBeUndefined();
  });

  it('lets an operator accept in any account', () => {
    expect(acceptRefusalOf(stored(job(1, { accountId: 11 }), file(1)), operator)).toBeUndefined();
  });

  it('refuses an archived job as archived, and any other status outside review as not acceptable', () => {
    for (const status of JOB_STATUSES) {
      const expected =
        status === 'CJ_ARCHIVED'
          ? 'job_archived'
          : REVIEWABLE_STATUSES.includes(status)
            ? undefined
            : 'file_not_acceptable';
      expect(acceptRefusalOf(stored(job(1, { status }), file(1)), user)).toBe(expected);
    }
  });
});

describe('acceptedFile', () => {
  it('makes a file accepted, reviewed, not rejected and without a rejection reason, reviewed now', () => {
    const before = file(1, { isRejected: true, isReviewed: true, rejectionReason: ' - Blur', reviewDate: 'x' });
    expect(acceptedFile(before, NOW)).toEqual({
      ...before,
      acceptedByUser: true,
      isReviewed: true,
      isRejected: false,
      rejectionReason: null,
      reviewDate: NOW,
    });
  });
});

describe('planAcceptance', () => {
  it('accepts the files in request order, moving each to accepted, and answers each job’s status', () => {
    const first = job(1);
    const second = job(2, { fileCount: 1, counts: { pending: 1, rejected: 0, accepted: 0 } });
    const files = new Map([
      [11, stored(first, file(11))],
      [21, stored(second, file(21, { isRejected: true, isReviewed: true }))],
      [12, stored(first, file(12))],
    ]);
    const plan = planAcceptance({ fileIds: [21, 11, 12] }, files, user, NOW);
    expect(plan.response).toEqual({
      _type: 'AcceptResponseBody',
      files: [
        { fileId: 21, jobId: 2, acceptedByUser: true, reviewDate: NOW },
        { fileId: 11, jobId: 1, acceptedByUser: true, reviewDate: NOW },
        { fileId: 12, jobId: 1, acceptedByUser: true, reviewDate: NOW },
      ],
      jobs: [
        { id: 2, status: FINISHED_JOB_STATUS },
        { id: 1, status: 'CJ_REVIEWING' },
      ],
    });
    expect(
      plan.changedJobs.map((change) => [change.job.id, change.status, change.countChanges, change.guardAccepted]),
    ).toEqual([
      [2, 'CJ_FINISHED', { pending: 0, rejected: -1, accepted: 1 }, true],
      [1, undefined, { pending: -2, rejected: 0, accepted: 2 }, true],
    ]);
    expect(plan.changedJobs[1]?.files.map((change) => [change.from, change.to, change.movesReview])).toEqual([
      ['pending', 'accepted', false],
      ['pending', 'accepted', false],
    ]);
    expect(plan.unchangedJobs).toEqual([]);
    expect(plan.unchangedFiles).toEqual([]);
  });

  it('finishes a job once its accepted files reach its file count, and never a job of no files', () => {
    const last = job(1, { counts: { pending: 1, rejected: 0, accepted: 2 } });
    expect(
      planAcceptance({ fileIds: [1] }, new Map([[1, stored(last, file(1))]]), user, NOW).changedJobs[0]?.status,
    ).toBe('CJ_FINISHED');
    const notYet = job(1, { counts: { pending: 2, rejected: 0, accepted: 0 } });
    expect(
      planAcceptance({ fileIds: [1] }, new Map([[1, stored(notYet, file(1))]]), user, NOW).changedJobs[0]?.status,
    ).toBe(undefined);
    const empty = job(1, { fileCount: 0, counts: { pending: 0, rejected: 0, accepted: 0 } });
    expect(
      planAcceptance({ fileIds: [1] }, new Map([[1, stored(empty, file(1))]]), user, NOW).changedJobs[0]?.status,
    ).toBe(undefined);
  });

  it('writes nothing for a file accepted already, and guards it when other files change', () => {
    const snapshot = job(1);
    const done = stored(snapshot, file(1, { acceptedByUser: true, isReviewed: true, reviewDate: 'then' }));
    const alone = planAcceptance({ fileIds: [1] }, new Map([[1, done]]), user, NOW);
    expect(alone.changedJobs).toEqual([]);
    expect(alone.unchangedFiles).toEqual([]);
    expect(alone.response.files).toEqual([{ fileId: 1, jobId: 1, acceptedByUser: true, reviewDate: 'then' }]);
    const other = job(2);
    const mixed = planAcceptance(
      { fileIds: [1, 2] },
      new Map([
        [1, done],
        [2, stored(other, file(2))],
      ]),
      user,
      NOW,
    );
    expect(mixed.unchangedFiles).toEqual([done.item]);
    expect(mixed.unchangedJobs).toEqual([snapshot]);
  });

  it('refuses the first refused file in request order, naming it', () => {
    const files = new Map([
      [1, stored(job(1), file(1))],
      [2, stored(job(2, { status: 'CJ_ARCHIVED' }), file(2))],
      [3, stored(job(3, { status: 'CJ_NEW' }), file(3))],
    ]);
    expect(refusal(() => planAcceptance({ fileIds: [1, 2, 3] }, files, user, NOW))).toMatchObject({
      code: 'job_archived',
      fileId: 2,
    });
    expect(refusal(() => planAcceptance({ fileIds: [3, 2] }, files, user, NOW))).toMatchObject({
      code: 'file_not_acceptable',
      fileId: 3,
    });
    expect(refusal(() => planAcceptance({ fileIds: [1, 9] }, files, user, NOW))).toMatchObject({
      code: 'file_not_found',
      fileId: 9,
    });
  });

  it('refuses a file id that names several files the caller may change', () => {
    const files = new Map([[1, stored(job(1), file(1))]]);
    expect(refusal(() => planAcceptance({ fileIds: [1] }, files, operator, NOW, new Set([1])))).toEqual({
      code: 'file_not_acceptable',
      fileId: 1,
      message: AMBIGUOUS_ACCEPT_MESSAGE,
    });
    expect(AMBIGUOUS_ACCEPT_MESSAGE).toBe(
      'The file id names more than one file you may change (file ids are unique only within a job); none was accepted.',
    );
  });
});

describe('the size of an acceptance’s transaction', () => {
  /** What an acceptance adds to its job's item, by the item-size model: its status, `reviewedDate` and next version. */
  const jobFieldBytes = (snapshot: JobSnapshot): number =>
    estimatedItemSize({ status: FINISHED_JOB_STATUS, reviewedDate: NOW, version: snapshot.version + 1 });
  /** The estimated size of a file's item once accepted. */
  const acceptedBytes = ({ job: snapshot, file: jobFile }: StoredFile): number =>
    estimatedItemSize({ ...toFileItem(snapshot.id, jobFile, true), ...acceptedFile(jobFile, NOW) });
  /** A file whose item holds a long history, as a file rejected many times does (here an instruction). */
  const heavy = (id: number, bytes: number): JobFile => file(id, { remarkToProcessor: 'p'.repeat(bytes) });

  it('counts each file after the change and its job once; refuses the first file that takes it past the budget', () => {
    // Version 99 becomes 100, one byte more by the model.
    const withBytes = (itemBytes: number) => job(1, { version: 99, itemBytes, fileCount: 2 });
    const files = (itemBytes: number) =>
      new Map([
        [1, stored(withBytes(itemBytes), heavy(1, 1_000_000))],
        [2, stored(withBytes(itemBytes), heavy(2, 1_000_000))],
      ]);
    const measure = files(0);
    const fixed = acceptedBytes(measure.get(1)!) + acceptedBytes(measure.get(2)!) + jobFieldBytes(withBytes(0));
    expect(jobFieldBytes(withBytes(0))).toBe(
      estimatedItemSize({ status: FINISHED_JOB_STATUS, reviewedDate: NOW, version: 99 }) + 1,
    );

    const atBudget = planAcceptance({ fileIds: [1, 2] }, files(TRANSACTION_SIZE_BUDGET - fixed), user, NOW);
    expect(atBudget.changedJobs.map((change) => [change.files.length, change.status])).toEqual([
      [2, FINISHED_JOB_STATUS],
    ]);
    expect(
      refusal(() => planAcceptance({ fileIds: [1, 2] }, files(TRANSACTION_SIZE_BUDGET - fixed + 1), user, NOW)),
    ).toEqual({
      code: 'file_not_acceptable',
      fileId: 2,
      message: ACCEPT_TOO_LARGE_MESSAGE,
    });
  });

  it('names the first file in request order whose item crosses the budget', () => {
    const perFile = 300_000;
    const ids = Array.from({ length: 20 }, (_, index) => index + 1);
    const large = job(1, { fileCount: ids.length });
    const files = new Map(ids.map((id) => [id, stored(large, heavy(id, perFile))] as const));
    const crossing = Math.floor(TRANSACTION_SIZE_BUDGET / acceptedBytes(files.get(1)!)) + 1;
    expect(refusal(() => planAcceptance({ fileIds: ids }, files, user, NOW))).toEqual({
      code: 'file_not_acceptable',
      fileId: crossing,
      message: ACCEPT_TOO_LARGE_MESSAGE,
    });
    expect(ACCEPT_TOO_LARGE_MESSAGE).toBe(
      'The files of this request hold too much review history to be accepted together; accept fewer files per request.',
    );
    // Fewer files per request fit.
    const fewer = ids.slice(0, crossing - 1);
    expect(planAcceptance({ fileIds: fewer }, files, user, NOW).changedJobs[0]?.files).toHaveLength(fewer.length);
  });

  it('counts a file accepted before as read when the request changes another, and never refuses a request of repeats', () => {
    const accepted = (id: number): JobFile => ({
      ...heavy(id, ITEM_SIZE_BUDGET - 1_000),
      acceptedByUser: true,
      isReviewed: true,
      reviewDate: 'then',
    });
    const ids = Array.from({ length: 12 }, (_, index) => index + 1);
    const done = job(1, { fileCount: 13 });
    const files = new Map<number, StoredFile>(ids.map((id) => [id, stored(done, accepted(id))] as const));
    // A repeat counts with its item as read.
    const repeatBytes = estimatedItemSize(files.get(1)!.item);
    // Twelve repeats past the budget on their own: nothing is written, so nothing is refused.
    expect(ids.length * repeatBytes).toBeGreaterThan(TRANSACTION_SIZE_BUDGET);
    const repeats = planAcceptance({ fileIds: ids }, files, user, NOW);
    expect(repeats.changedJobs).toEqual([]);
    // With one file changed, the repeats are checked in the same transaction and count as read.
    files.set(13, stored(done, file(13)));
    const first = acceptedBytes(files.get(13)!) + jobFieldBytes(done) + done.itemBytes;
    const crossing = Math.floor((TRANSACTION_SIZE_BUDGET - first) / repeatBytes) + 1;
    expect(refusal(() => planAcceptance({ fileIds: [13, ...ids] }, files, user, NOW))).toEqual({
      code: 'file_not_acceptable',
      fileId: ids[crossing - 1],
      message: ACCEPT_TOO_LARGE_MESSAGE,
    });
  });
});
