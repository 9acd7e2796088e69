/**
 * Stream situations DynamoDB Local cannot be made to produce on demand — a shard closing and a child
 * shard taking over, an expired iterator, binary attributes — played against the poller with a mocked
 * DynamoDB Streams API.
 */
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamsRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type DeadLetter,
  type PollerLogger,
  type StreamPoller,
  type StreamPollerOptions,
  startStreamPoller,
  toLambdaRecord,
} from '../../local/streams/poller';
import { mockStreamedTable, quietPollerLogger, STREAM_ARN } from '../support/mocked-stream';

const streams = mockClient(DynamoDBStreamsClient);

const record = (jobId: number, sequenceNumber: string): StreamsRecord => ({
  eventID: `event-${sequenceNumber}`,
  eventName: 'INSERT',
  eventVersion: '1.1',
  eventSource: 'aws:dynamodb',
  awsRegion: 'ddblocal',
  dynamodb: {
    ApproximateCreationDateTime: new Date('2024-05-06T15:22:02.860Z'),
    Keys: { pk: { S: `JOB#${jobId}` }, sk: { S: 'JOB' } },
    NewImage: { pk: { S: `JOB#${jobId}` }, sk: { S: 'JOB' }, version: { N: '1' } },
    SequenceNumber: sequenceNumber,
    SizeBytes: 42,
    StreamViewType: 'NEW_AND_OLD_IMAGES',
  },
});

let poller: StreamPoller | undefined;

const start = async (delivered: DynamoDBRecord[], options: Partial<StreamPollerOptions> = {}) => {
  poller = await startStreamPoller({
    endpoint: 'http://127.0.0.1:1',
    region: 'us-east-1',
    tableName: 'jobs',
    handler: async (event) => {
      delivered.push(...event.Records);
      return { batchItemFailures: [] };
    },
    pollIntervalMs: 5,
    batchWindowMs: 1,
    shardRefreshMs: 10,
    retryDelayMs: 1,
    logger: quietPollerLogger,
    ...options,
  });
  return poller;
};

beforeEach(() => {
  mockStreamedTable();
  streams.reset();
  streams.on(GetShardIteratorCommand).callsFake(async (input: { ShardId: string; SequenceNumber?: string }) => ({
    ShardIterator: `${input.ShardId}@${input.SequenceNumber ?? 'start'}`,
  }));
});

afterEach(async () => {
  await poller?.stop();
  poller = undefined;
});

describe('stream poller on a changing stream', () => {
  it.each([
    ['finds a child shard that appears later', 3],
    ['holds back a child shard listed from the start', 1],
  ])('reads a closed parent shard to its end before its child, and %s', async (_, childFrom) => {
    let describes = 0;
    streams.on(DescribeStreamCommand).callsFake(async () => {
      describes += 1;
      const shards = [
        ...(describes >= childFrom ? [{ ShardId: 'child', ParentShardId: 'parent' }] : []),
        { ShardId: 'parent' },
      ];
      return { StreamDescription: { StreamArn: STREAM_ARN, Shards: shards } };
    });
    const reads = new Map<string, { Records: StreamsRecord[]; NextShardIterator?: string }>([
      ['parent@start', { Records: [record(1, '100'), record(2, '101')], NextShardIterator: 'parent-2' }],
      ['parent-2', { Records: [record(3, '102')], NextShardIterator: 'parent-3' }],
      ['parent-3', { Records: [] }],
      ['child@start', { Records: [record(4, '200')], NextShardIterator: 'child-2' }],
      ['child-2', { Records: [], NextShardIterator: 'child-2' }],
    ]);
    streams.on(GetRecordsCommand).callsFake(async (input: { ShardIterator: string }) => {
      const answer = reads.get(input.ShardIterator);
      if (answer === undefined) throw new Error(`unexpected iterator ${input.ShardIterator}`);
      return answer;
    });
    const delivered: DynamoDBRecord[] = [];

    const running = await start(delivered);
    while (describes < childFrom) await new Promise((resolve) => setTimeout(resolve, 5));
    await running.drained();

    expect(delivered.map((item) => item.dynamodb?.SequenceNumber)).toEqual(['100', '101', '102', '200']);
    expect(running.stats()).toMatchObject({ shards: 2, finishedShards: 1, recordsSucceeded: 4 });
  });

  it.each([
    ['renews the iterator quietly when the shard was read to its end within the retention period', 86_400_000, 'info'],
    ['reports an error naming reindex when records may have been trimmed unread', 0, 'error'],
  ])('%s, and delivers nothing twice', async (_, retentionMs, level) => {
    streams
      .on(DescribeStreamCommand)
      .resolves({ StreamDescription: { StreamArn: STREAM_ARN, Shards: [{ ShardId: 'only' }] } });
    let trimmed = false;
    streams.on(GetRecordsCommand).callsFake(async (input: { ShardIterator: string }) => {
      if (input.ShardIterator === 'only@start') {
        return trimmed
          ? { Records: [record(1, '7'), record(2, '8')], NextShardIterator: 'only-tail' }
          : { Records: [record(1, '7')], NextShardIterator: 'only-a' };
      }
      if (input.ShardIterator === 'only-a') return { Records: [], NextShardIterator: 'only-b' };
      if (input.ShardIterator === 'only-b') {
        trimmed = true;
        throw Object.assign(new Error('Trimmed'), { name: 'TrimmedDataAccessException' });
      }
      return { Records: [], NextShardIterator: 'only-tail' };
    });
    const lines: Array<{ level: string; message: string }> = [];
    const logger: PollerLogger = {
      info: (message) => void lines.push({ level: 'info', message }),
      warn: (message) => void lines.push({ level: 'warn', message }),
      error: (message) => void lines.push({ level: 'error', message }),
    };
    const delivered: DynamoDBRecord[] = [];

    const running = await start(delivered, { logger, retentionMs });
    while (delivered.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    await running.drained();

    expect(delivered.map((item) => item.dynamodb?.SequenceNumber)).toEqual(['7', '8']);
    expect(lines.map((line) => line.level)).toEqual([level]);
    if (level === 'error') expect(lines[0]?.message).toContain('`npm run cli -- reindex`');
    const renewed = streams.commandCalls(GetShardIteratorCommand).map((call) => call.args[0].input);
    expect(renewed.at(-1)).toMatchObject({ ShardId: 'only', ShardIteratorType: 'TRIM_HORIZON' });
  });

  it('renews a TRIM_HORIZON iterator that is stale at its very first read, without a complaint', async () => {
    // DynamoDB Local: the iterator of an empty shard, taken just before another table's write and the
    // shard's first record, reads as "trimmed" although nothing was.
    streams
      .on(DescribeStreamCommand)
      .resolves({ StreamDescription: { StreamArn: STREAM_ARN, Shards: [{ ShardId: 'only' }] } });
    let first = true;
    streams.on(GetRecordsCommand).callsFake(async (input: { ShardIterator: string }) => {
      if (input.ShardIterator === 'only@start' && first) {
        first = false;
        throw Object.assign(new Error('Trimmed'), { name: 'TrimmedDataAccessException' });
      }
      if (input.ShardIterator === 'only@start') return { Records: [record(1, '7')], NextShardIterator: 'only-tail' };
      return { Records: [], NextShardIterator: 'only-tail' };
    });
    const complaints: string[] = [];
    const logger: PollerLogger = {
      info: () => undefined,
      warn: (message) => void complaints.push(message),
      error: (message) => void complaints.push(message),
    };
    const delivered: DynamoDBRecord[] = [];

    const running = await start(delivered, { logger, retentionMs: 0 });
    while (delivered.length < 1) await new Promise((resolve) => setTimeout(resolve, 5));
    await running.drained();

    expect(delivered.map((item) => item.dynamodb?.SequenceNumber)).toEqual(['7']);
    expect(complaints).toEqual([]);
  });

  it('continues after the last record it read when its iterator expires', async () => {
    streams
      .on(DescribeStreamCommand)
      .resolves({ StreamDescription: { StreamArn: STREAM_ARN, Shards: [{ ShardId: 'only' }] } });
    let expired = false;
    streams.on(GetRecordsCommand).callsFake(async (input: { ShardIterator: string }) => {
      if (input.ShardIterator === 'only@start') return { Records: [record(1, '7')], NextShardIterator: 'only-old' };
      if (input.ShardIterator === 'only-old' && !expired) {
        expired = true;
        throw Object.assign(new Error('Iterator expired'), { name: 'ExpiredIteratorException' });
      }
      if (input.ShardIterator === 'only@7') return { Records: [record(2, '8')], NextShardIterator: 'only-tail' };
      return { Records: [], NextShardIterator: 'only-tail' };
    });
    const delivered: DynamoDBRecord[] = [];

    const running = await start(delivered);
    while (delivered.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    await running.drained();

    expect(delivered.map((item) => item.dynamodb?.SequenceNumber)).toEqual(['7', '8']);
    const resumed = streams.commandCalls(GetShardIteratorCommand).map((call) => call.args[0].input);
    expect(resumed).toContainEqual(
      expect.objectContaining({ ShardId: 'only', ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: '7' }),
    );
  });
});

describe('stream record conversion', () => {
  it('writes binary attributes as base64 and the creation time as epoch seconds, like Lambda', () => {
    const raw = record(1, '5');
    raw.dynamodb = {
      ...raw.dynamodb,
      NewImage: {
        blob: { B: new TextEncoder().encode('hi') },
        nested: { M: { list: { L: [{ BS: [new Uint8Array([1, 2])] }, { NULL: true }, { BOOL: false }] } } },
      },
    };

    const converted = toLambdaRecord(raw, STREAM_ARN, 'eu-west-1');

    expect(converted).toMatchObject({
      awsRegion: 'eu-west-1',
      eventSourceARN: STREAM_ARN,
      dynamodb: {
        ApproximateCreationDateTime: 1_715_008_922,
        NewImage: {
          blob: { B: 'aGk=' },
          nested: { M: { list: { L: [{ BS: ['AQI='] }, { NULL: true }, { BOOL: false }] } } },
        },
      },
    });
  });
});

describe('stream poller retries as the deployed event source does', () => {
  /** One open shard holding one record written `ageMs` ago. */
  const oneRecord = (ageMs: number): void => {
    streams
      .on(DescribeStreamCommand)
      .resolves({ StreamDescription: { StreamArn: STREAM_ARN, Shards: [{ ShardId: 'only' }] } });
    const written = {
      ...record(1, '300'),
      dynamodb: { ...record(1, '300').dynamodb, ApproximateCreationDateTime: new Date(Date.now() - ageMs) },
    };
    streams
      .on(GetRecordsCommand)
      .callsFake(async (input: { ShardIterator: string }) =>
        input.ShardIterator === 'only@start'
          ? { Records: [written], NextShardIterator: 'only-end' }
          : { Records: [], NextShardIterator: 'only-end' },
      );
  };

  it('retries a failing record without a count while it is younger than its age limit', async () => {
    oneRecord(0);
    const letters: DeadLetter[] = [];
    let failures = 12;
    const delivered: DynamoDBRecord[] = [];
    const running = await start(delivered, {
      handler: async (event) => {
        delivered.push(...event.Records);
        return failures-- > 0 ? { batchItemFailures: [{ itemIdentifier: '300' }] } : { batchItemFailures: [] };
      },
      maxRetryDelayMs: 1,
      onDeadLetter: (letter) => void letters.push(letter),
    });

    await running.drained();

    expect(letters).toEqual([]);
    expect(delivered).toHaveLength(13);
    expect(running.stats()).toMatchObject({ recordsSucceeded: 1, deadLettered: 0 });
  });

  it('dead-letters a record still failing once it is older than maxRecordAgeMs, naming that limit', async () => {
    oneRecord(0);
    const letters: DeadLetter[] = [];
    // Lambda's records carry their creation time in whole seconds: the limit is a little over one.
    const running = await start([], {
      handler: async () => ({ batchItemFailures: [{ itemIdentifier: '300' }] }),
      maxRecordAgeMs: 1_500,
      maxRetryDelayMs: 20,
      onDeadLetter: (letter) => void letters.push(letter),
    });

    await running.drained();

    expect(letters.map((letter) => letter.records.map((item) => item.dynamodb?.SequenceNumber))).toEqual([['300']]);
    expect(letters[0]?.reason).toContain('record age limit of 1500 ms');
    expect(letters[0]?.attempts).toBeGreaterThan(1);
  });
});
