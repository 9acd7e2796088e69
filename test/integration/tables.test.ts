import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AUTH_TABLE, JOBS_TABLE } from '../../functions/tables';
import { startDynamoDbLocal } from '../../local/dynamodb/dynamodb-local';
import { ensureTable } from '../../local/dynamodb/tables';
import { createTestTables, localClient } from '../support/dynamo';

describe('local tables built from the shared definitions', () => {
  const client = localClient();

  it('creates the jobs table with its stream, the sparse file index and the review index', async () => {
    const { jobsTable } = await createTestTables(client);
    const { Table } = await client.send(new DescribeTableCommand({ TableName: jobsTable }));
    expect(Table?.KeySchema).toEqual([
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ]);
    expect(Table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
    expect(Table?.LatestStreamArn).toBeTruthy();
    expect(Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName).sort()).toEqual(['byFileId', 'byReview']);
  });

  it("adds the auth table's byClient index to a table made before it existed", async () => {
    // On a DynamoDB Local of its own: the run's shared instance, busy with every other file's tables and
    // streams, can leave an added index CREATING for minutes, which says nothing about ensureTable.
    const own = await startDynamoDbLocal({ port: 0 });
    const ownClient = new DynamoDBClient({
      endpoint: own.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    try {
      const tableName = `auth-before-index-${randomUUID().slice(0, 8)}`;
      await ensureTable(ownClient, { ...AUTH_TABLE, globalSecondaryIndexes: [] }, tableName);
      await expect(ensureTable(ownClient, AUTH_TABLE, tableName)).resolves.toBe(false);
      const { Table } = await ownClient.send(new DescribeTableCommand({ TableName: tableName }));
      expect(Table?.GlobalSecondaryIndexes?.map((index) => [index.IndexName, index.IndexStatus])).toEqual([
        ['byClient', 'ACTIVE'],
      ]);
    } finally {
      ownClient.destroy();
      await own.stop();
    }
  }, 60_000);

  it('leaves an existing table alone when asked to create it again', async () => {
    const { jobsTable, authTable } = await createTestTables(client);
    await expect(ensureTable(client, JOBS_TABLE, jobsTable)).resolves.toBe(false);
    await expect(ensureTable(client, AUTH_TABLE, authTable)).resolves.toBe(false);
  });
});
