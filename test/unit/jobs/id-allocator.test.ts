/**
 * The id allocator on a mocked DynamoDB: the counter update that reserves a block (its range, its
 * `attribute_not_exists` start, its bound at the range's end), how blocks are handed out and shared, and an
 * import's claim of the ids it is about to write (taken ids, the counter moved past the free ones, a lost
 * race decided again).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  API_ID_RANGE,
  claimImportIds,
  DEFAULT_BLOCK_SIZE,
  IdAllocator,
  idAllocatorFor,
  IdsExhaustedError,
  isApiRangeId,
} from '../../../functions/jobs/store/id-allocator';
import { JobsTable } from '../../../functions/jobs/store/jobs-table';
import { ApiError } from '../../../functions/http/errors';

const documents = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const mock = mockClient(documents);
const named = (name: string): Error => Object.assign(new Error(name), { name });
const conditionFailed = (): Error => named('ConditionalCheckFailedException');

let pauses: number[];
const table = (name = 'jobs'): JobsTable =>
  new JobsTable(documents, name, {
    random: () => 1,
    sleep: async (ms) => {
      pauses.push(ms);
    },
  });

/** The counter as DynamoDB keeps it: `next` moved on by each reservation's `:size`. */
const counterAt = (start: number | undefined): void => {
  let next = start;
  mock.on(UpdateCommand).callsFake(async (input: { ExpressionAttributeValues: Record<string, number> }) => {
    next = (next ?? input.ExpressionAttributeValues[':first']!) + input.ExpressionAttributeValues[':size']!;
    return { Attributes: { next } };
  });
};
const updates = () => mock.commandCalls(UpdateCommand).map((call) => call.args[0].input);

beforeEach(() => {
  mock.reset();
  pauses = [];
});

describe('the API id range', () => {
  it('starts at one billion and ends before 10^15', () => {
    expect(isApiRangeId(API_ID_RANGE.first - 1)).toBe(false);
    expect(isApiRangeId(API_ID_RANGE.first)).toBe(true);
    expect(isApiRangeId(API_ID_RANGE.end - 1)).toBe(true);
    expect(isApiRangeId(API_ID_RANGE.end)).toBe(false);
    expect(API_ID_RANGE).toEqual({ first: 1_000_000_000, end: 1_000_000_000_000_000 });
  });
});

describe('reserving a block', () => {
  it('moves the counter by a block, starting it at the range when absent, bounded at the range end', async () => {
    counterAt(undefined);
    const ids = await new IdAllocator(table(), { blockSize: 10 }).allocate(3);

    expect(ids).toEqual([API_ID_RANGE.first, API_ID_RANGE.first + 1, API_ID_RANGE.first + 2]);
    expect(updates()).toEqual([
      {
        TableName: 'jobs',
        Key: { pk: 'IDS', sk: 'COUNTER' },
        UpdateExpression: 'SET #next = if_not_exists(#next, :first) + :size',
        ConditionExpression: 'attribute_not_exists(#next) OR #next <= :lastStart',
        ExpressionAttributeNames: { '#next': 'next' },
        ExpressionAttributeValues: { ':first': API_ID_RANGE.first, ':size': 10, ':lastStart': API_ID_RANGE.end - 10 },
        ReturnValues: 'UPDATED_NEW',
      },
    ]);
  });

  it('hands out the ids of its block before reserving another, one update per block', async () => {
    counterAt(5_000_000_000);
    const allocator = new IdAllocator(table(), { blockSize: 4 });

    expect(await allocator.allocate(3)).toEqual([5_000_000_000, 5_000_000_001, 5_000_000_002]);
    expect(await allocator.allocate(1)).toEqual([5_000_000_003]);
    expect(updates()).toHaveLength(1);
    expect(await allocator.allocate(2)).toEqual([5_000_000_004, 5_000_000_005]);
    expect(updates()).toHaveLength(2);
  });

  it('reserves a larger block when one request needs more ids than a block holds', async () => {
    counterAt(2_000_000_000);
    const allocator = new IdAllocator(table(), { blockSize: 4 });

    const ids = await allocator.allocate(6);

    expect(ids).toEqual([0, 1, 2, 3, 4, 5].map((offset) => 2_000_000_000 + offset));
    expect(updates().map((input) => input.ExpressionAttributeValues?.[':size'])).toEqual([6]);
  });

  it('tops up a block that runs out with what is still missing, at least a block', async () => {
    counterAt(3_000_000_000);
    const allocator = new IdAllocator(table(), { blockSize: 4 });
    await allocator.allocate(3);

    const ids = await allocator.allocate(7);

    expect(ids[0]).toBe(3_000_000_003);
    expect(ids.slice(1)).toEqual([0, 1, 2, 3, 4, 5].map((offset) => 3_000_000_004 + offset));
    expect(updates().map((input) => input.ExpressionAttributeValues?.[':size'])).toEqual([4, 6]);
  });

  it('reserves a block of one at least, and 1,024 ids by default', async () => {
    counterAt(4_000_000_000);
    const single = new IdAllocator(table(), { blockSize: 0 });
    await single.allocate(1);
    await single.allocate(1);
    await new IdAllocator(table()).allocate(1);

    expect(updates().map((input) => input.ExpressionAttributeValues?.[':size'])).toEqual([1, 1, DEFAULT_BLOCK_SIZE]);
    expect(DEFAULT_BLOCK_SIZE).toBe(1_024);
  });

  it('lets concurrent requests share one reservation, each with ids of its own', async () => {
    counterAt(6_000_000_000);
    const allocator = new IdAllocator(table(), { blockSize: 10 });

    const [first, second] = await Promise.all([allocator.allocate(2), allocator.allocate(3)]);

    expect(first).toEqual([6_000_000_000, 6_000_000_001]);
    expect(second).toEqual([6_000_000_002, 6_000_000_003, 6_000_000_004]);
    expect(updates()).toHaveLength(1);
  });

  it('answers IdsExhaustedError (500) once the counter is at the end of the range', async () => {
    mock.on(UpdateCommand).rejects(conditionFailed());
    const outcome = new IdAllocator(table()).allocate(1);

    await expect(outcome).rejects.toBeInstanceOf(IdsExhaustedError);
    await expect(outcome).rejects.toBeInstanceOf(ApiError);
    await expect(outcome).rejects.toMatchObject({
      name: 'IdsExhaustedError',
      code: 'internal_error',
      message: 'No new id can be assigned.',
    });
  });

  it('passes on any other failure, and serves the next request after it', async () => {
    const refused = named('ValidationException');
    mock
      .on(UpdateCommand)
      .rejectsOnce(refused)
      .resolves({ Attributes: { next: 7_000_000_010 } });
    const allocator = new IdAllocator(table(), { blockSize: 10 });

    await expect(allocator.allocate(1)).rejects.toBe(refused);
    await expect(allocator.allocate(1)).resolves.toEqual([7_000_000_000]);
  });

  it('refuses an answer that holds no counter value', async () => {
    mock.on(UpdateCommand).resolves({ Attributes: { next: '12' } });
    await expect(new IdAllocator(table()).allocate(1)).rejects.toThrow('The id counter answered no value');
    mock.on(UpdateCommand).resolves({});
    await expect(new IdAllocator(table()).allocate(1)).rejects.toThrow('The id counter answered no value');
  });
});

describe('the allocator of a container', () => {
  it('is one per table name, keeps its block and reserves through the latest gateway', async () => {
    counterAt(8_000_000_000);
    const first = table('jobs-allocator-one');
    const allocator = idAllocatorFor(first);
    await allocator.allocate(1);

    const again = idAllocatorFor(table('jobs-allocator-one'));

    expect(again).toBe(allocator);
    expect(idAllocatorFor(table('jobs-allocator-two'))).not.toBe(allocator);
    expect(await again.allocate(1)).toEqual([8_000_000_001]);
    expect(updates()).toHaveLength(1);
  });

  it('sends the next reservation through the gateway of the latest request', async () => {
    const oldDocuments = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
    const oldMock = mockClient(oldDocuments);
    oldMock.on(UpdateCommand).resolves({ Attributes: { next: 9_000_001_024 } });
    mock.on(UpdateCommand).resolves({ Attributes: { next: 9_000_002_048 } });
    const name = 'jobs-allocator-three';
    await idAllocatorFor(new JobsTable(oldDocuments, name)).allocate(DEFAULT_BLOCK_SIZE);

    const ids = await idAllocatorFor(new JobsTable(documents, name)).allocate(1);

    expect(ids).toEqual([9_000_001_024]);
    expect(oldMock.commandCalls(UpdateCommand)).toHaveLength(1);
    expect(mock.commandCalls(UpdateCommand)).toHaveLength(1);
    oldMock.restore();
  });
});

describe("an import's claim of ids", () => {
  it('asks nothing for ids outside the API range', async () => {
    await expect(claimImportIds(table(), [5, 17, API_ID_RANGE.end])).resolves.toEqual(new Set());
    expect(mock.calls()).toHaveLength(0);
  });

  it('answers the ids below the counter and moves the counter past the others', async () => {
    mock.on(GetCommand).resolves({ Item: { pk: 'IDS', sk: 'COUNTER', next: 1_000_000_100 } });
    mock.on(UpdateCommand).resolves({});

    const taken = await claimImportIds(table(), [1_000_000_099, 1_000_000_100, 1_000_000_150, 1_000_000_120, 3]);

    expect(taken).toEqual(new Set([1_000_000_099]));
    expect(mock.commandCalls(GetCommand)[0]?.args[0].input).toEqual({
      TableName: 'jobs',
      Key: { pk: 'IDS', sk: 'COUNTER' },
      ConsistentRead: true,
    });
    expect(updates()).toEqual([
      {
        TableName: 'jobs',
        Key: { pk: 'IDS', sk: 'COUNTER' },
        UpdateExpression: 'SET #next = :past',
        ConditionExpression: '#next = :read',
        ExpressionAttributeNames: { '#next': 'next' },
        ExpressionAttributeValues: { ':past': 1_000_000_151, ':read': 1_000_000_100 },
      },
    ]);
  });

  it('moves the counter past an id equal to it: the next id the API would assign', async () => {
    mock.on(GetCommand).resolves({ Item: { next: 1_000_000_100 } });
    mock.on(UpdateCommand).resolves({});

    await expect(claimImportIds(table(), [1_000_000_100])).resolves.toEqual(new Set());
    expect(updates()[0]?.ExpressionAttributeValues).toEqual({ ':past': 1_000_000_101, ':read': 1_000_000_100 });
  });

  it('writes nothing when every id was taken already', async () => {
    mock.on(GetCommand).resolves({ Item: { next: 1_000_000_100 } });

    const taken = await claimImportIds(table(), [1_000_000_000, 1_000_000_099, 1_000_000_099]);

    expect(taken).toEqual(new Set([1_000_000_000, 1_000_000_099]));
    expect(updates()).toHaveLength(0);
  });

  it('creates the counter past the ids when there is none yet', async () => {
    mock.on(GetCommand).resolves({});
    mock.on(UpdateCommand).resolves({});

    await expect(claimImportIds(table(), [API_ID_RANGE.first, 1_000_000_005])).resolves.toEqual(new Set());

    expect(updates()[0]).toMatchObject({
      ConditionExpression: 'attribute_not_exists(#next)',
      ExpressionAttributeValues: { ':past': 1_000_000_006 },
    });
    expect(updates()[0]?.ExpressionAttributeValues).not.toHaveProperty(':read');
  });

  it('reads a counter without a number as no counter', async () => {
    mock.on(GetCommand).resolves({ Item: { pk: 'IDS', sk: 'COUNTER', next: '1000000100' } });
    mock.on(UpdateCommand).resolves({});

    await expect(claimImportIds(table(), [1_000_000_050])).resolves.toEqual(new Set());
    expect(updates()[0]?.ConditionExpression).toBe('attribute_not_exists(#next)');
  });

  it('decides again after a create moved the counter, pausing longer each time', async () => {
    mock
      .on(GetCommand)
      .resolvesOnce({ Item: { next: 1_000_000_010 } })
      .resolvesOnce({ Item: { next: 1_000_000_030 } })
      .resolves({ Item: { next: 1_000_000_040 } });
    mock.on(UpdateCommand).rejectsOnce(conditionFailed()).rejectsOnce(conditionFailed()).resolves({});

    const taken = await claimImportIds(table(), [1_000_000_020, 1_000_000_035, 1_000_000_050]);

    expect(taken).toEqual(new Set([1_000_000_020, 1_000_000_035]));
    expect(updates().map((input) => input.ExpressionAttributeValues)).toEqual([
      { ':past': 1_000_000_051, ':read': 1_000_000_010 },
      { ':past': 1_000_000_051, ':read': 1_000_000_030 },
      { ':past': 1_000_000_051, ':read': 1_000_000_040 },
    ]);
    expect(pauses).toEqual([20, 40]);
  });

  it('gives up after 100 lost races, keeping the last as the cause', async () => {
    mock.on(GetCommand).resolves({ Item: { next: 1_000_000_010 } });
    const lost = conditionFailed();
    mock.on(UpdateCommand).rejects(lost);

    const outcome = claimImportIds(table(), [1_000_000_020]);

    await expect(outcome).rejects.toThrow("The id counter changed on each of 100 attempts to claim an import's ids");
    await expect(outcome).rejects.toMatchObject({ cause: lost });
    expect(updates()).toHaveLength(100);
    expect(pauses).toHaveLength(99);
    expect(Math.max(...pauses)).toBe(400);
  });

  it('passes on a failure that is not a lost race at once', async () => {
    mock.on(GetCommand).resolves({ Item: { next: 1_000_000_010 } });
    const refused = named('ValidationException');
    mock.on(UpdateCommand).rejects(refused);

    await expect(claimImportIds(table(), [1_000_000_020])).rejects.toBe(refused);
    expect(updates()).toHaveLength(1);
  });
});
