/**
 * Exemplary handler unit test: GET /search/fields (functions/handlers/search-fields.ts) invoked with the sample
 * event `events/search-fields.json`, the auth table mocked with aws-sdk-client-mock.
 */
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { handler } from '../../../functions/handlers/search-fields';
import { lambdaContext } from '../../support/api-event';
import { registerSampleCaller, sampleEvent, useUnitHandlerEnvironment } from './sample-events';

const dynamo = mockClient(DynamoDBDocumentClient);

beforeEach(() => {
  useUnitHandlerEnvironment();
  dynamo.reset();
  dynamo.on(GetCommand).resolves({});
});

afterEach(() => vi.unstubAllEnvs());

const fieldIds = async (): Promise<string[]> => {
  const result = await handler(sampleEvent('search-fields.json'), lambdaContext());
  expect(result.statusCode).toBe(200);
  return JSON.parse(result.body).fields.map((field: { id: string }) => field.id);
};

describe('GET /search/fields handler on events/search-fields.json', () => {
  it('lists the fields of a user, without the operator-only account number', async () => {
    registerSampleCaller(dynamo, { authTable: 'auth-unit', grants: ['search'], role: 'user', accountId: 1001 });

    const ids = await fieldIds();

    expect(ids).toContain('JobName');
    expect(ids).not.toContain('AccountNumber');
  });

  it('adds the account number for an operator', async () => {
    registerSampleCaller(dynamo, { authTable: 'auth-unit', grants: ['search'], role: 'operator', accountId: 1 });

    expect(await fieldIds()).toContain('AccountNumber');
  });
});
