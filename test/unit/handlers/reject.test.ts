/**
 * Exemplary handler unit test: POST /reject (functions/handlers/reject.ts) invoked with the sample event
 * `events/reject.json` (file 300650, a cropping reason). The jobs and auth tables are one mocked
 * DynamoDB document client (aws-sdk-client-mock): the file lookup, the consistent read of the file and
 * its job, and the transaction that writes the rejection.
 */
import {
  BatchGetCommand,
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { toFileItems, toJobItem } from '../../../functions/jobs/store/items';
import { handler } from '../../../functions/handlers/reject';
import { lambdaContext } from '../../support/api-event';
import { makeFile, makeJob } from '../../support/jobs';
import { registerSampleCaller, sampleEvent, useUnitHandlerEnvironment } from './sample-events';

const dynamo = mockClient(DynamoDBDocumentClient);

// The job in review that holds the sample event's file, in the caller's account.
const job = makeJob({ accountId: 1001, status: 'CJ_REVIEWING', files: [makeFile({ id: 300650 })] });
const items = [toJobItem(job, 1), ...toFileItems(job)];

beforeEach(() => {
  useUnitHandlerEnvironment();
  dynamo.reset();
  dynamo.on(GetCommand).resolves({});
  registerSampleCaller(dynamo, { authTable: 'auth-unit', grants: ['reject'], role: 'user', accountId: 1001 });
  // The file index finds file 300650; the consistent read answers its item and its job's item.
  const file = items.find((item) => item.entity === 'file');
  dynamo.on(QueryCommand).resolves({ Items: [{ pk: file?.pk, sk: file?.sk, fileId: 300650 }] });
  dynamo.on(BatchGetCommand).resolves({ Responses: { 'jobs-unit': items } });
  dynamo.on(TransactWriteCommand).resolves({});
});

afterEach(() => vi.unstubAllEnvs());

describe('POST /reject handler on events/reject.json', () => {
  it('rejects the file and its job in one transaction, and answers what it wrote', async () => {
    const result = await handler(sampleEvent('reject.json'), lambdaContext());

    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body)).toMatchObject({
      files: [{ fileId: 300650, jobId: job.id, isRejected: true }],
      jobs: [{ id: job.id, status: 'CJ_REJECT_READY' }],
    });
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });

  it('answers 403 and writes nothing when the client lacks the reject grant', async () => {
    registerSampleCaller(dynamo, { authTable: 'auth-unit', grants: ['search'], role: 'user', accountId: 1001 });

    const result = await handler(sampleEvent('reject.json'), lambdaContext());

    expect(result.statusCode).toBe(403);
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });
});
