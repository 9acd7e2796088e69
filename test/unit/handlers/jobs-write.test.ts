/**
 * POST /jobs (functions/handlers/jobs-write.ts) invoked with the sample event `events/jobs-create.json` and
 * its variants, the jobs and auth tables mocked with aws-sdk-client-mock: the `Location` of the created job is
 * its URL as the caller reaches it — with the stage on API Gateway's own endpoint, with the base path behind a
 * custom domain.
 */
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { handler } from '../../../functions/handlers/jobs-write';
import { lambdaContext } from '../../support/api-event';
import { registerSampleCaller, sampleEvent, useUnitHandlerEnvironment } from './sample-events';

const dynamo = mockClient(DynamoDBDocumentClient);
let counter = 1_000_000_000;

beforeEach(() => {
  useUnitHandlerEnvironment();
  dynamo.reset();
  dynamo.on(GetCommand).resolves({});
  registerSampleCaller(dynamo, { authTable: 'auth-unit', grants: ['jobs'], role: 'user', accountId: 1001 });
  // The id counter hands out a block; the job is written in one transaction.
  dynamo.on(UpdateCommand).callsFake(async (input: { ExpressionAttributeValues: { ':size': number } }) => {
    counter += input.ExpressionAttributeValues[':size'];
    return { Attributes: { next: counter } };
  });
  dynamo.on(TransactWriteCommand).resolves({});
});

afterEach(() => vi.unstubAllEnvs());

/** The sample create event, reached through `callerPath` (its `requestContext.path`) and `path`. */
const createEvent = (callerPath: string, path = '/jobs'): APIGatewayProxyEvent => {
  const event = sampleEvent('jobs-create.json');
  return { ...event, path, requestContext: { ...event.requestContext, path: callerPath } };
};

const create = async (event: APIGatewayProxyEvent) => {
  const result = await handler(event, lambdaContext());
  expect(result.statusCode, result.body).toBe(201);
  const { job } = JSON.parse(result.body) as { job: { id: number } };
  return { location: result.headers?.Location, id: job.id };
};

describe('POST /jobs handler: the Location of the created job', () => {
  it('keeps the stage of API Gateway’s own endpoint (requestContext.path /prod/jobs)', async () => {
    expect(sampleEvent('jobs-create.json').requestContext.path).toBe('/prod/jobs');
    const { location, id } = await create(sampleEvent('jobs-create.json'));
    expect(location).toBe(`/prod/jobs/${id}`);
  });

  it('keeps the base path of a custom domain’s mapping (event.path includes it too)', async () => {
    const { location, id } = await create(createEvent('/v1/jobs', '/v1/jobs'));
    expect(location).toBe(`/v1/jobs/${id}`);
  });

  it('is the bare path behind a custom domain mapped at its root, and locally', async () => {
    const { location, id } = await create(createEvent('/jobs'));
    expect(location).toBe(`/jobs/${id}`);
  });
});
