/**
 * The stack's time limits, one place for how they nest: API Gateway's wait on an API function, the function's
 * own timeout inside it, each dependency attempt inside that, and the indexer's batch time around its writes.
 */
import { Duration } from 'aws-cdk-lib';

/**
 * How long API Gateway waits for an API function: the contract's 10-second ceiling on any answer. Past it the
 * client gets `503` with `Retry-After` (the `INTEGRATION_TIMEOUT` gateway response).
 */
export const INTEGRATION_TIMEOUT = Duration.seconds(10);

/**
 * How long an API function may run: a second less than API Gateway waits for it. On a cold start API Gateway's
 * wait also covers the function's initialisation (well under a second for these bundles), so with equal
 * timeouts API Gateway gave up first and answered 503 while the function might still commit, say, a create.
 * Now the function's own chain answers 503 just before its deadline (middy's early timeout), and that answer
 * reaches the client.
 */
export const API_FUNCTION_TIMEOUT = Duration.seconds(9);

/**
 * The time limit of one attempt of an API function's DynamoDB or OpenSearch request (`DEPENDENCY_TIMEOUT_MS`).
 * A DynamoDB call makes at most two attempts, so two successive calls that hang (an authentication lookup,
 * then the endpoint's own) fail as unavailable within 4 × 2 s = 8 s, inside {@link API_FUNCTION_TIMEOUT}.
 */
export const API_DEPENDENCY_TIMEOUT = Duration.seconds(2);

/**
 * How long the indexer may work on one batch: reading its jobs, and two `_bulk` requests of their whole time
 * budget (`INDEX_WRITE_TIMEOUT`, lib/stream-indexer.ts) with the indexer's 5-second reserve, with room to spare.
 */
export const INDEXER_TIMEOUT = Duration.seconds(60);

/**
 * How long the images function may work on one upload: read it (up to 200 MB), decode it once (up to 100
 * megapixels), write two renditions and one item. A 100-megapixel PNG took about 8 s on one busy x86-64 core of
 * the development machine (docs/deploy.md, "Pictures"); two minutes leave a wide margin for a slow read from S3.
 */
export const IMAGES_TIMEOUT = Duration.minutes(2);

/**
 * How long the events function may work on one batch of up to 100 records: read the jobs of its file changes
 * (strongly consistent `GetItem`s, 16 at once), then put the events version by version in `PutEvents` calls,
 * sending refused ones again up to three times with delays of at most two seconds. A minute is room for a slow
 * batch; a batch that overruns it fails whole and the event source delivers it again.
 */
export const EVENTS_TIMEOUT = Duration.seconds(60);

/**
 * How long the webhooks' sender may work on one batch of up to ten messages: each delivery's endpoint has 10
 * seconds to answer (`WEBHOOK_TIMEOUT_MS`, never more) and the batch's deliveries run at once, then the attempt is
 * recorded (a few DynamoDB writes) and a retry scheduled (one SQS call). Thirty seconds leave room for both.
 */
export const WEBHOOKS_SENDER_TIMEOUT = Duration.seconds(30);
