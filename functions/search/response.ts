/**
 * The body of a `200` POST /search answer: `{"_type": "SearchResponseBody", "totalJobs", "jobs"}` with
 * each job exactly the seed's 13-field summary, in the seed's order, datetimes in UTC with milliseconds.
 */
import type { JobSummary } from '../jobs/model/model';
import type { SearchResult } from './search-index';

/** The search response of the seed (section 2.1). */
export interface SearchResponseBody {
  _type: 'SearchResponseBody';
  /** The exact number of jobs matching the search, on every page. */
  totalJobs: number;
  /** The jobs of the requested page; empty past the last page. */
  jobs: JobSummary[];
}

/** A job summary held a value that is not a datetime: the index is corrupt, which is a server error. */
export class InvalidSummaryDateError extends Error {
  public readonly jobId: number;
  public readonly field: string;

  public constructor(jobId: number, field: string) {
    super(`Job ${jobId} has an invalid ${field} in the search index`);
    this.name = 'InvalidSummaryDateError';
    this.jobId = jobId;
    this.field = field;
  }
}

/** `2016-05-06T15:22:02.860Z` whatever offset or precision the index stored. */
const utc = (value: string, jobId: number, field: string): string => {
  const millis = Date.parse(value);
  if (Number.isNaN(millis)) throw new InvalidSummaryDateError(jobId, field);
  return new Date(millis).toISOString();
};

const nullableUtc = (value: string | null | undefined, jobId: number, field: string): string | null =>
  value === null || value === undefined ? null : utc(value, jobId, field);

/**
 * The summary exactly as the API returns it: the 13 fields and nothing else (an engine may hold more),
 * in the seed's order, unset dates `null`.
 */
export const toResponseSummary = (summary: JobSummary): JobSummary => ({
  id: summary.id,
  accountId: summary.accountId,
  status: summary.status,
  guid: summary.guid,
  name: summary.name,
  description: summary.description ?? '',
  acceptedDate: nullableUtc(summary.acceptedDate, summary.id, 'acceptedDate'),
  createdDate: utc(summary.createdDate, summary.id, 'createdDate'),
  deliveredDate: nullableUtc(summary.deliveredDate, summary.id, 'deliveredDate'),
  orderedDate: nullableUtc(summary.orderedDate, summary.id, 'orderedDate'),
  reviewedDate: nullableUtc(summary.reviewedDate, summary.id, 'reviewedDate'),
  realCost: summary.realCost,
  fileCount: summary.fileCount,
});

/** The answer body for an engine's result page. */
export const toSearchResponseBody = (result: SearchResult): SearchResponseBody => ({
  _type: 'SearchResponseBody',
  totalJobs: result.total,
  jobs: result.jobs.map(toResponseSummary),
});
