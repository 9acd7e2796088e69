/**
 * Accepting files (docs/contract.md §6a): the customer's "this one is fine", beside the rejection on the
 * same review path (`review-plan.ts`, `review-files.ts`). A file the caller may review becomes
 * `acceptedByUser`, reviewed and not rejected, with `reviewDate` now (its reviews stay as they were: the
 * history of what was asked before); its job gets `reviewedDate` now, and `CJ_FINISHED` once every file of
 * it is accepted. Accepting an accepted file again changes nothing. Refusals, in the order they are
 * checked, name the first refused file: `404 file_not_found` (unknown, or another account's), `410
 * job_archived`, `409 file_not_acceptable` (the job is not in review, or no delivery has named the file yet); then `409 file_not_acceptable` naming
 * the first file, in request order, with which the items the transaction touches would outgrow the
 * transaction size budget of `store/item-sizes.ts` (an acceptance grows no item, but DynamoDB counts each
 * touched item whole, and files with long review histories can add up past one transaction's 4 MB).
 */
import { accountScope, type Principal } from '../../auth/principal';
import { ApiError } from '../../errors';
import { type JobFile, type JobStatus, REVIEWABLE_STATUSES } from '../model/model';
import { estimatedItemSize } from '../store/item-sizes';
import {
  isUndelivered,
  planReview,
  type ReviewPlan,
  type ReviewRules,
  reviewedJobSize,
  type StoredFile,
} from './review-plan';

/** A validated accept request: 1–50 distinct file ids, in request order. */
export interface AcceptRequest {
  fileIds: number[];
}

/** One file of the answer, in request order. */
export interface AcceptedFile {
  fileId: number;
  jobId: number;
  acceptedByUser: boolean;
  reviewDate: string | null;
}

/** One distinct job of the answer, in order of first appearance, with its status afterwards. */
export interface AcceptedJob {
  id: number;
  status: JobStatus;
}

/** The `200` body of `POST /accept`. */
export interface AcceptResponseBody {
  _type: 'AcceptResponseBody';
  files: AcceptedFile[];
  jobs: AcceptedJob[];
}

/** Why a file cannot be accepted, in the order the checks run. */
export type AcceptRefusalCode = 'file_not_found' | 'job_archived' | 'file_not_acceptable';

/** The request names a file that cannot be accepted; nothing was written. */
export class FileAcceptanceRefusedError extends ApiError {
  public readonly fileId: number;

  public constructor(code: AcceptRefusalCode, fileId: number, message?: string) {
    super(code, { fileId }, message === undefined ? {} : { message });
    this.name = 'FileAcceptanceRefusedError';
    this.fileId = fileId;
  }
}

/** The message of a file id that names more than one file the caller may change. */
export const AMBIGUOUS_ACCEPT_MESSAGE =
  'The file id names more than one file you may change (file ids are unique only within a job); none was accepted.';

/** The status a job takes once every file of it is accepted. */
export const FINISHED_JOB_STATUS: JobStatus = 'CJ_FINISHED';

/** The message of a request whose files' items add up past one transaction's budget. */
export const ACCEPT_TOO_LARGE_MESSAGE =
  'The files of this request hold too much review history to be accepted together; accept fewer files per request.';

/**
 * The first reason a caller may not accept a stored file, or `undefined` when it may: a file no delivery
 * has named yet (`isUndelivered`) has nothing to accept, and accepting it could finish its job.
 */
export const acceptRefusalOf = (
  stored: StoredFile | undefined,
  principal: Pick<Principal, 'role' | 'accountId'>,
): AcceptRefusalCode | undefined => {
  const scope = accountScope(principal);
  if (stored === undefined || (scope !== undefined && stored.job.accountId !== scope)) return 'file_not_found';
  if (stored.job.status === 'CJ_ARCHIVED') return 'job_archived';
  if (!REVIEWABLE_STATUSES.includes(stored.job.status) || isUndelivered(stored)) return 'file_not_acceptable';
  return undefined;
};

/** The message of a file no delivery has named yet. */
export const UNDELIVERED_ACCEPT_MESSAGE = 'The file has not been delivered for review yet; none was accepted.';

/** The file once accepted. */
export const acceptedFile = (file: JobFile, now: string): JobFile => ({
  ...file,
  acceptedByUser: true,
  isReviewed: true,
  isRejected: false,
  rejectionReason: null,
  reviewDate: now,
});

const ACCEPT_RULES: ReviewRules<number, AcceptedFile, AcceptedJob, AcceptResponseBody> = {
  fileIdOf: (fileId) => fileId,
  check: (fileId, stored, principal) => {
    const refusal = acceptRefusalOf(stored, principal);
    if (refusal === undefined) return;
    const undelivered = refusal === 'file_not_acceptable' && stored !== undefined && isUndelivered(stored);
    throw new FileAcceptanceRefusedError(refusal, fileId, undelivered ? UNDELIVERED_ACCEPT_MESSAGE : undefined);
  },
  ambiguous: (fileId) => {
    throw new FileAcceptanceRefusedError('file_not_acceptable', fileId, AMBIGUOUS_ACCEPT_MESSAGE);
  },
  isRepeat: (file) => file.acceptedByUser,
  apply: (file, _fileId, now) => ({ after: acceptedFile(file, now), movesReview: false }),
  state: 'accepted',
  size: {
    // The item after the write (flags and a date over the item as read), or as read for a repeat (`after`
    // undefined).
    sizeOf: (item, after, job, firstOfJob, now) =>
      estimatedItemSize({ ...item, ...after }) + (firstOfJob ? reviewedJobSize(job, FINISHED_JOB_STATUS, now) : 0),
    refuseTransaction: (fileId) => {
      throw new FileAcceptanceRefusedError('file_not_acceptable', fileId, ACCEPT_TOO_LARGE_MESSAGE);
    },
  },
  jobStatus: (job, countsAfter) =>
    job.fileCount > 0 && countsAfter.accepted >= job.fileCount ? FINISHED_JOB_STATUS : undefined,
  guardsAccepted: true,
  fileAnswer: (file, jobId) => ({
    fileId: file.id,
    jobId,
    acceptedByUser: file.acceptedByUser,
    reviewDate: file.reviewDate,
  }),
  jobAnswer: (job, status) => ({ id: job.id, status }),
  response: (files, jobs) => ({ _type: 'AcceptResponseBody', files, jobs }),
};

/**
 * Decides what an accept request does, given the stored state of its files; throws
 * {@link FileAcceptanceRefusedError} for the first refused file in request order.
 */
export const planAcceptance = (
  request: AcceptRequest,
  stored: ReadonlyMap<number, StoredFile>,
  principal: Pick<Principal, 'role' | 'accountId'>,
  now: string,
  ambiguous: ReadonlySet<number> = new Set(),
): ReviewPlan<AcceptResponseBody> => planReview(ACCEPT_RULES, request.fileIds, stored, principal, now, ambiguous);
