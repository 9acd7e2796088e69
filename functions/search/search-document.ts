/**
 * The one place a job becomes a search document: the summary search returns, and every text a search
 * field reads (docs/contract.md §3).
 */
import type { SearchDocument } from './search-index';
import type { Job, JobSummary } from '../jobs/model';

/** The seed's 13-field job summary of a job, in the seed's field order. */
export const toJobSummary = (job: Job): JobSummary => ({
  id: job.id,
  accountId: job.accountId,
  status: job.status,
  guid: job.guid,
  name: job.name,
  description: job.description,
  acceptedDate: job.acceptedDate,
  createdDate: job.createdDate,
  deliveredDate: job.deliveredDate,
  orderedDate: job.orderedDate,
  reviewedDate: job.reviewedDate,
  realCost: job.realCost,
  fileCount: job.files.length,
});

/** Builds the search document of a job at a version. */
export const toSearchDocument = (job: Job, version: number): SearchDocument => ({
  summary: toJobSummary(job),
  version,
  accountName: job.accountName,
  invoiceReference: job.invoiceReference,
  jobTags: job.tags,
  fileNames: job.files.map((file) => file.fileName),
  fileTags: job.files.flatMap((file) => file.tags),
  fileInstructions: job.files.map((file) => file.remarkToProcessor).filter((text) => text.length > 0),
});
