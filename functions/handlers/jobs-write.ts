/**
 * Lambda entry of the job writes (docs/contract.md §6a): `POST /jobs`, `PATCH /jobs/{id}` and
 * `POST /jobs/{id}/delivery`, one function with read and write access to the jobs table and nothing on
 * the search engine. Each endpoint runs the shared HTTP chain; API Gateway sends all three here and the
 * event's `resource` and method say which one was asked.
 */
import { documentClient } from '../aws/dynamodb';
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
} from '../http/job-write-requests';
import { pathParameter } from '../http/path-parameters';
import { EndpointAnswer } from '../http/response';
import { CreateJob, type CreateJobRequest } from '../jobs/create/create-job';
import { DeliverFiles } from '../jobs/delivery/deliver-files';
import type { JobResponseBody } from '../jobs/store/job-view';
import { UpdateJob } from '../jobs/edit/update-job';

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

const createJob = httpEndpoint<CreateJobRequest, EndpointAnswer>(
  { path: '/jobs', method: 'POST', parse: parseCreateJobRequest, status: 201 },
  async ({ input, principal, event }) => {
    const key = idempotencyKeyOf(headerValue(event, IDEMPOTENCY_KEY_HEADER));
    const created = await new CreateJob(tables()).run(input, principal, key);
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

/** The function's handler: the endpoint of the path and method API Gateway matched. */
export const handler = routedHandler([createJob, updateJob, deliverFiles]);
