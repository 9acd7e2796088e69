/**
 * Exemplary handler unit test: the stream indexer (functions/handlers/indexer.ts) invoked with the sample event
 * `events/indexer.json` (a MODIFY of job 10001 to version 2). The jobs table is mocked with
 * aws-sdk-client-mock; the search index is the real embedded engine, in memory.
 */
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resetDocumentClient } from '../../../functions/aws/dynamodb';
import { resetConfig } from '../../../functions/config';
import { handler } from '../../../functions/handlers/indexer';
import { toFileItem, toJobItem } from '../../../functions/jobs/items';
import { resetSearchIndex, searchIndex } from '../../../functions/search/engine';
import { lambdaContext } from '../../support/api-event';
import { makeFile, makeJob } from '../../support/jobs';
import { sampleEvent } from './sample-events';

const dynamo = mockClient(DynamoDBDocumentClient);

beforeEach(() => {
  vi.stubEnv('JOBS_TABLE', 'jobs-unit');
  vi.stubEnv('AUTH_TABLE', 'auth-unit');
  vi.stubEnv('SEARCH_ENGINE', 'embedded');
  vi.stubEnv('SEARCH_DB_PATH', ':memory:');
  resetConfig();
  resetDocumentClient();
  dynamo.reset();
});

afterEach(async () => {
  vi.unstubAllEnvs();
  await resetSearchIndex();
});

describe('indexer handler on events/indexer.json', () => {
  it('reads the changed job from the table and writes it to the search index at its new version', async () => {
    // The table holds job 10001 at version 2, the version the stream record announces.
    const job = makeJob({ id: 10001, accountId: 1001, name: 'Summer lookbook', files: [makeFile()] });
    dynamo
      .on(QueryCommand)
      .resolves({ Items: [toJobItem(job, 2), ...job.files.map((file) => toFileItem(job.id, file))] });

    const result = await handler(sampleEvent<DynamoDBStreamEvent>('indexer.json'), lambdaContext());

    expect(result).toEqual({ batchItemFailures: [] });
    const indexed = await (await searchIndex()).get(10001);
    expect(indexed).toMatchObject({ version: 2 });
  });

  it('reports the record for a retry when the table cannot be read', async () => {
    dynamo
      .on(QueryCommand)
      .rejects(Object.assign(new Error('Throughput exceeded'), { name: 'ProvisionedThroughputExceededException' }));
    const event = sampleEvent<DynamoDBStreamEvent>('indexer.json');

    const result = await handler(event, lambdaContext());

    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: event.Records[0]?.dynamodb?.SequenceNumber }] });
  });
});
