/**
 * How jobs and files are stored as DynamoDB items (see `tables.ts` for the keys): the job item holds
 * the job's own fields, its `fileCount` and its `version`; each file is an item of its own under the
 * job's partition.
 */
import { jobKeys } from '../tables';
import type { Job, JobFile } from './model';

export interface JobItem extends Omit<Job, 'files'> {
  pk: string;
  sk: string;
  entity: 'job';
  fileCount: number;
  /** Incremented in the same transaction as every write to the job or its files. */
  version: number;
  /**
   * The version an import last wrote. When it differs from `version`, someone else (a rejection, an
   * edit) changed the job since, and an import leaves it alone.
   */
  importedVersion?: number;
}

export interface FileItem extends JobFile {
  pk: string;
  sk: string;
  entity: 'file';
  /** The file id again, as the partition key of the sparse `byFileId` index. */
  fileId: number;
  jobId: number;
}

/** The job item of a job at a version. */
export const toJobItem = (job: Job, version: number): JobItem => {
  const { files, ...fields } = job;
  return { pk: jobKeys.pk(job.id), sk: jobKeys.jobSk, entity: 'job', ...fields, fileCount: files.length, version };
};

/** The item of one file of a job. */
export const toFileItem = (jobId: number, file: JobFile): FileItem => ({
  pk: jobKeys.pk(jobId),
  sk: jobKeys.fileSk(file.id),
  entity: 'file',
  fileId: file.id,
  jobId,
  ...file,
});

/** A file as the API models it, from its item. */
export const fromFileItem = (item: FileItem): JobFile => ({
  id: item.id,
  fileName: item.fileName,
  tags: item.tags ?? [],
  remarkToProcessor: item.remarkToProcessor ?? '',
  acceptedByUser: item.acceptedByUser ?? false,
  isRejected: item.isRejected ?? false,
  isReviewed: item.isReviewed ?? false,
  rejectionReason: item.rejectionReason ?? null,
  reviewDate: item.reviewDate ?? null,
  reviews: item.reviews ?? null,
  previousReviews: item.previousReviews ?? [],
});

/** A job as stored, with the version of its job item. */
export interface StoredJob {
  job: Job;
  version: number;
}

/** A job with its files and version, from the items of its partition (job item first or anywhere). */
export const fromItems = (items: ReadonlyArray<Record<string, unknown>>): StoredJob | undefined => {
  const jobItem = items.find((item) => item.entity === 'job') as JobItem | undefined;
  if (jobItem === undefined) return undefined;
  const files = items
    .filter((item) => item.entity === 'file')
    .map((item) => fromFileItem(item as unknown as FileItem))
    .sort((a, b) => a.id - b.id);
  const { pk: _pk, sk: _sk, entity: _entity, fileCount: _fileCount, version, ...fields } = jobItem;
  return {
    job: {
      id: fields.id,
      accountId: fields.accountId,
      accountName: fields.accountName ?? '',
      status: fields.status,
      guid: fields.guid,
      name: fields.name,
      description: fields.description ?? '',
      invoiceReference: fields.invoiceReference ?? '',
      tags: fields.tags ?? [],
      realCost: fields.realCost,
      createdDate: fields.createdDate,
      acceptedDate: fields.acceptedDate ?? null,
      orderedDate: fields.orderedDate ?? null,
      deliveredDate: fields.deliveredDate ?? null,
      reviewedDate: fields.reviewedDate ?? null,
      files,
    },
    version,
  };
};
