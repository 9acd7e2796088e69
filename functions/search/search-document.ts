/**
 * The one place a job becomes a search document: the summary search returns, and every text a search
 * field reads (docs/contract.md §3). Writers of the index (the stream indexer, `reindex`) build through
 * {@link checkedSearchDocument}, which refuses a job the table holds in a malformed shape (a field missing
 * or of the wrong type, from an edit outside the API) with an error about that job alone, so one bad item
 * never fails the bulk write of the jobs around it.
 */
import { searchDocumentProblem } from './document-check';
import type { SearchDocument } from './search-index';
import type { Job, JobSummary } from '../jobs/model/model';

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

/** A job the table holds in a shape no valid search document can be built from. */
export class MalformedJobError extends Error {
  public readonly jobId: number;

  public constructor(jobId: number, problem: string, cause?: unknown) {
    super(`Job ${jobId} is malformed: ${problem}`, { cause });
    this.name = 'MalformedJobError';
    this.jobId = jobId;
  }
}

/**
 * The search document of a job at a version, checked field by field.
 *
 * @throws {@link MalformedJobError} when the job's fields do not have the shape of the contract.
 */
export const checkedSearchDocument = (job: Job, version: number): SearchDocument => {
  let document: SearchDocument;
  try {
    document = toSearchDocument(job, version);
  } catch (error) {
    throw new MalformedJobError(job.id, error instanceof Error ? error.message : String(error), error);
  }
  const problem = searchDocumentProblem(document);
  if (problem !== undefined) throw new MalformedJobError(job.id, problem);
  return document;
};
