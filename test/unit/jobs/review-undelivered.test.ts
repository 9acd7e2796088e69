/**
 * A file no delivery has named yet has nothing to review (docs/contract.md §5, §6a): `POST /reject` answers
 * `409 file_not_rejectable` and `POST /accept` `409 file_not_acceptable` naming it, all or nothing, whatever
 * the status of its job. A file created through the API is stored so (in no review state, never reviewed)
 * until a delivery names it; a file an import or the demo wrote for a delivered job is not, reviewed or not,
 * so imported jobs in review keep being reviewed.
 */
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../../functions/auth/principal';
import {
  acceptRefusalOf,
  FileAcceptanceRefusedError,
  planAcceptance,
  UNDELIVERED_ACCEPT_MESSAGE,
} from '../../../functions/jobs/review/accept';
import { type FileItem, toFileItem, toFileItems } from '../../../functions/jobs/store/items';
import { type Job, type JobFile, REVIEWABLE_STATUSES, unreviewedFile } from '../../../functions/jobs/model/model';
import {
  FileRejectionRefusedError,
  planRejection,
  refusalOf,
  UNDELIVERED_REJECT_MESSAGE,
} from '../../../functions/jobs/review/reject';
import { isUndelivered, type JobSnapshot, type StoredFile } from '../../../functions/jobs/review/review-plan';
import { reviewedJob } from './reject-fixture';

const NOW = '2024-03-01T10:00:00.000Z';
const user: Pick<Principal, 'role' | 'accountId'> = { role: 'user', accountId: 10 };
const operator: Pick<Principal, 'role' | 'accountId'> = { role: 'operator', accountId: 1 };

const snapshot = (overrides: Partial<JobSnapshot> = {}): JobSnapshot => ({
  id: 5,
  accountId: 10,
  status: 'CJ_REVIEWING',
  version: 3,
  itemBytes: 300,
  fileCount: 2,
  counts: { pending: 1, rejected: 0, accepted: 0 },
  countsStored: true,
  ...overrides,
});

const file = (id: number, overrides: Partial<JobFile> = {}): JobFile =>
  unreviewedFile({ id, fileName: `file_${id}.jpg`, ...overrides });

/** A file as `POST /jobs` stores it, no delivery having named it since. */
const undelivered = (id: number, job = snapshot()): StoredFile => {
  const created = file(id);
  return { job, file: created, item: toFileItem(job.id, created) };
};

/** A file a delivery has named: pending review. */
const delivered = (id: number, job = snapshot()): StoredFile => {
  const sent = file(id);
  return { job, file: sent, item: toFileItem(job.id, sent, true) };
};

/** The stored files of a job as an import writes it. */
const imported = (job: Job): StoredFile[] => {
  const snap = snapshot({ id: job.id, status: job.status, fileCount: job.files.length });
  return toFileItems(job).map((item: FileItem, index) => ({ job: snap, file: job.files[index]!, item }));
};

/** A job an import wrote (the reject tests' job under another id and name), with the given changes. */
const importedJob = (overrides: Partial<Job>): Job => ({
  ...reviewedJob,
  id: 9,
  accountName: '',
  name: 'Imported',
  files: [],
  ...overrides,
});

const thrown = (run: () => unknown): unknown => {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('the request was not refused');
};

describe('a file no delivery has named', () => {
  it('is one created through the API and not yet delivered, and no longer once a delivery names it', () => {
    expect(isUndelivered(undelivered(1))).toBe(true);
    expect(isUndelivered(delivered(1))).toBe(false);
  });

  it.each(REVIEWABLE_STATUSES)(
    'answers file_not_rejectable and file_not_acceptable in a job in %s, to a user and an operator',
    (status) => {
      const stored = undelivered(1, snapshot({ status }));
      for (const principal of [user, operator]) {
        expect(refusalOf(stored, principal)).toBe('file_not_rejectable');
        expect(acceptRefusalOf(stored, principal)).toBe('file_not_acceptable');
      }
    },
  );

  it('still answers file_not_found to another account’s user, and job_archived in an archived job', () => {
    const foreign = undelivered(1, snapshot({ accountId: 11 }));
    expect(refusalOf(foreign, user)).toBe('file_not_found');
    expect(acceptRefusalOf(foreign, user)).toBe('file_not_found');
    const archived = undelivered(1, snapshot({ status: 'CJ_ARCHIVED' }));
    expect(refusalOf(archived, user)).toBe('job_archived');
    expect(acceptRefusalOf(archived, user)).toBe('job_archived');
  });

  it('refuses an acceptance naming it, all or nothing, naming it with a message that says why', () => {
    // The delivered file 1 first: the request is refused whole, for file 2, and plans nothing.
    const stored = new Map([
      [1, delivered(1)],
      [2, undelivered(2)],
    ]);
    const error = thrown(() => planAcceptance({ fileIds: [1, 2] }, stored, user, NOW));
    expect(error).toBeInstanceOf(FileAcceptanceRefusedError);
    expect(error).toMatchObject({ code: 'file_not_acceptable', fileId: 2, message: UNDELIVERED_ACCEPT_MESSAGE });
  });

  it('never finishes a job by accepting it: the job with one delivered, accepted file stays in review', () => {
    const job = snapshot({ counts: { pending: 0, rejected: 0, accepted: 1 } });
    const error = thrown(() => planAcceptance({ fileIds: [2] }, new Map([[2, undelivered(2, job)]]), user, NOW));
    expect(error).toMatchObject({ code: 'file_not_acceptable', fileId: 2 });
  });

  it('refuses a rejection naming it, all or nothing, naming it with a message that says why', () => {
    const stored = new Map([
      [1, delivered(1)],
      [2, undelivered(2)],
    ]);
    const request = {
      files: [1, 2].map((fileId) => ({ fileId, customRejection: 'Too dark', rejects: [] })),
    };
    const error = thrown(() => planRejection(request, stored, user, NOW));
    expect(error).toBeInstanceOf(FileRejectionRefusedError);
    expect(error).toMatchObject({ code: 'file_not_rejectable', fileId: 2, message: UNDELIVERED_REJECT_MESSAGE });
  });

  it('keeps the contract’s message for a job not in review', () => {
    const stored = new Map([[1, undelivered(1, snapshot({ status: 'CJ_WORK_PROGRESS' }))]]);
    expect(thrown(() => planAcceptance({ fileIds: [1] }, stored, user, NOW))).toMatchObject({
      code: 'file_not_acceptable',
      message: UNDELIVERED_ACCEPT_MESSAGE,
    });
    const reviewed = new Map([[1, delivered(1, snapshot({ status: 'CJ_WORK_PROGRESS' }))]]);
    expect(thrown(() => planAcceptance({ fileIds: [1] }, reviewed, user, NOW))).toMatchObject({
      code: 'file_not_acceptable',
      message: 'The file cannot be accepted in its current state.',
    });
  });
});

describe('files an import wrote for a job in review', () => {
  const job = importedJob({
    files: [
      file(1),
      file(2, { isReviewed: true }),
      file(3, { isReviewed: true, isRejected: true, rejectionReason: 'Dark' }),
      file(4, { isReviewed: true, acceptedByUser: true }),
    ],
  });

  it('count as delivered, reviewed or not', () => {
    expect(imported(job).map(isUndelivered)).toEqual([false, false, false, false]);
  });

  it('can be accepted and rejected as before', () => {
    const stored = new Map(imported(job).map((one) => [one.file.id, one]));
    expect(planAcceptance({ fileIds: [1, 2, 3, 4] }, stored, user, NOW).response.files).toHaveLength(4);
    const request = { files: [1, 2, 3].map((fileId) => ({ fileId, customRejection: 'Redo', rejects: [] })) };
    expect(planRejection(request, stored, user, NOW).response.files).toHaveLength(3);
  });

  it('of a job delivered before (deliveredDate) and now back at work count as delivered too', () => {
    const again = importedJob({
      status: 'CJ_REJECT_READY',
      deliveredDate: '2024-01-02T00:00:00.000Z',
      files: [file(1)],
    });
    expect(imported(again).map(isUndelivered)).toEqual([false]);
  });
});
