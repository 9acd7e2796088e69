/**
 * A job as the API answers it (`GET /jobs/{id}`, and the `job` of every `/jobs` write): every job field
 * of docs/contract.md §6 except `files`, plus `fileCount`, `version` and the `review` counts — all of it
 * from the job item alone, so a read is one GetItem whatever the file count.
 */
import type { JobItem } from './items';
import type { Job } from './model';

/** How many of a job's files wait for review, were rejected, or were accepted. */
export interface ReviewCounts {
  /** Delivered and not yet reviewed. */
  pending: number;
  /** `isRejected`. */
  rejected: number;
  /** `acceptedByUser`. */
  accepted: number;
}

/** The counts of a job none of whose files was delivered yet (a new job). */
export const NO_REVIEWS: ReviewCounts = { pending: 0, rejected: 0, accepted: 0 };

/** The job of a `JobResponseBody`. */
export interface JobView extends Omit<Job, 'files'> {
  fileCount: number;
  version: number;
  review: ReviewCounts;
}

/** The `ETag` of a job at a version: the version, quoted. */
export const etagOf = (version: number): string => `"${version}"`;

const count = (value: unknown): number => (typeof value === 'number' && Number.isSafeInteger(value) ? value : 0);

/** The job of a job item, its fields in the contract's order; absent optional fields take their defaults. */
export const jobViewOf = (item: JobItem & { review?: Partial<ReviewCounts> }): JobView => ({
  id: item.id,
  accountId: item.accountId,
  accountName: item.accountName ?? '',
  status: item.status,
  guid: item.guid,
  name: item.name,
  description: item.description ?? '',
  invoiceReference: item.invoiceReference ?? '',
  tags: item.tags ?? [],
  realCost: item.realCost,
  createdDate: item.createdDate,
  acceptedDate: item.acceptedDate ?? null,
  orderedDate: item.orderedDate ?? null,
  deliveredDate: item.deliveredDate ?? null,
  reviewedDate: item.reviewedDate ?? null,
  fileCount: item.fileCount,
  version: item.version,
  review: {
    pending: count(item.review?.pending),
    rejected: count(item.review?.rejected),
    accepted: count(item.review?.accepted),
  },
});
