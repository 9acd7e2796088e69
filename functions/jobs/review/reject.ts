/**
 * Rejecting files (docs/contract.md §5): find each file, check that the caller may reject it, and apply
 * every file and job change in one conditional DynamoDB transaction — all or nothing, never
 * overwriting a concurrent change, and a repeat of the same review changes nothing.
 *
 * This module holds the pure rules (what a rejection does to a file and its job, which file refuses
 * first, whether the writes fit DynamoDB's size limits, `store/item-sizes.ts`), the response and the
 * errors. `reject-transaction.ts` turns a plan into the conditional transaction, and `reject-files.ts`
 * is the use case {@link RejectFiles}, which finds, reads, decides and writes, retrying the whole
 * read-check-write when a concurrent writer got there first.
 */
import type { Principal } from '../../auth/principal';
import { accountScope } from '../../auth/principal';
import { DYNAMODB } from '../../aws/failures';
import { ApiError, DependencyUnavailableError } from '../../errors';
import type { FileItem } from '../store/items';
import {
  isUndelivered,
  planReview,
  type ReviewPlan,
  type ReviewRules,
  reviewedJobSize,
  type StoredFile,
} from './review-plan';
import {
  type JobFile,
  type JobStatus,
  MAX_PREVIOUS_REVIEWS,
  REVIEWABLE_STATUSES,
  type RejectReason,
  type Review,
} from '../model/model';
import type { FileRejection, RejectRequest } from '../model/model';
import { estimatedItemSize, ITEM_SIZE_BUDGET, TRANSACTION_SIZE_BUDGET } from '../store/item-sizes';

export { attributeValueBytes, estimatedItemSize, ITEM_SIZE_BUDGET, TRANSACTION_SIZE_BUDGET } from '../store/item-sizes';
export type { FileChange, JobSnapshot, StoredFile } from './review-plan';

// ---------------------------------------------------------------------------------------------------
// The response
// ---------------------------------------------------------------------------------------------------

/** One file of the response, in request order. */
export interface RejectedFile {
  fileId: number;
  jobId: number;
  isRejected: boolean;
  rejectionReason: string | null;
  reviewDate: string | null;
}

/** One distinct job of the response, in order of first appearance. */
export interface RejectedJob {
  id: number;
  status: JobStatus;
}

/** The `200` body of `POST /reject`. */
export interface RejectResponseBody {
  _type: 'RejectResponseBody';
  files: RejectedFile[];
  jobs: RejectedJob[];
}

// ---------------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------------

/** Why a file cannot be rejected, in the order the checks run. */
export type RejectRefusalCode = 'file_not_found' | 'job_archived' | 'file_not_rejectable';

/**
 * The request names a file that cannot be rejected; nothing was written. Answered with the code's
 * status and the offending `fileId`.
 */
export class FileRejectionRefusedError extends ApiError {
  public readonly fileId: number;

  public constructor(code: RejectRefusalCode, fileId: number, message?: string) {
    super(code, { fileId }, message === undefined ? {} : { message });
    this.name = 'FileRejectionRefusedError';
    this.fileId = fileId;
  }
}

/** Which DynamoDB size limit a rejection would break: one item's, or the whole transaction's. */
export type RejectSizeLimit = 'item' | 'transaction';

/**
 * The message of a file id that names more than one file the caller may change. File ids are unique only
 * within a job, and the request names no job, so such a file is refused rather than guessed.
 */
export const AMBIGUOUS_FILE_MESSAGE =
  'The file id names more than one file you may change (file ids are unique only within a job); none was rejected.';

const SIZE_REFUSAL_MESSAGES: Record<RejectSizeLimit, string> = {
  item: "The file's review history is too large to store another review.",
  transaction:
    'The files of this request hold too much review history to be rejected together; reject fewer files per request.',
};

/**
 * Writing the rejection would break a DynamoDB size limit: the file's item would outgrow
 * {@link ITEM_SIZE_BUDGET}, or the request's transaction would outgrow {@link TRANSACTION_SIZE_BUDGET}
 * once this file is added. Answered as `409 file_not_rejectable` naming the file; nothing was written.
 */
export class RejectionTooLargeError extends FileRejectionRefusedError {
  public readonly limit: RejectSizeLimit;
  /** The estimated size that broke the budget, in bytes. */
  public readonly estimatedBytes: number;
  public readonly budgetBytes: number;

  public constructor(limit: RejectSizeLimit, fileId: number, estimatedBytes: number, budgetBytes: number) {
    super('file_not_rejectable', fileId, SIZE_REFUSAL_MESSAGES[limit]);
    this.name = 'RejectionTooLargeError';
    this.limit = limit;
    this.estimatedBytes = estimatedBytes;
    this.budgetBytes = budgetBytes;
  }
}

/**
 * Concurrent writers kept invalidating what this request read, through every attempt: answered as
 * `503 service_unavailable` (nothing was written; retrying later is safe).
 */
export class RejectContentionError extends DependencyUnavailableError {
  public readonly attempts: number;

  public constructor(attempts: number, cause?: unknown) {
    super(DYNAMODB, cause, 1);
    this.name = 'RejectContentionError';
    this.attempts = attempts;
  }
}

// ---------------------------------------------------------------------------------------------------
// Pure rules
// ---------------------------------------------------------------------------------------------------

/** `" - " + reasons joined by " - "`, or the custom rejection when there are no reasons. */
export const rejectionReasonOf = (review: Pick<Review, 'customRejection' | 'rejects'>): string | null =>
  review.rejects.length > 0
    ? ` - ${review.rejects.map((reject) => reject.reason).join(' - ')}`
    : review.customRejection;

const normalisedCustomRejection = (text: string | null | undefined): string | null =>
  text === null || text === undefined || text.trim().length === 0 ? null : text;

const sameRejects = (stored: readonly RejectReason[], requested: readonly RejectReason[]): boolean =>
  stored.length === requested.length &&
  stored.every((reject, index) => {
    const other = requested[index]!;
    const positions = reject.positions ?? [];
    return (
      reject.reason === other.reason &&
      positions.length === other.positions.length &&
      positions.every(
        (position, at) =>
          position.xPercent === other.positions[at]!.xPercent && position.yPercent === other.positions[at]!.yPercent,
      )
    );
  });

/** Whether the file is already rejected with exactly this review (then rejecting again is a no-op). */
export const isSameRejection = (file: JobFile, rejection: FileRejection): boolean =>
  file.isRejected &&
  file.reviews !== null &&
  normalisedCustomRejection(file.reviews.customRejection) === rejection.customRejection &&
  sameRejects(file.reviews.rejects ?? [], rejection.rejects);

/**
 * The first reason a caller may not reject a stored file, or `undefined` when it may. A user asking for
 * another account's file is told it does not exist; a file no delivery has named yet (`isUndelivered`)
 * has nothing to reject.
 */
export const refusalOf = (
  stored: StoredFile | undefined,
  principal: Pick<Principal, 'role' | 'accountId'>,
): RejectRefusalCode | undefined => {
  const scope = accountScope(principal);
  if (stored === undefined || (scope !== undefined && stored.job.accountId !== scope)) return 'file_not_found';
  if (stored.job.status === 'CJ_ARCHIVED') return 'job_archived';
  if (!REVIEWABLE_STATUSES.includes(stored.job.status) || stored.file.acceptedByUser || isUndelivered(stored)) {
    return 'file_not_rejectable';
  }
  return undefined;
};

/** The message of a file no delivery has named yet. */
export const UNDELIVERED_REJECT_MESSAGE = 'The file has not been delivered for review yet; none was rejected.';

/** The file after the rejection: the new review current, the earlier one kept in `previousReviews`. */
export const rejectedFile = (file: JobFile, rejection: FileRejection, now: string): JobFile => {
  const review: Review = { customRejection: rejection.customRejection, rejects: rejection.rejects, reviewDate: now };
  return {
    ...file,
    isRejected: true,
    isReviewed: true,
    reviewDate: now,
    rejectionReason: rejectionReasonOf(review),
    reviews: review,
    previousReviews: (file.reviews === null ? file.previousReviews : [...file.previousReviews, file.reviews]).slice(
      -MAX_PREVIOUS_REVIEWS,
    ),
  };
};

/** Everything one rejection writes, grouped by job. */
export type RejectPlan = ReviewPlan<RejectResponseBody>;

/** The status a job takes when one of its files is rejected. */
export const REJECTED_JOB_STATUS: JobStatus = 'CJ_REJECT_READY';

/**
 * The estimated stored size of a file item after the rejection: the item as read with the file's new
 * state over it (other attributes of the item are kept by the update, so they count too).
 */
export const rejectedItemSize = (before: FileItem, after: JobFile): number =>
  estimatedItemSize({ ...before, ...after });

/** The rules of a rejection for the shared review plan. */
const REJECT_RULES: ReviewRules<FileRejection, RejectedFile, RejectedJob, RejectResponseBody> = {
  fileIdOf: (rejection) => rejection.fileId,
  check: (fileId, stored, principal) => {
    const refusal = refusalOf(stored, principal);
    if (refusal === undefined) return;
    const undelivered = refusal === 'file_not_rejectable' && stored !== undefined && isUndelivered(stored);
    throw new FileRejectionRefusedError(refusal, fileId, undelivered ? UNDELIVERED_REJECT_MESSAGE : undefined);
  },
  ambiguous: (fileId) => {
    throw new FileRejectionRefusedError('file_not_rejectable', fileId, AMBIGUOUS_FILE_MESSAGE);
  },
  isRepeat: isSameRejection,
  // The new review replaces the current one, which moves to the history.
  apply: (file, rejection, now) => ({ after: rejectedFile(file, rejection, now), movesReview: true }),
  state: 'rejected',
  size: {
    sizeOf: (item, after, job, firstOfJob, now) => {
      const jobBytes = firstOfJob ? reviewedJobSize(job, REJECTED_JOB_STATUS, now) : 0;
      if (after === undefined) return estimatedItemSize(item) + jobBytes;
      const bytes = rejectedItemSize(item, after);
      if (bytes > ITEM_SIZE_BUDGET) throw new RejectionTooLargeError('item', after.id, bytes, ITEM_SIZE_BUDGET);
      return bytes + jobBytes;
    },
    refuseTransaction: (fileId, bytes) => {
      throw new RejectionTooLargeError('transaction', fileId, bytes, TRANSACTION_SIZE_BUDGET);
    },
  },
  jobStatus: () => REJECTED_JOB_STATUS,
  guardsAccepted: false,
  fileAnswer: (file, jobId) => ({
    fileId: file.id,
    jobId,
    isRejected: file.isRejected,
    rejectionReason: file.rejectionReason ?? (file.reviews === null ? null : rejectionReasonOf(file.reviews)),
    reviewDate: file.reviewDate ?? file.reviews?.reviewDate ?? null,
  }),
  jobAnswer: (job, status) => ({ id: job.id, status }),
  response: (files, jobs) => ({ _type: 'RejectResponseBody', files, jobs }),
};

/**
 * Decides what a request does, given the stored state of its files (keyed by file id; `ambiguous` lists
 * the file ids that name more than one file within the caller's accounts). Throws
 * {@link FileRejectionRefusedError} for the first refused file in request order — one that may not be
 * rejected, names several files, or whose item would outgrow {@link ITEM_SIZE_BUDGET} — and {@link RejectionTooLargeError}
 * when the request's transaction would outgrow {@link TRANSACTION_SIZE_BUDGET}; otherwise returns the
 * writes (none when every file repeats its current review) and the response.
 */
export const planRejection = (
  request: RejectRequest,
  stored: ReadonlyMap<number, StoredFile>,
  principal: Pick<Principal, 'role' | 'accountId'>,
  now: string,
  ambiguous: ReadonlySet<number> = new Set(),
): RejectPlan => planReview(REJECT_RULES, request.files, stored, principal, now, ambiguous);
