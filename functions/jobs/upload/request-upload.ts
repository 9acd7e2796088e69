/**
 * A fresh upload target for one picture of a file (`POST /jobs/{id}/files/{fileId}/upload`, docs/contract.md
 * §6b): the customer's `original` while the job is still the customer's to change, staff's `edited` version
 * while the job is being worked on. Nothing is written: the target names a new upload of its own, and the
 * images function records the picture once its bytes arrive.
 *
 * The checks, in the order they answer: a user asking for `edited` (`403 forbidden`: edited pictures are staff's);
 * the job exists for the caller (`404 job_not_found`, decided on the job item alone, before any file is read, so
 * another account's job reveals nothing of its files); `original` only for a session of the job's own account
 * (`403 forbidden` for staff signed in to another account: the original is the customer's); the job's status
 * (`original`: `CJ_NEW` or `CJ_REQUEST_OFFER`, else `409 job_not_editable`; `edited`: `CJ_WORK_PROGRESS`,
 * `CJ_REJECT_READY` or `CJ_REJECT_ERROR`, else `409 invalid_transition`); the file is the job's
 * (`404 file_not_found` naming it). Two consistent GetItems.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { accountScope, type Principal } from '../../auth/principal';
import { ApiError } from '../../errors';
import type { Variant } from '../../images/object-keys';
import type { PictureUrls } from '../../images/picture-urls';
import type { UploadTarget } from '../../images/signed-urls';
import { hasPaddedFileKeys, jobKeys } from '../../tables';
import { DELIVERABLE_STATUSES } from '../delivery/deliver-files';
import type { JobStatus } from '../model/model';
import type { FileItem, JobItem } from '../store/items';
import { JobsTable } from '../store/jobs-table';

/** The statuses in which the customer may (re)upload originals: the job is still the customer's to change. */
export const ORIGINAL_UPLOAD_STATUSES: readonly JobStatus[] = ['CJ_NEW', 'CJ_REQUEST_OFFER'];

/** The statuses in which staff may upload edited versions: those a delivery moves on from. */
export const EDITED_UPLOAD_STATUSES: readonly JobStatus[] = DELIVERABLE_STATUSES;

/** What `POST /jobs/{id}/files/{fileId}/upload` answers. */
export interface RequestedUpload {
  jobId: number;
  fileId: number;
  variant: Variant;
  upload: UploadTarget;
}

export interface RequestUploadOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** Signs the target; asked for only once every check passed. */
  pictures: () => PictureUrls;
}

/** The upload use case. */
export class RequestUpload {
  private readonly table: JobsTable;
  private readonly pictures: () => PictureUrls;

  public constructor(options: RequestUploadOptions) {
    this.table = new JobsTable(options.client, options.tableName);
    this.pictures = options.pictures;
  }

  /** A new upload target of `variant` of a file, for a caller who may upload it now. */
  public async run(
    jobId: number,
    fileId: number,
    variant: Variant,
    principal: Pick<Principal, 'role' | 'accountId'>,
  ): Promise<RequestedUpload> {
    if (variant === 'edited' && principal.role !== 'operator') {
      throw new ApiError('forbidden', {}, { message: 'Only operators upload edited pictures.' });
    }
    const job = (await this.table.getJobItem(jobId)) as JobItem | undefined;
    const scope = accountScope(principal);
    if (job?.entity !== 'job' || (scope !== undefined && job.accountId !== scope)) {
      throw new ApiError('job_not_found');
    }
    if (variant === 'original') {
      if (job.accountId !== principal.accountId) {
        throw new ApiError('forbidden', {}, { message: "Originals are uploaded by a session of the job's account." });
      }
      if (!ORIGINAL_UPLOAD_STATUSES.includes(job.status)) {
        throw new ApiError(
          'job_not_editable',
          {},
          { message: `Originals can be uploaded while the job is CJ_NEW or CJ_REQUEST_OFFER; it is ${job.status}.` },
        );
      }
    } else if (!EDITED_UPLOAD_STATUSES.includes(job.status)) {
      throw new ApiError(
        'invalid_transition',
        { parameter: 'status' },
        { message: `Edited pictures cannot be uploaded while the job is ${job.status}.` },
      );
    }
    const file = await this.fileItem(job, fileId);
    if (file === undefined) throw new ApiError('file_not_found', { fileId });
    const declared = variant === 'original' ? (file.declaredOriginal ?? {}) : {};
    const upload = await this.pictures().uploadTarget(
      { accountId: job.accountId, jobId, fileId },
      variant,
      file.fileName,
      declared,
    );
    return { jobId, fileId, variant, upload };
  }

  /** The file item of the job, at its padded key (and its former one while the job's files may still be there). */
  private async fileItem(job: JobItem, fileId: number): Promise<FileItem | undefined> {
    const items = hasPaddedFileKeys(job as unknown as Record<string, unknown>)
      ? [await this.table.getItem({ pk: jobKeys.pk(job.id), sk: jobKeys.fileSk(fileId) })]
      : await this.table.batchGet(jobKeys.fileSks(fileId).map((sk) => ({ pk: jobKeys.pk(job.id), sk })));
    return items.find((item) => item?.entity === 'file') as FileItem | undefined;
  }
}
