/**
 * A job as the API answers it (`GET /jobs/{id}`, and the `job` of every `/jobs` write): every job field
 * of docs/contract.md §6 except `files`, plus `fileCount`, `version` and the `review` counts — all of it
 * from the job item alone, so a read is one GetItem whatever the file count.
 */
import { type JobItem, jobItemCounts } from './items';
import type { Job } from './model';
import { noCounts, type ReviewCounts } from './review';

/** The job of a `JobResponseBody`. */
export interface JobView extends Omit<Job, 'files'> {
  fileCount: number;
  version: number;
  review: ReviewCounts;
}

/** The `ETag` of a job at a version: the version, quoted. */
export const etagOf = (version: number): string => `"${version}"`;

/**
 * The job of a job item, its fields in the contract's order; absent optional fields take their defaults
 * (and the counts of an item written before they existed are zero).
 */
export const jobViewOf = (item: JobItem): JobView => ({
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
  review: jobItemCounts(item as unknown as Record<string, unknown>) ?? noCounts(),
});
