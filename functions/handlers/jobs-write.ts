/**
 * Lambda entry of the job writes (docs/contract.md §6a, §6b): `POST /jobs`, `PATCH /jobs/{id}`,
 * `POST /jobs/{id}/delivery` and `POST /jobs/{id}/files/{fileId}/upload`, one function with read and write
 * access to the jobs table, the right to sign uploads to the pictures' bucket, and nothing on the search engine.
 * Each endpoint runs the shared HTTP chain; API Gateway sends all four here and the event's `resource` and method
 * say which one was asked.
 */
import { documentClient } from '../aws/dynamodb';
import { picturesBucket } from '../aws/s3';
import { config } from '../config';
import { callerPathOf } from '../http/caller-path';
import { httpEndpoint, routedHandler } from '../http/endpoint';
import { invalidParameter } from '../http/errors';
import { headerValue } from '../http/headers';
import {
  type DeliveryRequest,
  type JobUpdate,
  parseCreateJobRequest,
  parseDeliveryRequest,
  parseJobUpdate,
  parseUploadRequest,
  type UploadRequest,
} from '../http/job-write-requests';
import { pathParameter } from '../http/path-parameters';
import { EndpointAnswer } from '../http/response';
import { CreateJob, type CreateJobRequest } from '../jobs/create/create-job';
import { DeliverFiles } from '../jobs/delivery/deliver-files';
import type { JobResponseBody } from '../jobs/store/job-view';
import { UpdateJob } from '../jobs/edit/update-job';
import { PictureUrls } from '../images/picture-urls';
import type { UploadTarget } from '../images/signed-urls';
import { RequestUpload } from '../jobs/upload/request-upload';

/** The header that makes a create safe to retry. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** 1–255 visible ASCII characters. */
const IDEMPOTENCY_KEY = /^[\x21-\x7E]{1,255}$/;

/** The `Idempotency-Key` of a request, `undefined` when absent; `400 invalid_parameter` naming it when malformed. */
export const idempotencyKeyOf = (value: string | undefined): string | undefined => {
  if (value === undefined) return undefined;
  if (!IDEMPOTENCY_KEY.test(value)) {
    throw invalidParameter(IDEMPOTENCY_KEY_HEADER, 'Idempotency-Key must be 1 to 255 visible ASCII characters.');
  }
  return value;
};

const tables = () => ({ client: documentClient(), tableName: config().jobsTable });

/** The request's signer of picture URLs: the container's bucket client, one clock (asked for only when needed). */
const pictures = () => new PictureUrls(picturesBucket());

const createJob = httpEndpoint<CreateJobRequest, EndpointAnswer>(
  { path: '/jobs', method: 'POST', parse: parseCreateJobRequest, status: 201 },
  async ({ input, principal, event }) => {
    const key = idempotencyKeyOf(headerValue(event, IDEMPOTENCY_KEY_HEADER));
    const created = await new CreateJob({ ...tables(), pictures }).run(input, principal, key);
    // The new job's URL as this caller reaches it: behind API Gateway the stage (or a custom domain's base
    // path) is part of it.
    const location = callerPathOf(event, created.location);
    return new EndpointAnswer(201, created.body, { Location: location, ETag: created.etag });
  },
);

const updateJob = httpEndpoint<JobUpdate, EndpointAnswer>(
  { path: '/jobs/{id}', method: 'PATCH', parse: parseJobUpdate },
  async ({ input, params, principal, event }) => {
    const updated = await new UpdateJob(tables()).run(
      pathParameter(params, 'id'),
      input,
      headerValue(event, 'If-Match'),
      principal,
    );
    const body: JobResponseBody = { _type: 'JobResponseBody', job: updated.job };
    return new EndpointAnswer(200, body, { ETag: updated.etag });
  },
);

const deliverFiles = httpEndpoint<DeliveryRequest, EndpointAnswer>(
  { path: '/jobs/{id}/delivery', method: 'POST', parse: parseDeliveryRequest },
  async ({ input, params, principal }) => {
    const delivered = await new DeliverFiles(tables()).run(pathParameter(params, 'id'), input.fileIds, principal);
    const body: JobResponseBody = { _type: 'JobResponseBody', job: delivered.job };
    return new EndpointAnswer(200, body, { ETag: delivered.etag });
  },
);

/**
 * The `200` body of `POST /jobs/{id}/files/{fileId}/upload`: the target's fields, and the same target as `upload`
 * (the shape `POST /jobs` answers for each file).
 */
export type UploadTargetResponseBody = {
  _type: 'UploadTargetResponseBody';
  jobId: number;
  fileId: number;
  variant: UploadRequest['variant'];
} & UploadTarget & { upload: UploadTarget };

const requestUpload = httpEndpoint(
  { path: '/jobs/{id}/files/{fileId}/upload', method: 'POST', parse: parseUploadRequest },
  async ({ input, params, principal }): Promise<UploadTargetResponseBody> => {
    const requested = await new RequestUpload({ ...tables(), pictures }).run(
      pathParameter(params, 'id'),
      pathParameter(params, 'fileId'),
      input.variant,
      principal,
    );
    return {
      _type: 'UploadTargetResponseBody',
      jobId: requested.jobId,
      fileId: requested.fileId,
      variant: requested.variant,
      ...requested.upload,
      upload: requested.upload,
    };
  },
);

/** The function's handler: the endpoint of the path and method API Gateway matched. */
export const handler = routedHandler([createJob, updateJob, deliverFiles, requestUpload]);
