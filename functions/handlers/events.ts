/**
 * Lambda entry of the events function: the jobs table's stream event source invokes it with batches of stream
 * records; it publishes their events (docs/contract.md §6c) on the stage's bus and reports the records to retry
 * (`batchItemFailures`, keyed by sequence number).
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { documentClient } from '../aws/dynamodb';
import { config } from '../config';
import { configuredSink } from '../events/configured-sink';
import { createEventPublisher } from '../events/publisher';
import { jobContextOf } from '../events/stream-events';
import { JobsTable } from '../jobs/store/jobs-table';
import { logger } from '../observability';

/** The publisher of this container, over its configured table and sink. */
export const publisher = createEventPublisher({
  sink: configuredSink,
  source: () => config().events.source,
  readJob: async (jobId) => jobContextOf(await new JobsTable(documentClient(), config().jobsTable).getJobItem(jobId)),
  logger,
});

/** The Lambda handler. */
export const handler = middy(publisher).use(injectLambdaContext(logger));
