/**
 * Where each file stands in the customer's review, and the counts the job item keeps of it
 * (docs/contract.md §6a): `pending` (delivered and not yet reviewed), `rejected`, `accepted`, or none of
 * them (not delivered yet). Every file item carries its state in `reviewKey` (`<jobId>#<state>`), the
 * partition key of the sparse-by-job `byReview` index, so a page of one state reads only files of that
 * state; the job item carries the three counts, kept by every write that moves a file between states in
 * the same transaction, so `GET /jobs/{id}` is one read whatever the number of files.
 */
import type { Job, JobFile, JobStatus } from './model';
import { REVIEWABLE_STATUSES } from './model';

/** The review states a caller filters files by (`GET /jobs/{id}/files?review=`). */
export const REVIEW_FILTERS = ['pending', 'rejected', 'accepted'] as const;

export type ReviewFilter = (typeof REVIEW_FILTERS)[number];

/** Where a file stands: one of the filters, or `none` (not delivered for review yet). */
export type ReviewState = ReviewFilter | 'none';

/** Every state, in the order a listing of all files merges them (any order would do). */
export const REVIEW_STATES: readonly ReviewState[] = ['none', ...REVIEW_FILTERS];

export const isReviewFilter = (value: unknown): value is ReviewFilter =>
  typeof value === 'string' && (REVIEW_FILTERS as readonly string[]).includes(value);

/** The counts of a job's files by state (`review` in `GET /jobs/{id}`). */
export interface ReviewCounts {
  pending: number;
  rejected: number;
  accepted: number;
}

/** The job item attribute of each count (top-level numbers, so a write can `ADD` to them). */
export const COUNT_ATTRIBUTES: Readonly<Record<ReviewFilter, string>> = {
  pending: 'reviewPending',
  rejected: 'reviewRejected',
  accepted: 'reviewAccepted',
};

/**
 * Whether the files of a job as an import or the demo describe it count as delivered: the job has been
 * delivered once (`deliveredDate`) or is in review. The API's own writes set each file's state exactly.
 */
export const isDeliveredJob = (job: Pick<Job, 'deliveredDate' | 'status'>): boolean =>
  job.deliveredDate !== null || REVIEWABLE_STATUSES.includes(job.status as JobStatus);

/** The state of a file from its flags: accepted, else rejected, else pending while delivered and unreviewed. */
export const reviewStateOf = (
  file: Pick<JobFile, 'acceptedByUser' | 'isRejected' | 'isReviewed'>,
  delivered: boolean,
): ReviewState => {
  if (file.acceptedByUser) return 'accepted';
  if (file.isRejected) return 'rejected';
  return delivered && !file.isReviewed ? 'pending' : 'none';
};

/** The `byReview` partition of a job's files in a state. */
export const reviewKey = (jobId: number, state: ReviewState): string => `${jobId}#${state}`;

/** The state a `reviewKey` names, or `undefined` for anything else. */
export const stateOfReviewKey = (key: unknown): ReviewState | undefined => {
  if (typeof key !== 'string') return undefined;
  const state = key.slice(key.indexOf('#') + 1);
  return (REVIEW_STATES as readonly string[]).includes(state) ? (state as ReviewState) : undefined;
};

/** No files in any state. */
export const noCounts = (): ReviewCounts => ({ pending: 0, rejected: 0, accepted: 0 });

/** The counts of a list of file states. */
export const countStates = (states: Iterable<ReviewState>): ReviewCounts => {
  const counts = noCounts();
  for (const state of states) if (state !== 'none') counts[state] += 1;
  return counts;
};

/** How much each count changes when files move between states (`from` → `to` per file). */
export const countChanges = (moves: Iterable<{ from: ReviewState; to: ReviewState }>): ReviewCounts => {
  const delta = noCounts();
  for (const { from, to } of moves) {
    if (from === to) continue;
    if (from !== 'none') delta[from] -= 1;
    if (to !== 'none') delta[to] += 1;
  }
  return delta;
};

/** The counts stored on a job item, or `undefined` when the item predates them (any of the three missing). */
export const storedCounts = (item: Readonly<Record<string, unknown>>): ReviewCounts | undefined => {
  const read = (filter: ReviewFilter): number | undefined => {
    const value = item[COUNT_ATTRIBUTES[filter]];
    return typeof value === 'number' ? value : undefined;
  };
  const pending = read('pending');
  const rejected = read('rejected');
  const accepted = read('accepted');
  return pending === undefined || rejected === undefined || accepted === undefined
    ? undefined
    : { pending, rejected, accepted };
};

/** The job item attributes of a set of counts. */
export const countAttributes = (counts: ReviewCounts): Record<string, number> =>
  Object.fromEntries(REVIEW_FILTERS.map((filter) => [COUNT_ATTRIBUTES[filter], counts[filter]]));
