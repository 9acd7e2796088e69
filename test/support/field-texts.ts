/**
 * The raw texts of a job each text search field searches (docs/contract.md §3), read from the job itself.
 * Reference code for tests and the benchmarks' answer checks: it shares nothing with how the engines
 * build their documents, so a mistake there cannot hide behind the same mistake here.
 */
import type { Job } from '../../functions/jobs/model/model';
import type { TextFieldId } from '../../functions/search/query-text';

export const FIELD_TEXTS: Record<TextFieldId, (job: Job) => readonly string[]> = {
  AccountName: (job) => [job.accountName],
  JobName: (job) => [job.name],
  FileName: (job) => job.files.map((file) => file.fileName),
  JobInstruction: (job) => [job.description],
  JobTags: (job) => job.tags,
  FileTags: (job) => job.files.flatMap((file) => file.tags),
  FileInstruction: (job) => job.files.map((file) => file.remarkToProcessor),
  InvoiceReference: (job) => [job.invoiceReference],
};
