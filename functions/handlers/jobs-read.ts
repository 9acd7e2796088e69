/**
 * Lambda entry of the read side of docs/contract.md §6a: `GET /jobs/{id}` (one consistent read, `ETag`,
 * `304` on a matching `If-None-Match`), `GET /jobs/{id}/files` (a page of files for review with a signed
 * cursor, each file with its pictures' URLs, §6b) and `GET /statuses` (the status catalogue for the caller's
 * role). The function only reads the jobs table, and signs GETs of the pictures' bucket; API Gateway sends all
 * three paths here and the event's resource says which one was asked.
 */
import { cursorKey } from '../aws/cursor-key';
import { documentClient } from '../aws/dynamodb';
import { picturesBucket } from '../aws/s3';
import { config } from '../config';
import { httpEndpoint, routedHandler } from '../http/endpoint';
import { invalidParameter } from '../http/errors';
import { ifNoneMatchHits, parseFilesRequest } from '../http/job-requests';
import { noInput } from '../http/middlewares/validation';
import { pathParameter } from '../http/path-parameters';
import { EndpointAnswer } from '../http/response';
import { cursorBinding, decodeCursor, encodeCursor, InvalidCursorError } from '../jobs/read/files-cursor';
import { jobETag, type JobResponseBody } from '../jobs/store/job-view';
import { PictureUrls } from '../images/picture-urls';
import { type FileView, JobReader } from '../jobs/read/read-jobs';
import { statusCatalogue, type StatusView } from '../jobs/model/statuses';

/** The `200` body of `GET /jobs/{id}/files`. */
export interface JobFilesResponseBody {
  _type: 'JobFilesResponseBody';
  jobId: number;
  files: FileView[];
  nextCursor: string | null;
}

/** The `200` body of `GET /statuses`. */
export interface StatusesResponseBody {
  _type: 'StatusesResponseBody';
  statuses: StatusView[];
}

/**
 * The reader over the container's client and table (built per request: it holds no state of its own), signing
 * picture URLs with the container's bucket client and one clock for the request.
 */
const reader = (): JobReader =>
  new JobReader({
    client: documentClient(),
    tableName: config().jobsTable,
    pictures: () => new PictureUrls(picturesBucket()),
  });

const readJob = httpEndpoint(
  { path: '/jobs/{id}', method: 'GET', parse: noInput },
  async ({ params, principal, event }) => {
    const job = await reader().job(pathParameter(params, 'id'), principal);
    const etag = jobETag(job.version);
    if (ifNoneMatchHits(event, etag)) return new EndpointAnswer(304, undefined, { ETag: etag });
    const body: JobResponseBody = { _type: 'JobResponseBody', job };
    return new EndpointAnswer(200, body, { ETag: etag });
  },
);

const readFiles = httpEndpoint(
  { path: '/jobs/{id}/files', method: 'GET', parse: noInput },
  async ({ params, principal, event }): Promise<JobFilesResponseBody> => {
    const jobId = pathParameter(params, 'id');
    const request = parseFilesRequest(event);
    const binding = cursorBinding(principal);
    const key = await cursorKey();
    let afterFileId: number | undefined;
    if (request.cursor !== undefined) {
      try {
        afterFileId = decodeCursor(request.cursor, { jobId, review: request.review }, binding, key);
      } catch (error) {
        if (error instanceof InvalidCursorError)
          throw invalidParameter('cursor', 'The cursor is not valid for this request.');
        throw error;
      }
    }
    const page = await reader().files(jobId, principal, { review: request.review, limit: request.limit, afterFileId });
    return {
      _type: 'JobFilesResponseBody',
      jobId,
      files: page.files,
      nextCursor:
        page.continueAfter === undefined
          ? null
          : encodeCursor({ jobId, review: request.review, afterFileId: page.continueAfter }, binding, key),
    };
  },
);

const listStatuses = httpEndpoint(
  { path: '/statuses', method: 'GET', parse: noInput },
  async ({ principal }): Promise<StatusesResponseBody> => ({
    _type: 'StatusesResponseBody',
    statuses: statusCatalogue(principal.role),
  }),
);

/** The function's handler: the endpoint of the path API Gateway matched. */
export const handler = routedHandler([readJob, readFiles, listStatuses]);
