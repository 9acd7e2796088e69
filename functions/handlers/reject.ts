/**
 * Lambda entry of `POST /reject` (docs/contract.md §5): the shared HTTP chain checks the request and reads
 * the body; this handler rejects the files in one conditional transaction.
 */
import { documentClient } from '../aws/dynamodb';
import { config } from '../config';
import { httpEndpoint } from '../http/endpoint';
import type { RejectResponseBody } from '../jobs/reject';
import { RejectFiles } from '../jobs/reject-files';
import { parseRejectRequest, type RejectRequest } from '../http/reject-request';

/**
 * The use case over the container's client and table. Built per request (it holds no state of its own),
 * so a configuration or client reset by the local runtime or a test is always followed.
 */
const rejectFiles = (): RejectFiles => new RejectFiles({ client: documentClient(), tableName: config().jobsTable });

export const handler = httpEndpoint<RejectRequest, RejectResponseBody>(
  { path: '/reject', method: 'POST', parse: parseRejectRequest },
  ({ input, principal }) => rejectFiles().run(input, principal),
);
