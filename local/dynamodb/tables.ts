/**
 * Creates the tables of `functions/tables.ts` in DynamoDB Local, the way the CDK stack defines them.
 */
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
  type TableDescription,
  UpdateTableCommand,
  DescribeTimeToLiveCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import type { KeyDefinition, TableDefinition } from '../../functions/tables';

const keySchema = (partitionKey: KeyDefinition, sortKey?: KeyDefinition) => [
  { AttributeName: partitionKey.name, KeyType: 'HASH' as const },
  ...(sortKey === undefined ? [] : [{ AttributeName: sortKey.name, KeyType: 'RANGE' as const }]),
];

/** The CreateTable request of a table definition. */
export const createTableInput = (definition: TableDefinition, tableName: string): CreateTableCommandInput => {
  const attributes = new Map<string, KeyDefinition>();
  for (const key of [definition.partitionKey, definition.sortKey]) if (key) attributes.set(key.name, key);
  for (const index of definition.globalSecondaryIndexes) {
    for (const key of [index.partitionKey, index.sortKey]) if (key) attributes.set(key.name, key);
  }
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...attributes.values()].map((key) => ({ AttributeName: key.name, AttributeType: key.type })),
    KeySchema: keySchema(definition.partitionKey, definition.sortKey),
    ...(definition.globalSecondaryIndexes.length === 0
      ? {}
      : {
          GlobalSecondaryIndexes: definition.globalSecondaryIndexes.map((index) => ({
            IndexName: index.indexName,
            KeySchema: keySchema(index.partitionKey, index.sortKey),
            Projection: { ProjectionType: index.projection },
          })),
        }),
    ...(definition.stream === undefined
      ? {}
      : { StreamSpecification: { StreamEnabled: true, StreamViewType: definition.stream } }),
  };
};

/** How long a table and its indexes may take to become ACTIVE before start-up gives up and says so. */
const ACTIVE_WITHIN_MS = 120_000;

/** Waits until a table and its indexes are ACTIVE; returns its description, or fails naming what is not. */
const waitUntilActive = async (client: DynamoDBClient, tableName: string): Promise<TableDescription | undefined> => {
  const deadline = Date.now() + ACTIVE_WITHIN_MS;
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const pending = (Table?.GlobalSecondaryIndexes ?? []).filter((index) => index.IndexStatus !== 'ACTIVE');
    if (Table?.TableStatus === 'ACTIVE' && pending.length === 0) return Table;
    if (Date.now() > deadline) {
      const what = [
        ...(Table?.TableStatus === 'ACTIVE' ? [] : [`the table is ${Table?.TableStatus}`]),
        ...pending.map((index) => `index ${index.IndexName} is ${index.IndexStatus}`),
      ];
      throw new Error(`Table ${tableName} is not ready after ${ACTIVE_WITHIN_MS / 1000} s: ${what.join(', ')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

/** Whether a table expires items by TTL already. */
const timeToLiveEnabled = async (client: DynamoDBClient, tableName: string): Promise<boolean> => {
  const { TimeToLiveDescription } = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
  const status = TimeToLiveDescription?.TimeToLiveStatus;
  return status === 'ENABLED' || status === 'ENABLING';
};

/**
 * Creates a table unless it exists, adding any index an existing one lacks; returns whether it was created.
 * Waits until it is ACTIVE.
 */
export const ensureTable = async (
  client: DynamoDBClient,
  definition: TableDefinition,
  tableName: string,
): Promise<boolean> => {
  let created = false;
  try {
    await client.send(new CreateTableCommand(createTableInput(definition, tableName)));
    created = true;
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  let table = await waitUntilActive(client, tableName);
  // A table made by an earlier version lacks the indexes added since (a data directory kept across
  // upgrades); each is added the way CloudFormation does it, one per update.
  for (const index of definition.globalSecondaryIndexes) {
    if (table?.GlobalSecondaryIndexes?.some((existing) => existing.IndexName === index.indexName)) continue;
    const input = createTableInput(definition, tableName);
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: input.AttributeDefinitions,
        GlobalSecondaryIndexUpdates: [
          { Create: input.GlobalSecondaryIndexes?.find((candidate) => candidate.IndexName === index.indexName) },
        ],
      }),
    );
    table = await waitUntilActive(client, tableName);
  }
  // A table made before its definition had a TTL attribute gets it too (the jobs table's idempotency records).
  if (definition.timeToLiveAttribute !== undefined && (created || !(await timeToLiveEnabled(client, tableName)))) {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { Enabled: true, AttributeName: definition.timeToLiveAttribute },
      }),
    );
  }
  return created;
};
