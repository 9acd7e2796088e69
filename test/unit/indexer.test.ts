import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, DynamoDBRecord } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeadLetterSink, IndexerDeadLetter } from '../../functions/indexing/dead-letters';
import { createStreamIndexer, type IndexRetry } from '../../functions/indexing/stream-indexer';
import { toFileItem, toJobItem } from '../../functions/jobs/store/items';
import type { Job } from '../../functions/jobs/model/model';
import { JobRepository } from '../../functions/jobs/store/repository';
import type {
  IndexedVersion,
  IndexOperation,
  IndexOutcome,
  SearchDocument,
  IndexWriter,
  SearchIndex,
  SearchResult,
} from '../../functions/search/search-index';
import { toSearchDocument } from '../../functions/search/search-document';
import { lambdaContext } from '../support/api-event';
import { makeFile, makeJob } from '../support/jobs';

/** A file reviewed twice: rejected now, with an earlier review kept (what the indexer must not read). */
const reviewedFile = () => {
  const review = (reason: string, reviewDate: string) => ({
    customRejection: reason,
    rejects: [{ reason, positions: [{ xPercent: 10, yPercent: 20 }] }],
    reviewDate,
  });
  return makeFile({
    tags: ['portrait'],
    remarkToProcessor: 'Remove the background',
    isReviewed: true,
    isRejected: true,
    rejectionReason: 'Too dark',
    reviewDate: '2024-03-02T10:00:00.000Z',
    reviews: review('Too dark', '2024-03-02T10:00:00.000Z'),
    previousReviews: [review('Crooked', '2024-03-01T10:00:00.000Z')],
  });
};

const jobIdOfOperation = (operation: IndexOperation): number =>
  operation.type === 'upsert' ? operation.document.summary.id : operation.jobId;

/** An in-memory SearchIndex that records every apply() and answers what the test decides. */
class RecordingIndex implements SearchIndex {
  public readonly calls: IndexOperation[][] = [];
  public answer: (operations: IndexOperation[]) => IndexOutcome[] | Promise<IndexOutcome[]> = (operations) =>
    operations.map(() => ({ status: 'indexed' }));

  public async apply(operations: IndexOperation[]): Promise<IndexOutcome[]> {
    this.calls.push(operations);
    return this.answer(operations);
  }
  public async search(): Promise<SearchResult> {
    return { total: 0, jobs: [] };
  }
  public async *versions(): AsyncIterable<IndexedVersion> {}
  public async get(): Promise<SearchDocument | undefined> {
    return undefined;
  }
  public async getMany(): Promise<Map<number, SearchDocument>> {
    return new Map();
  }
  public async health() {
    return { name: 'recording', indices: ['recording'], documents: 0 };
  }
  public async rebuild<T>(fill: (writer: IndexWriter) => Promise<T>): Promise<T> {
    return fill(this);
  }
  public async clear(): Promise<void> {}
  public async close(): Promise<void> {}
}

let sequence = 100;

/** A stream record of a job item, shaped like Lambda's event. */
const jobRecord = (
  jobId: number,
  options: { eventName?: 'INSERT' | 'MODIFY' | 'REMOVE'; newVersion?: number; oldVersion?: number; sk?: string } = {},
): DynamoDBRecord => {
  const eventName = options.eventName ?? 'MODIFY';
  const keys = { pk: { S: `JOB#${jobId}` }, sk: { S: options.sk ?? 'JOB' } };
  sequence += 1;
  return {
    eventID: `event-${sequence}`,
    eventName,
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'us-east-1',
    eventSourceARN: 'arn:aws:dynamodb:us-east-1:000000000000:table/jobs/stream/2024-01-01T00:00:00.000',
    dynamodb: {
      ApproximateCreationDateTime: 1_700_000_000,
      Keys: keys,
      ...(options.newVersion === undefined
        ? {}
        : { NewImage: { ...keys, version: { N: String(options.newVersion) } } }),
      ...(options.oldVersion === undefined
        ? {}
        : { OldImage: { ...keys, version: { N: String(options.oldVersion) } } }),
      SequenceNumber: String(sequence).padStart(21, '0'),
      SizeBytes: 100,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
};

/** What the mocked table reads of a partition query. */
interface PartitionQuery {
  ExpressionAttributeValues: { ':pk': string };
  ProjectionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
}

/** The attributes a query's projection names (`#a, #b` through its attribute names), or undefined: all of them. */
const projectedNames = (input: PartitionQuery): string[] | undefined =>
  input.ProjectionExpression?.split(',').map((name) => input.ExpressionAttributeNames?.[name.trim()] ?? name.trim());

/** An item as DynamoDB answers a query: only the attributes its projection names, when it has one. */
const projected = (item: object, input: PartitionQuery): Record<string, unknown> => {
  const names = projectedNames(input);
  return names === undefined
    ? { ...item }
    : Object.fromEntries(Object.entries(item).filter(([name]) => names.includes(name)));
};

const failuresOf = (records: DynamoDBRecord[]) =>
  records.map((record) => ({ itemIdentifier: record.dynamodb?.SequenceNumber as string }));

describe('stream indexer', () => {
  const dynamo = mockClient(DynamoDBDocumentClient);
  const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
  const table = new Map<number, { job: Job; version: number }>();
  const unreadable = new Set<number>();
  let index: RecordingIndex;

  const indexer = (retry: Partial<IndexRetry> = { random: () => 0 }) =>
    createStreamIndexer({
      repository: () => new JobRepository(client, 'jobs'),
      index: async () => index,
      readConcurrency: 4,
      retry,
    });

  const store = (job: Job, version: number): Job => {
    table.set(job.id, { job, version });
    return job;
  };

  beforeEach(() => {
    table.clear();
    unreadable.clear();
    index = new RecordingIndex();
    dynamo.reset();
    dynamo.on(QueryCommand).callsFake(async (input: PartitionQuery) => {
      const jobId = Number(input.ExpressionAttributeValues[':pk'].slice('JOB#'.length));
      if (unreadable.has(jobId)) {
        throw Object.assign(new Error('Throughput exceeded'), { name: 'ProvisionedThroughputExceededException' });
      }
      const stored = table.get(jobId);
      if (stored === undefined) return { Items: [] };
      const items = [
        toJobItem(stored.job, stored.version),
        ...stored.job.files.map((file) => toFileItem(stored.job.id, file)),
      ];
      return { Items: items.map((item) => projected(item, input)) };
    });
  });

  afterEach(() => dynamo.reset());

  it('writes every job of a batch in one bulk request, once per job however many records it has', async () => {
    const first = store(makeJob({ files: [makeFile({ fileName: 'cem_test15.jpg' })] }), 3);
    const second = store(makeJob(), 7);
    const records = [
      jobRecord(first.id, { newVersion: 2 }),
      jobRecord(second.id, { newVersion: 7 }),
      jobRecord(first.id, { newVersion: 3 }),
    ];

    const response = await indexer()({ Records: records });

    expect(response).toEqual({ batchItemFailures: [] });
    expect(index.calls).toHaveLength(1);
    const operations = index.calls[0] ?? [];
    expect(operations.map((operation) => operation.type)).toEqual(['upsert', 'upsert']);
    const documents = operations.map((operation) => (operation.type === 'upsert' ? operation.document : undefined));
    expect(documents.map((document) => [document?.summary.id, document?.version])).toEqual([
      [first.id, 3],
      [second.id, 7],
    ]);
    expect(documents[0]?.fileNames).toEqual(['cem_test15.jpg']);
  });

  it('indexes the state the table holds now, not the version a record carries', async () => {
    const job = store(makeJob({ name: 'Current name' }), 9);

    await indexer()({ Records: [jobRecord(job.id, { newVersion: 4, oldVersion: 3 })] });

    const operation = index.calls[0]?.[0];
    expect(operation?.type === 'upsert' && [operation.document.version, operation.document.summary.name]).toEqual([
      9,
      'Current name',
    ]);
  });

  it('reads every touched job with a strongly consistent query', async () => {
    const job = store(makeJob(), 1);

    await indexer()({ Records: [jobRecord(job.id, { newVersion: 1 })] });

    const queries = dynamo.commandCalls(QueryCommand);
    expect(queries).toHaveLength(1);
    expect(queries[0]?.args[0].input).toMatchObject({
      ConsistentRead: true,
      ExpressionAttributeValues: { ':pk': `JOB#${job.id}` },
    });
  });

  it("reads only what the search document needs: never the files' reviews", async () => {
    const job = store(makeJob({ files: [reviewedFile(), makeFile()] }), 4);

    await indexer()({ Records: [jobRecord(job.id, { newVersion: 4 })] });

    const input = dynamo.commandCalls(QueryCommand)[0]?.args[0].input as unknown as PartitionQuery & {
      ConsistentRead?: boolean;
    };
    expect(input.ConsistentRead).toBe(true);
    const names = projectedNames(input);
    expect(names).toEqual(expect.arrayContaining(['entity', 'version', 'name', 'fileName', 'remarkToProcessor']));
    expect(names).not.toContain('reviews');
    expect(names).not.toContain('previousReviews');
  });

  it('indexes from the projected read the same document as from the whole job', async () => {
    const job = store(
      makeJob({
        accountName: 'Projection Studio',
        description: 'Autumn shoot',
        invoiceReference: 'INV-42',
        tags: ['autumn', 'outdoor'],
        status: 'CJ_REVIEWING',
        deliveredDate: '2024-02-01T09:00:00.000Z',
        files: [reviewedFile(), makeFile({ tags: ['crop'], remarkToProcessor: 'Brighten the sky' })],
      }),
      6,
    );

    await indexer()({ Records: [jobRecord(job.id, { newVersion: 6 })] });

    expect(index.calls).toEqual([[{ type: 'upsert', document: toSearchDocument(job, 6) }]]);
  });

  it('treats indexed and stale outcomes as success', async () => {
    const fresh = store(makeJob(), 2);
    const old = store(makeJob(), 1);
    index.answer = () => [{ status: 'indexed' }, { status: 'stale' }];

    const response = await indexer()({
      Records: [jobRecord(fresh.id, { newVersion: 2 }), jobRecord(old.id, { newVersion: 1 })],
    });

    expect(response.batchItemFailures).toEqual([]);
  });

  it('fails every record of a job the index answers retryable or rejected, and only those', async () => {
    const good = store(makeJob(), 1);
    const busy = store(makeJob(), 1);
    const poison = store(makeJob(), 1);
    index.answer = (operations) =>
      operations.map((operation) => {
        const jobId = operation.type === 'upsert' ? operation.document.summary.id : operation.jobId;
        if (jobId === busy.id) return { status: 'retryable', reason: 'throttled' };
        if (jobId === poison.id) return { status: 'rejected', reason: 'mapping conflict' };
        return { status: 'indexed' };
      });
    const busyRecords = [jobRecord(busy.id, { newVersion: 1 }), jobRecord(busy.id, { newVersion: 1 })];
    const poisonRecord = jobRecord(poison.id, { newVersion: 1 });
    const records = [
      busyRecords[0],
      jobRecord(good.id, { newVersion: 1 }),
      poisonRecord,
      busyRecords[1],
    ] as DynamoDBRecord[];

    const response = await indexer()({ Records: records });

    // The busy job is written again three times within the invocation; the poison job is not.
    expect(index.calls).toHaveLength(4);
    for (const retried of index.calls.slice(1)) expect(retried.map(jobIdOfOperation)).toEqual([busy.id]);
    expect(response.batchItemFailures).toEqual(
      failuresOf([busyRecords[0], poisonRecord, busyRecords[1]] as DynamoDBRecord[]),
    );
  });

  describe('with a dead-letter sink', () => {
    const letters: IndexerDeadLetter[] = [];
    let sink: DeadLetterSink;
    const withSink = () =>
      createStreamIndexer({
        repository: () => new JobRepository(client, 'jobs'),
        index: async () => index,
        retry: { random: () => 0 },
        deadLetters: () => sink,
      });

    beforeEach(() => {
      letters.length = 0;
      sink = async (letter) => void letters.push(letter);
    });

    it('dead-letters the records of a job the index refuses and reports them done; a throttled job stays failed', async () => {
      const good = store(makeJob(), 1);
      const busy = store(makeJob(), 1);
      const poison = store(makeJob(), 1);
      index.answer = (operations) =>
        operations.map((operation) => {
          const jobId = jobIdOfOperation(operation);
          if (jobId === busy.id) return { status: 'retryable', reason: '429 es_rejected_execution_exception' };
          if (jobId === poison.id)
            return { status: 'rejected', reason: '400 mapper_parsing_exception failed to parse' };
          return { status: 'indexed' };
        });
      const poisonRecords = [jobRecord(poison.id, { newVersion: 1 }), jobRecord(poison.id, { newVersion: 1 })];
      const busyRecord = jobRecord(busy.id, { newVersion: 1 });
      const records = [poisonRecords[0], jobRecord(good.id, { newVersion: 1 }), busyRecord, poisonRecords[1]];

      const response = await withSink()({ Records: records as DynamoDBRecord[] });

      expect(response.batchItemFailures).toEqual(failuresOf([busyRecord]));
      expect(letters).toEqual([
        {
          source: 'indexer',
          at: expect.any(String),
          jobId: poison.id,
          reason: expect.stringContaining('mapper_parsing_exception'),
          records: poisonRecords.map((record) => ({
            eventID: record?.eventID,
            eventName: 'MODIFY',
            eventSourceARN: record?.eventSourceARN,
            sequenceNumber: record?.dynamodb?.SequenceNumber,
            keys: { pk: { S: `JOB#${poison.id}` }, sk: { S: 'JOB' } },
            approximateCreationDateTime: 1_700_000_000,
          })),
        },
      ]);
    });

    it('dead-letters a job whose item no search document can be built from', async () => {
      const malformed = store(makeJob(), 2);
      table.set(malformed.id, { job: { ...malformed, guid: undefined as unknown as string }, version: 2 });
      const record = jobRecord(malformed.id, { newVersion: 2 });

      const response = await withSink()({ Records: [record] });

      expect(response.batchItemFailures).toEqual([]);
      expect(letters.map((letter) => [letter.jobId, letter.reason])).toEqual([
        [malformed.id, expect.stringContaining('guid')],
      ]);
      expect(index.calls).toEqual([]);
    });

    it('reports a refused job failed, to be retried, when its dead letter cannot be sent', async () => {
      const poison = store(makeJob(), 1);
      index.answer = (operations) =>
        operations.map(() => ({ status: 'rejected', reason: '400 illegal_argument_exception' }));
      sink = () => Promise.reject(new Error('SQS is unavailable'));
      const records = [jobRecord(poison.id, { newVersion: 1 })];

      const response = await withSink()({ Records: records });

      expect(response.batchItemFailures).toEqual(failuresOf(records));
    });

    it('never dead-letters a job the index only throttles or cannot be reached for', async () => {
      const busy = store(makeJob(), 1);
      const unread = store(makeJob(), 1);
      unreadable.add(unread.id);
      index.answer = (operations) => operations.map(() => ({ status: 'retryable', reason: '503 unavailable' }));
      const records = [jobRecord(busy.id, { newVersion: 1 }), jobRecord(unread.id, { newVersion: 1 })];

      const response = await withSink()({ Records: records });

      expect(letters).toEqual([]);
      expect(response.batchItemFailures).toEqual(failuresOf(records));
    });
  });

  it('writes a throttled job again within the invocation, after a jittered delay, and reports no failure', async () => {
    const throttled = store(makeJob(), 1);
    let refusals = 2;
    index.answer = (operations) =>
      operations.map(() =>
        refusals-- > 0 ? { status: 'retryable', reason: '429 es_rejected_execution_exception' } : { status: 'indexed' },
      );
    const draws: number[] = [];
    const response = await indexer({ random: () => (draws.push(0), 0.5), baseDelayMs: 40 })({
      Records: [jobRecord(throttled.id, { newVersion: 1 })] as DynamoDBRecord[],
    });
    expect(response.batchItemFailures).toEqual([]);
    expect(index.calls).toHaveLength(3);
    // One jitter draw per retry (full jitter: a random share of 40 ms, then of 80 ms).
    expect(draws).toHaveLength(2);
  });

  it('does not retry when the invocation has no time left for it, and reports the job for Lambda to retry', async () => {
    const throttled = store(makeJob(), 1);
    index.answer = (operations) => operations.map(() => ({ status: 'retryable', reason: 'throttled' }));
    const almostOut = { ...lambdaContext(), getRemainingTimeInMillis: () => 4_000 } as Context;
    const records = [jobRecord(throttled.id, { newVersion: 1 })] as DynamoDBRecord[];
    const response = await indexer({ random: () => 0, reserveMs: 5_000 })({ Records: records }, almostOut);
    expect(index.calls).toHaveLength(1);
    expect(response.batchItemFailures).toEqual(failuresOf(records));
  });

  it('writes again within the invocation only while a whole write fits in the time left, before the reserve', async () => {
    const throttled = store(makeJob(), 1);
    index.answer = (operations) => operations.map(() => ({ status: 'retryable', reason: 'throttled' }));
    const context = { ...lambdaContext(), getRemainingTimeInMillis: () => 12_000 } as Context;
    const records = [jobRecord(throttled.id, { newVersion: 1 })] as DynamoDBRecord[];
    const slowWrites = createStreamIndexer({
      repository: () => new JobRepository(client, 'jobs'),
      index: async () => index,
      retry: { random: () => 0, reserveMs: 5_000 },
      writeTimeoutMs: () => 10_000,
    });

    const response = await slowWrites({ Records: records }, context);

    expect(index.calls).toHaveLength(1);
    expect(response.batchItemFailures).toEqual(failuresOf(records));
  });

  it('fails every record of the batch when the bulk request itself fails', async () => {
    const first = store(makeJob(), 1);
    const second = store(makeJob(), 1);
    index.answer = () => {
      throw new Error('connection reset');
    };
    const records = [jobRecord(first.id, { newVersion: 1 }), jobRecord(second.id, { newVersion: 1 })];

    const response = await indexer()({ Records: records });

    expect(response.batchItemFailures).toEqual(failuresOf(records));
  });

  it('fails every record of the batch when the index answers a different number of outcomes', async () => {
    const first = store(makeJob(), 1);
    const second = store(makeJob(), 1);
    index.answer = () => [{ status: 'indexed' }];
    const records = [jobRecord(first.id, { newVersion: 1 }), jobRecord(second.id, { newVersion: 1 })];

    const response = await indexer()({ Records: records });

    expect(response.batchItemFailures).toEqual(failuresOf(records));
  });

  it('fails every record of the batch when the search engine cannot be opened', async () => {
    const job = store(makeJob(), 1);
    const records = [jobRecord(job.id, { newVersion: 1 })];
    const broken = createStreamIndexer({
      repository: () => new JobRepository(client, 'jobs'),
      index: () => Promise.reject(new Error('engine unavailable')),
    });

    await expect(broken({ Records: records })).resolves.toEqual({ batchItemFailures: failuresOf(records) });
  });

  it('fails only the records of a job whose read failed, and still indexes the others', async () => {
    const readable = store(makeJob(), 1);
    const throttled = store(makeJob(), 1);
    unreadable.add(throttled.id);
    const throttledRecord = jobRecord(throttled.id, { newVersion: 1 });

    const response = await indexer()({ Records: [jobRecord(readable.id, { newVersion: 1 }), throttledRecord] });

    expect(response.batchItemFailures).toEqual(failuresOf([throttledRecord]));
    expect(index.calls[0]?.map((operation) => operation.type === 'upsert' && operation.document.summary.id)).toEqual([
      readable.id,
    ]);
  });

  it('deletes a job the table no longer has, at the version of its last state', async () => {
    const removed = makeJob();
    const records = [
      jobRecord(removed.id, { eventName: 'MODIFY', newVersion: 5, oldVersion: 4 }),
      jobRecord(removed.id, { eventName: 'REMOVE', oldVersion: 5 }),
    ];

    const response = await indexer()({ Records: records });

    expect(response.batchItemFailures).toEqual([]);
    expect(index.calls).toEqual([[{ type: 'delete', jobId: removed.id, version: 5 }]]);
  });

  it('deletes with the highest version any record of the job carries', async () => {
    const removed = makeJob();

    await indexer()({
      Records: [
        jobRecord(removed.id, { eventName: 'MODIFY', newVersion: 8, oldVersion: 7 }),
        jobRecord(removed.id, { eventName: 'MODIFY', newVersion: 6, oldVersion: 5 }),
      ],
    });

    expect(index.calls).toEqual([[{ type: 'delete', jobId: removed.id, version: 8 }]]);
  });

  it('lets records that are not about a job item through without reading or indexing them', async () => {
    const fileRecord = jobRecord(123, { sk: 'FILE#9' });
    const foreign: DynamoDBRecord = {
      ...jobRecord(1),
      dynamodb: { Keys: { pk: { S: 'CLIENT#abc' } }, SequenceNumber: '7' },
    };

    const response = await indexer()({ Records: [fileRecord, foreign] });

    expect(response.batchItemFailures).toEqual([]);
    expect(index.calls).toEqual([]);
    expect(dynamo.commandCalls(QueryCommand)).toHaveLength(0);
  });

  it('answers an empty batch with no failures and no bulk request', async () => {
    await expect(indexer()({ Records: [] })).resolves.toEqual({ batchItemFailures: [] });
    expect(index.calls).toEqual([]);
  });
});
