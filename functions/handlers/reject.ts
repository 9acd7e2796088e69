/**
 * Lambda entry of the customer's review: `POST /reject` (docs/contract.md §5) and `POST /accept` (§6a).
 * The shared HTTP chain checks the request and reads the body; both handlers run the same locate → read
 * → plan → write path (`functions/jobs/review/review-files.ts`), each with its own rules, as one conditional
 * transaction. API Gateway sends both paths here and the event's resource says which one was asked.
 */
import { documentClient } from '../aws/dynamodb';
import { config } from '../config';
import { parseAcceptRequest, type AcceptRequest } from '../http/accept-request';
import { httpEndpoint, routedHandler } from '../http/endpoint';
import type { AcceptResponseBody } from '../jobs/review/accept';
import { AcceptFiles } from '../jobs/review/accept-files';
import type { RejectResponseBody } from '../jobs/review/reject';
import { RejectFiles } from '../jobs/review/reject-files';
import { parseRejectRequest, type RejectRequest } from '../http/reject-request';

/**
 * The use cases over the container's client and table. Built per request (they hold no state of their
 * own), so a configuration or client reset by the local runtime or a test is always followed.
 */
const options = () => ({ client: documentClient(), tableName: config().jobsTable });

const reject = httpEndpoint<RejectRequest, RejectResponseBody>(
  { path: '/reject', method: 'POST', parse: parseRejectRequest },
  ({ input, principal }) => new RejectFiles(options()).run(input, principal),
);

const accept = httpEndpoint<AcceptRequest, AcceptResponseBody>(
  { path: '/accept', method: 'POST', parse: parseAcceptRequest },
  ({ input, principal }) => new AcceptFiles(options()).run(input, principal),
);

/** The function's handler: the endpoint of the path API Gateway matched. */
export const handler = routedHandler([reject, accept]);
