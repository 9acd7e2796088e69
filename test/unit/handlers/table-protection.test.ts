/**
 * The tables' deletion protection, the deployment's last step (functions/handlers/table-protection.ts), on
 * CloudFormation custom resource events: it sets the protection CloudFormation asks for on every table and
 * answers at the event's pre-signed URL; a create that fails half-way leaves no table protected, so the
 * rollback that follows can delete them. DynamoDB is mocked with aws-sdk-client-mock, a fake node stands in
 * for the pre-signed URL.
 */
import { ResourceInUseException, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { resetDocumentClient } from '../../../functions/aws/dynamodb';
import { resetConfig } from '../../../functions/config';
import { handler, PHYSICAL_ID } from '../../../functions/handlers/table-protection';
import { lambdaContext } from '../../support/api-event';
import { setupEvent } from '../../support/cloudformation-events';
import { FakeOpenSearchNode } from '../../support/fake-opensearch';

const dynamo = mockClient(DynamoDBDocumentClient);
let cloudFormation: FakeOpenSearchNode;
let responseUrl: string;

/** A request of the stack's `Custom::TableDeletionProtection` resource. */
const protectionEvent = (
  type: 'Create' | 'Update' | 'Delete',
  deletionProtection: string,
): CloudFormationCustomResourceEvent => {
  const event = setupEvent(type, responseUrl);
  const properties = {
    ServiceToken: 'token',
    TableNames: ['jobs-t', 'auth-t'],
    DeletionProtection: deletionProtection,
  };
  return {
    ...event,
    LogicalResourceId: 'TableDeletionProtection',
    ResourceType: 'Custom::TableDeletionProtection',
    ResourceProperties: properties,
    ...(type === 'Create' ? {} : { PhysicalResourceId: PHYSICAL_ID }),
    ...(type === 'Update' ? { OldResourceProperties: { ...properties, DeletionProtection: 'true' } } : {}),
  } as CloudFormationCustomResourceEvent;
};

/** The UpdateTable requests sent, as `table=protection`. */
const updates = (): string[] =>
  dynamo
    .commandCalls(UpdateTableCommand)
    .map((call) => `${call.args[0].input.TableName}=${String(call.args[0].input.DeletionProtectionEnabled)}`);

/** The one answer CloudFormation received. */
const answer = (): Record<string, unknown> => {
  expect(cloudFormation.requests).toHaveLength(1);
  return JSON.parse(cloudFormation.requests[0]!.body) as Record<string, unknown>;
};

beforeAll(async () => {
  cloudFormation = new FakeOpenSearchNode(() => ({ status: 200 }));
  responseUrl = await cloudFormation.start();
  vi.stubEnv('JOBS_TABLE', 'jobs-t');
  vi.stubEnv('AUTH_TABLE', 'auth-t');
  vi.stubEnv('SEARCH_ENGINE', 'opensearch');
  vi.stubEnv('OPENSEARCH_URL', 'https://search.example.com');
  vi.stubEnv('OPENSEARCH_INDEX', 'jobs');
  resetConfig();
  resetDocumentClient();
});

beforeEach(() => {
  // The function's log lines (a failure is logged as an error) stay out of the test output.
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  dynamo.reset();
  dynamo.on(UpdateTableCommand).resolves({});
  cloudFormation.requests.length = 0;
});

afterEach(() => {
  vi.restoreAllMocks();
});

afterAll(async () => {
  await cloudFormation.stop();
  vi.unstubAllEnvs();
  resetConfig();
  resetDocumentClient();
});

describe('the tables’ deletion protection, the last step of a deployment', () => {
  it('switches protection on for every table on create, and answers SUCCESS', async () => {
    await handler(protectionEvent('Create', 'true'), lambdaContext());

    expect(updates()).toEqual(['jobs-t=true', 'auth-t=true']);
    expect(answer()).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: PHYSICAL_ID });
  });

  it('switches protection off again on a create that fails half-way, so the rollback can delete the tables', async () => {
    dynamo.on(UpdateTableCommand, { TableName: 'auth-t', DeletionProtectionEnabled: true }).rejects(
      Object.assign(new Error('User is not authorized to perform: dynamodb:UpdateTable'), {
        name: 'AccessDeniedException',
      }),
    );

    await handler(protectionEvent('Create', 'true'), lambdaContext());

    expect(updates()).toEqual(['jobs-t=true', 'auth-t=true', 'jobs-t=false']);
    expect(answer()).toMatchObject({
      Status: 'FAILED',
      Reason: expect.stringContaining('AccessDeniedException: User is not authorized'),
    });
  });

  it('sets what an update asks for (protection off before a destroy)', async () => {
    await handler(protectionEvent('Update', 'false'), lambdaContext());

    expect(updates()).toEqual(['jobs-t=false', 'auth-t=false']);
    expect(answer()).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: PHYSICAL_ID });
  });

  it('changes nothing on delete: each table goes or stays by its own deletion policy', async () => {
    await handler(protectionEvent('Delete', 'true'), lambdaContext());

    expect(updates()).toEqual([]);
    expect(answer()).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: PHYSICAL_ID });
  });

  it('refuses a request without a clear protection value, changing nothing', async () => {
    await handler(protectionEvent('Create', 'yes'), lambdaContext());

    expect(updates()).toEqual([]);
    expect(answer()).toMatchObject({ Status: 'FAILED', Reason: expect.stringContaining('DeletionProtection must be') });
  });

  it('waits for a busy table and tries again', async () => {
    dynamo
      .on(UpdateTableCommand, { TableName: 'jobs-t' })
      .rejectsOnce(new ResourceInUseException({ message: 'Table is being updated', $metadata: {} }))
      .resolves({});

    await handler(protectionEvent('Create', 'true'), lambdaContext());

    expect(updates()).toEqual(['jobs-t=true', 'jobs-t=true', 'auth-t=true']);
    expect(answer()).toMatchObject({ Status: 'SUCCESS' });
  });
});
