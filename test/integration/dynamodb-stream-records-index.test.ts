/**
 * DynamoDB Local with its database in a file gets an index on its stream records
 * (local/dynamodb/stream-records-index.ts): the lookup every write to a table with a stream makes is answered
 * from it, and the streams still hold exactly their own records when other tables wrote and went before them.
 * Runs on the worker's instance, which keeps its database in a file as the local stack's `DATA_DIR` does.
 */
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { afterAll, describe, expect, it } from 'vitest';
import { DATABASE_FILE, indexStreamRecords, STREAM_RECORDS_INDEX } from '../../local/dynamodb/stream-records-index';
import { localClient, sharedDynamodbDatabase, sharedDynamodbEndpoint } from '../support/dynamo';

const client: DynamoDBClient = localClient();
const streams = new DynamoDBStreamsClient({
  endpoint: sharedDynamodbEndpoint(),
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
const scratch: string[] = [];

afterAll(async () => {
  client.destroy();
  streams.destroy();
  await Promise.all(scratch.map((directory) => rm(directory, { recursive: true, force: true })));
});

/** A table with a stream of new and old images, keyed by `pk`; resolves to its stream's ARN. */
const tableWithStream = async (name: string): Promise<string> => {
  await client.send(
    new CreateTableCommand({
      TableName: name,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
    }),
  );
  const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
  return Table!.LatestStreamArn!;
};

const putAll = async (table: string, keys: string[]): Promise<void> => {
  for (const pk of keys) await client.send(new PutItemCommand({ TableName: table, Item: { pk: { S: pk } } }));
};

/** The keys of every record of a stream, in order. */
const streamKeys = async (arn: string): Promise<string[]> => {
  const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: arn }));
  const keys: string[] = [];
  for (const shard of StreamDescription?.Shards ?? []) {
    let iterator = (
      await streams.send(
        new GetShardIteratorCommand({ StreamArn: arn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' }),
      )
    ).ShardIterator;
    while (iterator !== undefined) {
      const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
      keys.push(...(page.Records ?? []).map((record) => record.dynamodb!.Keys!.pk!.S!));
      if ((page.Records ?? []).length === 0) break;
      iterator = page.NextShardIterator;
    }
  }
  return keys;
};

describe("DynamoDB Local's stream records, indexed", () => {
  it('are looked up by stream through the index, not by walking every record', () => {
    const database = new DatabaseSync(join(sharedDynamodbDatabase(), DATABASE_FILE), { readOnly: true });
    try {
      const indexes = database
        .prepare("SELECT name, tbl_name AS tableName FROM sqlite_master WHERE type = 'index' AND name = ?")
        .all(STREAM_RECORDS_INDEX);
      expect(indexes).toEqual([{ name: STREAM_RECORDS_INDEX, tableName: 'us' }]);
      // The lookup DynamoDB Local makes on every write to a table with a stream.
      const plan = database
        .prepare('EXPLAIN QUERY PLAN SELECT MIN(SequenceNumber) FROM us WHERE StreamID = ?')
        .all('any') as { detail: string }[];
      expect(plan.map((step) => step.detail).join('\n')).toContain(`USING COVERING INDEX ${STREAM_RECORDS_INDEX}`);
    } finally {
      database.close();
    }
  });

  it("keep each stream's own records, in order, after other tables wrote and were deleted before it", async () => {
    const suffix = Math.random().toString(36).slice(2, 10);
    const gone = `gone-${suffix}`;
    await tableWithStream(gone);
    await putAll(gone, ['g1', 'g2', 'g3']);
    await client.send(new DeleteTableCommand({ TableName: gone }));

    const first = `first-${suffix}`;
    const second = `second-${suffix}`;
    const [firstArn, secondArn] = [await tableWithStream(first), await tableWithStream(second)];
    expect(await streamKeys(secondArn)).toEqual([]);
    await putAll(second, ['s1', 's2']);
    await putAll(first, ['f1']);
    await putAll(second, ['s3']);

    expect(await streamKeys(firstArn)).toEqual(['f1']);
    expect(await streamKeys(secondArn)).toEqual(['s1', 's2', 's3']);
  });

  it('are not touched where the database file holds no stream records table DynamoDB Local would keep, and say so', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'stream-index-'));
    scratch.push(dataDir);
    const other = new DatabaseSync(join(dataDir, DATABASE_FILE));
    other.exec('CREATE TABLE records (Id INTEGER PRIMARY KEY, Body BLOB)');
    other.close();
    // Answers ListTables as DynamoDB Local would, with no tables.
    const server: Server = createServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/x-amz-json-1.0' }).end('{"TableNames":[]}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const endpoint = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
    try {
      await expect(indexStreamRecords(endpoint, dataDir)).rejects.toThrow(
        /has no stream records table \(us\) with StreamID and SequenceNumber columns/,
      );
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    const after = new DatabaseSync(join(dataDir, DATABASE_FILE), { readOnly: true });
    expect(after.prepare("SELECT name FROM sqlite_master WHERE type = 'index'").all()).toEqual([]);
    after.close();
  });
});
