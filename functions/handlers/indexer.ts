/**
 * Lambda entry of the search indexer: the jobs table's stream event source invokes it with batches of
 * stream records; it writes the touched jobs to the search index and reports the records to retry
 * (`batchItemFailures`, keyed by sequence number).
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { documentClient } from '../aws/dynamodb';
import { config } from '../config';
import { deadLetterSink } from '../indexing/dead-letters';
import { createStreamIndexer } from '../indexing/stream-indexer';
import { JobRepository } from '../jobs/store/repository';
import { logger } from '../observability';
import { searchIndex } from '../search/engine';

/** The indexer of this container, over its configured table and search engine. */
export const indexer = createStreamIndexer({
  repository: () => new JobRepository(documentClient(), config().jobsTable),
  index: searchIndex,
  writeTimeoutMs: () => config().indexWriteTimeoutMs,
  deadLetters: deadLetterSink,
  logger,
});

/** The Lambda handler. */
export const handler = middy(indexer).use(injectLambdaContext(logger));
