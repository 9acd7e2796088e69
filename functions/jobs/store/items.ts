/**
 * How jobs and files are stored as DynamoDB items (see `tables.ts` for the keys): the job item holds
 * the job's own fields, its `fileCount`, its `version` and the counts of its files by review state
 * (`review.ts`); each file is an item of its own under the job's partition, carrying its review state in
 * `reviewKey`.
 */
import type { FileImages } from '../../images/file-images';
import { FILE_KEYS, jobKeys } from '../../tables';
import type { Job, JobFile } from '../model/model';
import { effectiveFileItem, pendingDelivery } from './pending-delivery';
import {
  countAttributes,
  countStates,
  isDeliveredJob,
  type ReviewCounts,
  reviewKey,
  reviewStateOf,
  storedCounts,
} from '../model/review';

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
  /**
   * `padded` once every file of the job has its padded sort key (`tables.ts`): every job item written from
   * its files as they are written now, and every job the migration moved.
   */
  fileKeys?: typeof FILE_KEYS.padded;
  /** The counts of the job's files by review state (absent on items written before they existed). */
  reviewPending?: number;
  reviewRejected?: number;
  reviewAccepted?: number;
  /**
   * A committed delivery whose files may not all be written yet, and its file ids (`pending-delivery.ts`);
   * absent once every file is.
   */
  deliveryCommitted?: string;
  deliveryFileIds?: number[];
}

/** A file item: the file, its keys, and what the images function recorded of its pictures (`file-images.ts`). */
export interface FileItem extends JobFile, FileImages {
  pk: string;
  sk: string;
  entity: 'file';
  /** The file id again, as the partition key of the sparse `byFileId` index. */
  fileId: number;
  jobId: number;
  /** `<jobId>#<state>`: the file's review state, the partition key of the `byReview` index. */
  reviewKey: string;
}

/** The review counts of a job as an import or the demo describes it (see `isDeliveredJob`). */
export const reviewCountsOf = (job: Job): ReviewCounts => {
  const delivered = isDeliveredJob(job);
  return countStates(job.files.map((file) => reviewStateOf(file, delivered)));
};

/** The job item of a job at a version, with the review counts of its files. */
export const toJobItem = (job: Job, version: number): JobItem => {
  const { files, ...fields } = job;
  return {
    pk: jobKeys.pk(job.id),
    sk: jobKeys.jobSk,
    entity: 'job',
    ...fields,
    fileCount: files.length,
    version,
    ...countAttributes(reviewCountsOf(job)),
    [FILE_KEYS.attribute]: FILE_KEYS.padded,
  };
};

/**
 * The item of one file of a job. `delivered` says whether an unreviewed file awaits review (its job has
 * been delivered, `isDeliveredJob`); a file on its own is taken as not delivered yet.
 */
export const toFileItem = (jobId: number, file: JobFile, delivered = false): FileItem => ({
  pk: jobKeys.pk(jobId),
  sk: jobKeys.fileSk(file.id),
  entity: 'file',
  fileId: file.id,
  jobId,
  ...file,
  reviewKey: reviewKey(jobId, reviewStateOf(file, delivered)),
});

/** The items of every file of a job, in the job's order. */
export const toFileItems = (job: Job): FileItem[] => {
  const delivered = isDeliveredJob(job);
  return job.files.map((file) => toFileItem(job.id, file, delivered));
};

/** The review counts a job item holds; `undefined` when it was written before they existed. */
export const jobItemCounts = (item: Readonly<Record<string, unknown>>): ReviewCounts | undefined => storedCounts(item);

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

/**
 * The job fields of §6 a job item holds (every field but `files`), each unset one as the contract answers it:
 * `null` dates, empty texts and tags. The one mapping the repository's reads and the API's job view share.
 */
export const jobFieldsOf = (item: JobItem): Omit<Job, 'files'> => ({
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
});

/**
 * The attributes of a job's items its search document is built from (`search/search-document.ts`): `entity`,
 * which tells the job item from file items; the job item's own fields and `version`; each file's id, name, tags
 * and instructions. Not the files' `reviews` and `previousReviews`, most of a reviewed file item's size: the
 * stream indexer reads a job's partition with this projection.
 */
export const SEARCHED_ATTRIBUTES = [
  ...new Set([
    'entity',
    'version',
    ...(Object.keys(jobFieldsOf({} as JobItem)) as (keyof JobItem)[]),
    ...(['id', 'fileName', 'tags', 'remarkToProcessor'] as const satisfies readonly (keyof FileItem)[]),
  ]),
] as readonly string[];

/**
 * The attributes of a file item a page of files reads (`GET /jobs/{id}/files`): the file's fields as
 * {@link fromFileItem} answers them, its two pictures, and what the reader judges it by — `entity`, its state
 * (`reviewKey`) and, to apply a committed delivery, `fileId` and `jobId`. Not its keys, its earlier edited
 * versions nor its uploads' bookkeeping, which a page never shows: fewer bytes to read, send and unmarshal.
 */
export const FILE_VIEW_ATTRIBUTES = [
  ...new Set([
    ...(['entity', 'fileId', 'jobId', 'reviewKey'] as const satisfies readonly (keyof FileItem)[]),
    ...(Object.keys(fromFileItem({} as FileItem)) as (keyof FileItem)[]),
    ...(['original', 'edited'] as const satisfies readonly (keyof FileItem)[]),
  ]),
] as readonly string[];

/** A job as stored, with the version of its job item. */
export interface StoredJob {
  job: Job;
  version: number;
}

/**
 * A job with its files and version, from the items of its partition (job item first or anywhere), each
 * file as its job's committed delivery leaves it (`pending-delivery.ts`).
 */
export const fromItems = (items: ReadonlyArray<Record<string, unknown>>): StoredJob | undefined => {
  const jobItem = items.find((item) => item.entity === 'job') as JobItem | undefined;
  if (jobItem === undefined) return undefined;
  const pending = pendingDelivery(jobItem);
  const files = items
    .filter((item) => item.entity === 'file')
    .map((item) => fromFileItem(effectiveFileItem(item as unknown as FileItem, pending)))
    .sort((a, b) => a.id - b.id);
  return { job: { ...jobFieldsOf(jobItem), files }, version: jobItem.version };
};
