/**
 * Exemplary handler unit test: POST /search (functions/handlers/search.ts) invoked with the sample event
 * `events/search.json`. The auth table is mocked (aws-sdk-client-mock); the search index is the real
 * embedded engine, in memory, filled the way the indexer fills it. No network, no Java.
 */
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { toSearchDocument } from '../../../functions/search/search-document';
import { handler } from '../../../functions/handlers/search';
import { resetSearchIndex, searchIndex } from '../../../functions/search/engine';
import { lambdaContext } from '../../support/api-event';
import { makeJob } from '../../support/jobs';
import { registerSampleCaller, sampleEvent, useUnitHandlerEnvironment } from './sample-events';

const dynamo = mockClient(DynamoDBDocumentClient);

beforeEach(() => {
  // 1. Point the handler's configuration at names the mocks answer, and forget cached clients.
  useUnitHandlerEnvironment();
  // 2. The mocked auth table: unknown keys answer "no item", the sample tokens a user of account 1001.
  dynamo.reset();
  dynamo.on(GetCommand).resolves({});
  registerSampleCaller(dynamo, { authTable: 'auth-unit', grants: ['search'], role: 'user', accountId: 1001 });
});

afterEach(async () => {
  vi.unstubAllEnvs();
  await resetSearchIndex();
});

describe('POST /search handler on events/search.json', () => {
  it('answers the caller’s jobs that match "spring cat", and nothing of another account', async () => {
    // 3. The data: what the stream indexer would have written to the index.
    const catalogue = makeJob({ accountId: 1001, name: 'Spring catalogue', createdDate: '2026-03-02T10:00:00Z' });
    const shoes = makeJob({ accountId: 1001, name: 'Winter shoes', createdDate: '2026-03-03T10:00:00Z' });
    const foreign = makeJob({ accountId: 1002, name: 'Spring catalogue', createdDate: '2026-03-04T10:00:00Z' });
    const index = await searchIndex();
    await index.apply(
      [catalogue, shoes, foreign].map((job) => ({ type: 'upsert', document: toSearchDocument(job, 1) })),
    );

    // 4. Invoke the handler with the sample event, as API Gateway would.
    const result = await handler(sampleEvent('search.json'), lambdaContext());

    // 5. Assert what the client sees.
    expect(result.statusCode).toBe(200);
    const body = JSON.parse(result.body);
    expect(body.totalJobs).toBe(1);
    expect(body.jobs.map((job: { id: number }) => job.id)).toEqual([catalogue.id]);
  });

  it('answers 401 when the session is unknown', async () => {
    dynamo.reset();
    dynamo.on(GetCommand).resolves({});

    const result = await handler(sampleEvent('search.json'), lambdaContext());

    expect(result.statusCode).toBe(401);
  });
});
