/**
 * A job as `GET /jobs/{id}` answers it (docs/contract.md §6a): every job field of §6 except `files`, then
 * `fileCount`, `version` and `review` (the counts of its files by review state), read from the job item
 * alone. `POST /jobs` and `PATCH /jobs/{id}` answer the same view.
 */
import { type JobItem, jobFieldsOf } from './items';
import type { Job } from '../model/model';
import { type ReviewCounts, storedCounts } from '../model/review';

/** The `job` of a `JobResponseBody`. */
export interface JobView extends Omit<Job, 'files'> {
  fileCount: number;
  version: number;
  review: ReviewCounts;
}

/** The `200` body of `GET /jobs/{id}` (and of the writes that answer the job). */
export interface JobResponseBody {
  _type: 'JobResponseBody';
  job: JobView;
}

/**
 * The view of a job item. `counts` stands in for the counts of an item written before they existed
 * (the caller counts its files); an item that has them uses its own.
 */
export const jobView = (item: JobItem, counts?: ReviewCounts): JobView => ({
  ...jobFieldsOf(item),
  fileCount: item.fileCount,
  version: item.version,
  review: storedCounts(item as unknown as Record<string, unknown>) ??
    counts ?? { pending: 0, rejected: 0, accepted: 0 },
});

/** The entity tag of a job at a version: `"<version>"`. */
export const jobETag = (version: number): string => `"${version}"`;
