/**
 * Exemplary handler unit test: the stream indexer (functions/handlers/indexer.ts) invoked with the sample event
 * `events/indexer.json` (a MODIFY of job 10001 to version 2). The jobs table is mocked with
 * aws-sdk-client-mock; the search index is the real embedded engine, in memory.
 */
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resetDocumentClient } from '../../../functions/aws/dynamodb';
import { resetConfig } from '../../../functions/config';
import { handler } from '../../../functions/handlers/indexer';
import { toFileItem, toJobItem } from '../../../functions/jobs/store/items';
import { resetSearchIndex, searchIndex } from '../../../functions/search/engine';
import { lambdaContext } from '../../support/api-event';
import { makeFile, makeJob } from '../../support/jobs';
import { sampleEvent } from './sample-events';

const dynamo = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/jobs-dead-letters';

beforeEach(() => {
  vi.stubEnv('JOBS_TABLE', 'jobs-unit');
  vi.stubEnv('AUTH_TABLE', 'auth-unit');
  vi.stubEnv('SEARCH_ENGINE', 'embedded');
  vi.stubEnv('SEARCH_DB_PATH', ':memory:');
  resetConfig();
  resetDocumentClient();
  dynamo.reset();
  sqs.reset();
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

  it('sends a job no search document can be built from to the dead-letter queue and reports its record done', async () => {
    vi.stubEnv('DEAD_LETTER_QUEUE_URL', QUEUE_URL);
    resetConfig();
    const job = makeJob({ id: 10001, accountId: 1001, files: [makeFile()] });
    const { guid: _removed, ...withoutGuid } = toJobItem(job, 2);
    dynamo.on(QueryCommand).resolves({ Items: [withoutGuid, ...job.files.map((file) => toFileItem(job.id, file))] });
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
    const event = sampleEvent<DynamoDBStreamEvent>('indexer.json');

    const result = await handler(event, lambdaContext());

    expect(result).toEqual({ batchItemFailures: [] });
    const sent = sqs.commandCalls(SendMessageCommand).map((call) => call.args[0].input);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.QueueUrl).toBe(QUEUE_URL);
    expect(JSON.parse(sent[0]?.MessageBody ?? '{}')).toMatchObject({
      source: 'indexer',
      jobId: 10001,
      reason: expect.stringContaining('guid'),
      records: [{ sequenceNumber: event.Records[0]?.dynamodb?.SequenceNumber }],
    });
    expect(await (await searchIndex()).get(10001)).toBeUndefined();
  });

  it('retries a job the index refuses while the dead-letter queue cannot take its letter', async () => {
    vi.stubEnv('DEAD_LETTER_QUEUE_URL', QUEUE_URL);
    resetConfig();
    const job = makeJob({ id: 10001, accountId: 1001, files: [makeFile()] });
    const { guid: _removed, ...withoutGuid } = toJobItem(job, 2);
    dynamo.on(QueryCommand).resolves({ Items: [withoutGuid] });
    sqs.on(SendMessageCommand).rejects(Object.assign(new Error('Service unavailable'), { name: 'ServiceUnavailable' }));
    const event = sampleEvent<DynamoDBStreamEvent>('indexer.json');

    const result = await handler(event, lambdaContext());

    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: event.Records[0]?.dynamodb?.SequenceNumber }] });
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
