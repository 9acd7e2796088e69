/**
 * Creates the tables of `functions/tables.ts` in DynamoDB Local, the way the CDK stack defines them.
 */
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
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

/** Creates a table unless it exists; returns whether it was created. Waits until it is ACTIVE. */
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
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === 'ACTIVE') break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (created && definition.timeToLiveAttribute !== undefined) {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { Enabled: true, AttributeName: definition.timeToLiveAttribute },
      }),
    );
  }
  return created;
};
