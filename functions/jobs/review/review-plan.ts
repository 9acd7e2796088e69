/**
 * The customer's review of edited files — `POST /reject` and `POST /accept` (docs/contract.md §5, §6a) —
 * as one plan: for each requested file, in request order, refuse it, repeat it (its review already is what
 * the request asks: nothing to write) or change it; group the changes by job with the job's new status and
 * the moves between review states, which keep the job item's `review` counts. The rules of each action
 * (`reject.ts`, `accept.ts`) say what refuses, what repeats and what a file becomes; this module decides
 * the rest once for both, and `review-transaction.ts` writes the plan as one conditional transaction.
 */
import type { Principal } from '../../auth/principal';
import type { FileItem } from '../store/items';
import type { JobFile, JobStatus } from '../model/model';
import { estimatedItemSize, TRANSACTION_SIZE_BUDGET } from '../store/item-sizes';
import { countChanges, type ReviewCounts, type ReviewState, reviewStateOf, stateOfReviewKey } from '../model/review';

/**
 * The job fields a review reads: who owns it, where it is in its lifecycle, its version, its files' review
 * counts (a job as stored, with its files, is `StoredJob` of `items.ts`).
 */
export interface JobSnapshot {
  id: number;
  accountId: number;
  status: JobStatus;
  version: number;
  /** The estimated stored size of the job item as read (`estimatedItemSize`), in bytes. */
  itemBytes: number;
  /** How many files the job has. */
  fileCount: number;
  /** The review counts as read (counted from the files when the item predates them). */
  counts: ReviewCounts;
  /** Whether the job item stores its counts (`false`: counted from the partition, written whole). */
  countsStored: boolean;
}

/** A file as read, with its job and its raw item (the item guards the conditional write). */
export interface StoredFile {
  job: JobSnapshot;
  file: JobFile;
  item: FileItem;
}

/** One file to write: the item as read (the write's guard), the file after the review, and its move. */
export interface FileChange {
  before: FileItem;
  after: JobFile;
  from: ReviewState;
  to: ReviewState;
  /** Whether a new review replaces the current one, which (when there is one) moves to `previousReviews`. */
  movesReview: boolean;
}

/** A job with at least one file to change. */
export interface JobChange {
  job: JobSnapshot;
  files: FileChange[];
  /** The status the job takes, or `undefined` when the review leaves it as it is. */
  status: JobStatus | undefined;
  /** How much each review count changes. */
  countChanges: ReviewCounts;
  /**
   * Whether the write must find the accepted count as read: the new status depends on it (the job
   * finishes, or does not, by the count of accepted files).
   */
  guardAccepted: boolean;
}

/** Everything one request writes, grouped by job, and the answer once it is written. */
export interface ReviewPlan<TResponse> {
  changedJobs: JobChange[];
  /** Jobs whose requested files are all unchanged repeats, in a request that changes other jobs. */
  unchangedJobs: JobSnapshot[];
  /**
   * Files that repeat their current review, in a request that changes other files: the write checks that
   * each is still as read, so the answer given for them is still true when it commits.
   */
  unchangedFiles: FileItem[];
  response: TResponse;
}

/** The review state of a file item as stored (its `reviewKey`, or its flags on an older item). */
export const storedState = (item: FileItem, file: JobFile): ReviewState =>
  stateOfReviewKey(item.reviewKey) ?? reviewStateOf(file, true);

/**
 * Whether no delivery has named the file yet, so it has nothing to review: it is in no review state
 * (neither pending, rejected nor accepted) and was never reviewed. A file created through the API starts
 * so and leaves it only by a delivery naming it (then pending), after which a review moves it between
 * pending, rejected and accepted and never back. A file an import or the demo wrote as delivered is
 * pending when unreviewed and keeps `isReviewed` when reviewed (`isDeliveredJob`, `reviewStateOf`), so it
 * is never taken for one no delivery has named.
 */
export const isUndelivered = (stored: Pick<StoredFile, 'item' | 'file'>): boolean =>
  storedState(stored.item, stored.file) === 'none' && !stored.file.isReviewed;

/**
 * An upper bound of a job item's size once a review has written it: the item as read, plus its `status`,
 * `reviewedDate` and next version as a review sets them (a count the review changes stays as many bytes).
 */
export const reviewedJobSize = (job: JobSnapshot, status: JobStatus, now: string): number =>
  job.itemBytes + estimatedItemSize({ status, reviewedDate: now, version: job.version + 1 });

/** How a review action bounds the size of its writes. */
export interface SizeRules {
  /**
   * The bytes a file adds to the transaction (its item after the write, or as read for a repeat, and its
   * job's item once); throws when the file's item would be too large.
   */
  sizeOf: (item: FileItem, after: JobFile | undefined, job: JobSnapshot, firstOfJob: boolean, now: string) => number;
  /**
   * Refuses the request: with this file's bytes (in request order), the transaction's estimated size,
   * `bytes`, outgrows {@link TRANSACTION_SIZE_BUDGET}.
   */
  refuseTransaction: (fileId: number, bytes: number) => never;
}

/** What one review action (reject, accept) decides for the shared plan. */
export interface ReviewRules<TEntry, TFileAnswer, TJobAnswer, TResponse> {
  fileIdOf: (entry: TEntry) => number;
  /** Throws the action's refusal for a file that may not be reviewed (`undefined`: not found or not visible). */
  check: (fileId: number, stored: StoredFile | undefined, principal: Pick<Principal, 'role' | 'accountId'>) => void;
  /** Throws the action's refusal for a file id that names several files the caller may change. */
  ambiguous: (fileId: number) => never;
  /** Whether the file already is what the entry asks (then nothing is written for it). */
  isRepeat: (file: JobFile, entry: TEntry) => boolean;
  /** The file after the review, and whether its current review moves to the history. */
  apply: (file: JobFile, entry: TEntry, now: string) => { after: JobFile; movesReview: boolean };
  /** The state a reviewed file is in afterwards. */
  state: ReviewState;
  /** How the action bounds the size of what it writes. */
  size: SizeRules;
  /** The status a changed job takes (`undefined`: unchanged), given its counts after the change. */
  jobStatus: (job: JobSnapshot, countsAfter: ReviewCounts) => JobStatus | undefined;
  /** Whether the job's new status depends on its accepted count (then the write guards it). */
  guardsAccepted: boolean;
  fileAnswer: (file: JobFile, jobId: number) => TFileAnswer;
  jobAnswer: (job: JobSnapshot, status: JobStatus) => TJobAnswer;
  response: (files: TFileAnswer[], jobs: TJobAnswer[]) => TResponse;
}

const addCounts = (a: ReviewCounts, b: ReviewCounts): ReviewCounts => ({
  pending: a.pending + b.pending,
  rejected: a.rejected + b.rejected,
  accepted: a.accepted + b.accepted,
});

/**
 * Decides what a review request does, given the stored state of its files (keyed by file id;
 * `ambiguous` lists the file ids that name more than one file within the caller's accounts). Throws the
 * action's refusal for the first refused file in request order; otherwise returns the writes (none when
 * every file repeats) and the answer.
 */
export const planReview = <TEntry, TFileAnswer, TJobAnswer, TResponse>(
  rules: ReviewRules<TEntry, TFileAnswer, TJobAnswer, TResponse>,
  entries: readonly TEntry[],
  stored: ReadonlyMap<number, StoredFile>,
  principal: Pick<Principal, 'role' | 'accountId'>,
  now: string,
  ambiguous: ReadonlySet<number> = new Set(),
): ReviewPlan<TResponse> => {
  const changes = new Map<number, { job: JobSnapshot; files: FileChange[] }>();
  const jobs = new Map<number, JobSnapshot>();
  const repeats: FileItem[] = [];
  const { size } = rules;
  const shares: Array<{ fileId: number; bytes: number }> = [];
  const answers: TFileAnswer[] = entries.map((entry) => {
    const fileId = rules.fileIdOf(entry);
    if (ambiguous.has(fileId)) rules.ambiguous(fileId);
    const found = stored.get(fileId);
    rules.check(fileId, found, principal);
    const { job, file, item } = found!;
    const firstOfJob = !jobs.has(job.id);
    if (firstOfJob) jobs.set(job.id, job);
    if (rules.isRepeat(file, entry)) {
      repeats.push(item);
      shares.push({ fileId, bytes: size.sizeOf(item, undefined, job, firstOfJob, now) });
      return rules.fileAnswer(file, job.id);
    }
    const { after, movesReview } = rules.apply(file, entry, now);
    const change: FileChange = { before: item, after, from: storedState(item, file), to: rules.state, movesReview };
    shares.push({ fileId, bytes: size.sizeOf(item, after, job, firstOfJob, now) });
    const entryOfJob = changes.get(job.id) ?? { job, files: [] };
    entryOfJob.files.push(change);
    changes.set(job.id, entryOfJob);
    return rules.fileAnswer(after, job.id);
  });
  const changedJobs: JobChange[] = [...changes.values()].map(({ job, files }) => {
    const delta = countChanges(files);
    return {
      job,
      files,
      status: rules.jobStatus(job, addCounts(job.counts, delta)),
      countChanges: delta,
      guardAccepted: rules.guardsAccepted,
    };
  });
  if (changedJobs.length > 0) {
    let total = 0;
    for (const { fileId, bytes } of shares) {
      total += bytes;
      if (total > TRANSACTION_SIZE_BUDGET) size.refuseTransaction(fileId, total);
    }
  }
  const statusOf = new Map(changedJobs.map((change) => [change.job.id, change.status ?? change.job.status]));
  return {
    changedJobs,
    unchangedJobs: changedJobs.length === 0 ? [] : [...jobs.values()].filter((job) => !changes.has(job.id)),
    unchangedFiles: changedJobs.length === 0 ? [] : repeats,
    response: rules.response(
      answers,
      [...jobs.values()].map((job) => rules.jobAnswer(job, statusOf.get(job.id) ?? job.status)),
    ),
  };
};
