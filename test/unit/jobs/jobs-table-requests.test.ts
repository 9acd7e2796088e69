/**
 * The jobs-table gateway's requests on a mocked DynamoDB: the keys, indexes, consistency, limits and pages of
 * each read, the chunks of the batch requests and the batches left unprocessed, and the backoff between
 * attempts. (Its contention policy and classifier: jobs-table.test.ts.)
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { DependencyUnavailableError } from '../../../functions/http/errors';
import { toFileItem, toJobItem } from '../../../functions/jobs/store/items';
import { DEFAULT_RETRY_POLICY, JobsTable, type WriteRequest } from '../../../functions/jobs/store/jobs-table';
import { makeFile, makeJob } from '../../support/jobs';

const documents = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const mock = mockClient(documents);

let waits: number[];
const table = (options: ConstructorParameters<typeof JobsTable>[2] = {}) =>
  new JobsTable(documents, 'jobs', {
    random: () => 1,
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...options,
  });
const inputs = <T>(command: new (input: T) => unknown) =>
  mock.commandCalls(command as never).map((call) => (call.args[0] as { input: T }).input);
const collect = async <T>(iterable: AsyncIterable<T>): Promise<T[]> => {
  const all: T[] = [];
  for await (const each of iterable) all.push(each);
  return all;
};
const keys = (count: number, from = 0) =>
  Array.from({ length: count }, (_, index) => ({ pk: `JOB#${from + index}`, sk: 'JOB' }));

beforeEach(() => {
  mock.reset();
  waits = [];
});

describe('the retry policy', () => {
  it('is ten attempts, waits of 20 ms doubling up to 400 ms, within 7 seconds, unless told otherwise', () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({ maxAttempts: 10, baseDelayMs: 20, maxDelayMs: 400, budgetMs: 7_000 });
    expect(table().retry).toEqual(DEFAULT_RETRY_POLICY);
    expect(table({ retry: { maxAttempts: 2 } }).retry).toEqual({ ...DEFAULT_RETRY_POLICY, maxAttempts: 2 });
  });

  it('waits a random share of the growing, capped backoff', async () => {
    const full = table();
    expect([1, 2, 3, 5, 6, 9].map((attempt) => full.backoff(attempt))).toEqual([20, 40, 80, 320, 400, 400]);
    expect(table({ random: () => 0.25 }).backoff(3)).toBe(20);
    await full.pause(2);
    expect(waits).toEqual([40]);
  });
});

describe('the reads', () => {
  it('reads a partition strongly consistently by default, eventually when asked, every page', async () => {
    const job = makeJob({ files: [makeFile()] });
    mock
      .on(QueryCommand)
      .callsFake(async (input: { ExclusiveStartKey?: object }) =>
        input.ExclusiveStartKey === undefined
          ? { Items: [toJobItem(job, 2)], LastEvaluatedKey: { pk: 'a', sk: 'b' } }
          : { Items: [toFileItem(job.id, job.files[0]!)] },
      );

    await expect(table().readJob(job.id)).resolves.toEqual({ job, version: 2 });
    await expect(table().readJob(job.id, { consistent: false })).resolves.toEqual({ job, version: 2 });

    expect(inputs(QueryCommand)).toStrictEqual([
      {
        TableName: 'jobs',
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `JOB#${job.id}` },
        ConsistentRead: true,
        ExclusiveStartKey: undefined,
      },
      expect.objectContaining({ ConsistentRead: true, ExclusiveStartKey: { pk: 'a', sk: 'b' } }),
      expect.objectContaining({ ConsistentRead: false, ExclusiveStartKey: undefined }),
      expect.objectContaining({ ConsistentRead: false, ExclusiveStartKey: { pk: 'a', sk: 'b' } }),
    ]);
  });

  it('answers undefined for a partition without a job item, and for an empty answer', async () => {
    mock.on(QueryCommand).resolves({});
    await expect(table().readJob(1)).resolves.toBeUndefined();
    await expect(table().readPartition(1, true)).resolves.toEqual([]);
  });

  it('reads a job item and any item by key, strongly consistently', async () => {
    mock.on(GetCommand).resolves({ Item: { pk: 'JOB#3', sk: 'JOB', entity: 'job' } });

    await expect(table().getJobItem(3)).resolves.toEqual({ pk: 'JOB#3', sk: 'JOB', entity: 'job' });
    await table().getItem({ pk: 'IDS', sk: 'COUNTER' });

    expect(inputs(GetCommand)).toEqual([
      { TableName: 'jobs', Key: { pk: 'JOB#3', sk: 'JOB' }, ConsistentRead: true },
      { TableName: 'jobs', Key: { pk: 'IDS', sk: 'COUNTER' }, ConsistentRead: true },
    ]);
    mock.on(GetCommand).resolves({});
    await expect(table().getJobItem(3)).resolves.toBeUndefined();
  });

  it('lists the file ids of one review state from the byReview index, keeping only numbers', async () => {
    mock.on(QueryCommand).resolves({ Items: [{ fileId: 4 }, { fileId: '5' }, {}, { fileId: 6 }] });

    await expect(table().reviewFileIds(12, 'rejected', undefined, 3)).resolves.toEqual({ ids: [4, 6], cut: false });
    await table().reviewFileIds(12, 'pending', 4, 2);

    expect(inputs(QueryCommand)).toStrictEqual([
      {
        TableName: 'jobs',
        IndexName: 'byReview',
        KeyConditionExpression: '#reviewKey = :key',
        ExpressionAttributeNames: { '#reviewKey': 'reviewKey' },
        ExpressionAttributeValues: { ':key': '12#rejected' },
        Limit: 3,
      },
      {
        TableName: 'jobs',
        IndexName: 'byReview',
        KeyConditionExpression: '#reviewKey = :key AND #fileId > :after',
        ExpressionAttributeNames: { '#reviewKey': 'reviewKey', '#fileId': 'fileId' },
        ExpressionAttributeValues: { ':key': '12#pending', ':after': 4 },
        Limit: 2,
      },
    ]);
    mock.on(QueryCommand).resolves({});
    await expect(table().reviewFileIds(12, 'rejected', 0, 3)).resolves.toEqual({ ids: [], cut: false });
  });

  it('adds the padded key of a file the index still names at its former key, and no key twice', async () => {
    mock.on(QueryCommand).resolves({
      Items: [
        { pk: 'JOB#1', sk: 'FILE#7', fileId: 7 },
        { pk: 'JOB#1', sk: 'FILE#0000000000000007', fileId: 7 },
        { pk: 'JOB#2', sk: 'FILE#0000000000000007', fileId: 7 },
      ],
    });

    await expect(table().locateFile(7)).resolves.toEqual([
      { pk: 'JOB#1', sk: 'FILE#7' },
      { pk: 'JOB#1', sk: 'FILE#0000000000000007' },
      { pk: 'JOB#2', sk: 'FILE#0000000000000007' },
    ]);
  });

  it('locates a file id on the byFileId index, every page, keeping the keys only', async () => {
    mock
      .on(QueryCommand)
      .resolvesOnce({
        Items: [
          { pk: 'JOB#1', sk: 'FILE#0000000000000007', fileId: 7 },
          { pk: 'JOB#2' },
          { sk: 'FILE#0000000000000007' },
        ],
        LastEvaluatedKey: { fileId: 7, pk: 'JOB#1', sk: 'FILE#0000000000000007' },
      })
      .resolves({ Items: [{ pk: 'JOB#3', sk: 'FILE#0000000000000007' }] });

    await expect(table().locateFile(7)).resolves.toEqual([
      { pk: 'JOB#1', sk: 'FILE#0000000000000007' },
      { pk: 'JOB#3', sk: 'FILE#0000000000000007' },
    ]);
    expect(inputs(QueryCommand)).toStrictEqual([
      {
        TableName: 'jobs',
        IndexName: 'byFileId',
        KeyConditionExpression: '#fileId = :fileId',
        ExpressionAttributeNames: { '#fileId': 'fileId' },
        ExpressionAttributeValues: { ':fileId': 7 },
      },
      expect.objectContaining({ ExclusiveStartKey: { fileId: 7, pk: 'JOB#1', sk: 'FILE#0000000000000007' } }),
    ]);
    mock.on(QueryCommand).resolves({});
    await expect(table().locateFile(7)).resolves.toEqual([]);
  });

  it('reads keys 100 per BatchGetItem, strongly consistently', async () => {
    mock.on(BatchGetCommand).callsFake(async (input: { RequestItems: { jobs: { Keys: object[] } } }) => ({
      Responses: { jobs: input.RequestItems.jobs.Keys },
    }));

    await expect(table().batchGet(keys(201))).resolves.toHaveLength(201);

    const sent = inputs(BatchGetCommand).map((input) => input.RequestItems?.jobs);
    expect(sent.map((request) => request?.Keys?.length)).toEqual([100, 100, 1]);
    expect(sent.every((request) => request?.ConsistentRead === true)).toBe(true);
    expect(sent[2]?.Keys).toEqual(keys(1, 200));
  });

  it('reads no key with no request, and takes an answer without responses as none', async () => {
    await expect(table().batchGet([])).resolves.toEqual([]);
    expect(inputs(BatchGetCommand)).toHaveLength(0);
    mock.on(BatchGetCommand).resolves({});
    await expect(table().batchGet(keys(2))).resolves.toEqual([]);
  });

  it('asks again for the keys a batch read left unprocessed, after a backoff, then reports DynamoDB unavailable', async () => {
    mock.on(BatchGetCommand).resolves({ UnprocessedKeys: { jobs: { Keys: keys(1, 5) } } });

    const outcome = table({ retry: { maxAttempts: 3 } }).batchGet(keys(2));

    await expect(outcome).rejects.toBeInstanceOf(DependencyUnavailableError);
    await expect(outcome).rejects.toMatchObject({
      dependency: 'dynamodb',
      cause: { message: 'BatchGetItem left keys unprocessed' },
    });
    expect(inputs(BatchGetCommand).map((input) => input.RequestItems?.jobs?.Keys)).toEqual([
      keys(2),
      keys(1, 5),
      keys(1, 5),
    ]);
    expect(waits).toEqual([20, 40]);
  });

  it('scans page by page, each page after the last key of the one before', async () => {
    mock
      .on(ScanCommand)
      .resolvesOnce({ Items: [{ pk: 'a' }], LastEvaluatedKey: { pk: 'a', sk: 'b' } })
      .resolvesOnce({ LastEvaluatedKey: { pk: 'c', sk: 'd' } })
      .resolves({ Items: [{ pk: 'e' }] });

    await expect(collect(table().scanPages({ Limit: 5 }))).resolves.toEqual([[{ pk: 'a' }], [], [{ pk: 'e' }]]);
    expect(inputs(ScanCommand)).toEqual([
      { TableName: 'jobs', Limit: 5, ExclusiveStartKey: undefined },
      { TableName: 'jobs', Limit: 5, ExclusiveStartKey: { pk: 'a', sk: 'b' } },
      { TableName: 'jobs', Limit: 5, ExclusiveStartKey: { pk: 'c', sk: 'd' } },
    ]);
  });
});

describe('the writes', () => {
  it('sends a put, an update and a transaction to the table as given', async () => {
    mock.on(PutCommand).resolves({});
    mock.on(UpdateCommand).resolves({ Attributes: { next: 3 } });
    mock.on(TransactWriteCommand).resolves({});
    const gateway = table();

    await gateway.putItem({ Item: { pk: 'a', sk: 'b' }, ConditionExpression: 'attribute_not_exists(pk)' });
    await expect(gateway.updateItem({ Key: { pk: 'a', sk: 'b' }, UpdateExpression: 'SET x = :x' })).resolves.toEqual({
      next: 3,
    });
    await gateway.transactWrite([{ Delete: { TableName: 'jobs', Key: { pk: 'a', sk: 'b' } } }]);

    expect(inputs(PutCommand)).toEqual([
      { TableName: 'jobs', Item: { pk: 'a', sk: 'b' }, ConditionExpression: 'attribute_not_exists(pk)' },
    ]);
    expect(inputs(UpdateCommand)).toEqual([
      { TableName: 'jobs', Key: { pk: 'a', sk: 'b' }, UpdateExpression: 'SET x = :x' },
    ]);
    expect(inputs(TransactWriteCommand)).toEqual([
      { TransactItems: [{ Delete: { TableName: 'jobs', Key: { pk: 'a', sk: 'b' } } }] },
    ]);
  });

  it('writes 25 requests per BatchWriteItem', async () => {
    mock.on(BatchWriteCommand).resolves({});
    const requests: WriteRequest[] = keys(51).map((key) => ({ DeleteRequest: { Key: key } }));

    await table().batchWrite(requests);

    const sent = inputs(BatchWriteCommand).map((input) => input.RequestItems?.jobs);
    expect(sent.map((batch) => batch?.length)).toEqual([25, 25, 1]);
    expect(sent[2]).toEqual([{ DeleteRequest: { Key: keys(1, 50)[0] } }]);
    mock.resetHistory();
    await table().batchWrite([]);
    expect(inputs(BatchWriteCommand)).toHaveLength(0);
  });

  it('sends again the requests a batch left unprocessed, then reports DynamoDB unavailable', async () => {
    const left = [{ DeleteRequest: { Key: keys(1, 9)[0] } }];
    mock.on(BatchWriteCommand).resolves({ UnprocessedItems: { jobs: left } });

    const outcome = table({ retry: { maxAttempts: 2 } }).batchWrite([
      { DeleteRequest: { Key: keys(1)[0]! } },
      ...left,
    ] as WriteRequest[]);

    await expect(outcome).rejects.toBeInstanceOf(DependencyUnavailableError);
    await expect(outcome).rejects.toMatchObject({ cause: { message: 'BatchWriteItem left items unprocessed' } });
    expect(inputs(BatchWriteCommand).map((input) => input.RequestItems?.jobs)).toEqual([
      [{ DeleteRequest: { Key: keys(1)[0] } }, ...left],
      left,
    ]);
    expect(waits).toEqual([20]);
  });

  it('stops resending once the batch is written', async () => {
    const left = [{ DeleteRequest: { Key: keys(1, 9)[0] } }];
    mock
      .on(BatchWriteCommand)
      .resolvesOnce({ UnprocessedItems: { jobs: left } })
      .resolves({ UnprocessedItems: {} });

    await table().batchWrite(left as WriteRequest[]);

    expect(inputs(BatchWriteCommand)).toHaveLength(2);
  });
});
