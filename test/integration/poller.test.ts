import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteCommand, DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type DeadLetter,
  PollerStoppedError,
  type StreamHandler,
  type StreamPoller,
  type StreamPollerOptions,
  StreamNotEnabledError,
  startStreamPoller,
} from '../../local/streams/poller';
import { createTestTables, localClient, type TestTables } from '../support/dynamo';

const client = localClient();
const documents = DynamoDBDocumentClient.from(client);
const pollers: StreamPoller[] = [];
let tables: TestTables;
let directory: string;

/** Starts a poller on a fresh jobs table (or the given one), stopped after the test. */
const startPoller = async (
  handler: StreamHandler,
  options: Partial<StreamPollerOptions> = {},
): Promise<StreamPoller> => {
  const poller = await startStreamPoller({
    endpoint: tables.endpoint,
    region: 'us-east-1',
    tableName: tables.jobsTable,
    handler,
    retryDelayMs: 10,
    maxRetryDelayMs: 50,
    pollIntervalMs: 20,
    batchWindowMs: 20,
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    ...options,
  });
  pollers.push(poller);
  return poller;
};

const put = (id: number, extra: Record<string, unknown> = {}) =>
  documents.send(
    new PutCommand({ TableName: tables.jobsTable, Item: { pk: `JOB#${id}`, sk: 'JOB', id, version: 1, ...extra } }),
  );

const keyOf = (record: DynamoDBRecord): string => record.dynamodb?.Keys?.pk?.S ?? '';
const sequenceOf = (record: DynamoDBRecord): string => record.dynamodb?.SequenceNumber ?? '';

/** A handler that records every batch it is given and succeeds. */
const recorder = () => {
  const batches: DynamoDBRecord[][] = [];
  const handler: StreamHandler = async (event: DynamoDBStreamEvent) => {
    batches.push(event.Records);
    return { batchItemFailures: [] };
  };
  return { batches, handler, records: () => batches.flat() };
};

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'poller-test-'));
});

afterAll(() => rmSync(directory, { recursive: true, force: true }));

afterEach(async () => {
  await Promise.all(pollers.splice(0).map((poller) => poller.stop()));
});

describe('local stream poller', () => {
  beforeAll(async () => {
    tables = await createTestTables(client);
  });

  it('delivers records in the shape of Lambda’s DynamoDB stream event', async () => {
    tables = await createTestTables(client);
    const { handler, records } = recorder();
    const poller = await startPoller(handler);

    await put(1, { name: 'Café' });
    await put(1, { name: 'Café Müller' });
    await documents.send(new DeleteCommand({ TableName: tables.jobsTable, Key: { pk: 'JOB#1', sk: 'JOB' } }));
    await poller.drained();

    const [insert, modify, remove] = records();
    expect(records()).toHaveLength(3);
    expect(insert).toMatchObject({
      eventName: 'INSERT',
      eventSource: 'aws:dynamodb',
      eventVersion: '1.1',
      awsRegion: 'us-east-1',
      eventSourceARN: poller.streamArn,
      dynamodb: {
        Keys: { pk: { S: 'JOB#1' }, sk: { S: 'JOB' } },
        NewImage: { pk: { S: 'JOB#1' }, sk: { S: 'JOB' }, id: { N: '1' }, version: { N: '1' }, name: { S: 'Café' } },
        StreamViewType: 'NEW_AND_OLD_IMAGES',
      },
    });
    expect(typeof insert?.eventID).toBe('string');
    expect(typeof insert?.dynamodb?.SizeBytes).toBe('number');
    expect(Number.isInteger(insert?.dynamodb?.ApproximateCreationDateTime)).toBe(true);
    expect(insert?.dynamodb?.OldImage).toBeUndefined();
    expect(modify).toMatchObject({
      eventName: 'MODIFY',
      dynamodb: { OldImage: { name: { S: 'Café' } }, NewImage: { name: { S: 'Café Müller' } } },
    });
    expect(remove).toMatchObject({ eventName: 'REMOVE', dynamodb: { OldImage: { name: { S: 'Café Müller' } } } });
    expect(remove?.dynamodb?.NewImage).toBeUndefined();
  });

  it('hands every record over once, in stream order, in batches of at most batchSize', async () => {
    tables = await createTestTables(client);
    const { batches, handler, records } = recorder();
    const poller = await startPoller(handler, { batchSize: 7 });

    for (let id = 1; id <= 30; id++) await put(id);
    await poller.drained();

    expect(records().map(keyOf)).toEqual(Array.from({ length: 30 }, (_, index) => `JOB#${index + 1}`));
    expect(batches.every((batch) => batch.length >= 1 && batch.length <= 7)).toBe(true);
    const sequences = records().map((record) => BigInt(sequenceOf(record)));
    expect(sequences).toEqual([...sequences].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  });

  it('retries from the lowest failed record and keeps the records before it checkpointed', async () => {
    tables = await createTestTables(client);
    const batches: string[][] = [];
    let failedOnce = false;
    for (let id = 1; id <= 6; id++) await put(id);
    const poller = await startPoller(
      async (event) => {
        batches.push(event.Records.map(keyOf));
        const third = event.Records.find((record) => keyOf(record) === 'JOB#3');
        const fifth = event.Records.find((record) => keyOf(record) === 'JOB#5');
        if (!failedOnce && third !== undefined && fifth !== undefined) {
          failedOnce = true;
          return { batchItemFailures: [{ itemIdentifier: sequenceOf(fifth) }, { itemIdentifier: sequenceOf(third) }] };
        }
        return { batchItemFailures: [] };
      },
      { batchSize: 10 },
    );
    await poller.drained();

    expect(batches[0]).toEqual(['JOB#1', 'JOB#2', 'JOB#3', 'JOB#4', 'JOB#5', 'JOB#6']);
    expect(batches[1]).toEqual(['JOB#3', 'JOB#4', 'JOB#5', 'JOB#6']);
    expect(batches).toHaveLength(2);
    expect(poller.stats()).toMatchObject({ retries: 1, deadLettered: 0, recordsSucceeded: 6 });
  });

  it('splits a batch when the handler throws and dead-letters only the record that keeps failing', async () => {
    tables = await createTestTables(client);
    const letters: DeadLetter[] = [];
    const delivered = new Set<string>();
    for (let id = 1; id <= 8; id++) await put(id);
    const poller = await startPoller(
      async (event) => {
        if (event.Records.some((record) => keyOf(record) === 'JOB#4')) throw new Error('poison record');
        for (const record of event.Records) delivered.add(keyOf(record));
        return undefined;
      },
      { batchSize: 8, maxRetries: 2, onDeadLetter: (letter) => void letters.push(letter) },
    );
    await poller.drained();

    expect(letters).toHaveLength(1);
    expect(letters[0]?.records.map(keyOf)).toEqual(['JOB#4']);
    expect(letters[0]).toMatchObject({
      attempts: 3,
      reason: 'Error: poison record (after 2 retries)',
      streamArn: poller.streamArn,
    });
    expect([...delivered].sort()).toEqual(['JOB#1', 'JOB#2', 'JOB#3', 'JOB#5', 'JOB#6', 'JOB#7', 'JOB#8']);
    expect(poller.stats().bisections).toBeGreaterThan(0);
    expect(poller.stats().deadLettered).toBe(1);
  });

  it('dead-letters records still reported failed after maxRetries and carries on with the next ones', async () => {
    tables = await createTestTables(client);
    const letters: DeadLetter[] = [];
    const later: string[] = [];
    for (let id = 1; id <= 3; id++) await put(id);
    const poller = await startPoller(
      async (event) => {
        const failing = event.Records.filter((record) => keyOf(record) === 'JOB#2');
        for (const record of event.Records) if (keyOf(record) === 'JOB#9') later.push(keyOf(record));
        return { batchItemFailures: failing.map((record) => ({ itemIdentifier: sequenceOf(record) })) };
      },
      { batchSize: 3, maxRetries: 1, onDeadLetter: (letter) => void letters.push(letter) },
    );
    await poller.drained();
    await put(9);
    await poller.drained();

    expect(letters.map((letter) => letter.records.map(keyOf))).toEqual([['JOB#2']]);
    expect(later).toEqual(['JOB#9']);
  });

  it('treats an invocation that runs past its timeout as failed and delivers the batch again', async () => {
    tables = await createTestTables(client);
    let calls = 0;
    const poller = await startPoller(
      async () => {
        calls += 1;
        if (calls === 1) await new Promise((resolve) => setTimeout(resolve, 600));
        return { batchItemFailures: [] };
      },
      { invocationTimeoutMs: 150 },
    );

    await put(1);
    await poller.drained();

    expect(calls).toBe(2);
    expect(poller.stats()).toMatchObject({ retries: 1, deadLettered: 0, recordsSucceeded: 1 });
  });

  it('resumes after a restart from its saved checkpoint without handing settled records over again', async () => {
    tables = await createTestTables(client);
    const checkpointPath = join(directory, `${tables.jobsTable}.json`);
    const first = recorder();
    const before = await startPoller(first.handler, { checkpointPath });
    for (let id = 1; id <= 5; id++) await put(id);
    await before.drained();
    await before.stop();

    for (let id = 6; id <= 8; id++) await put(id);
    const second = recorder();
    const after = await startPoller(second.handler, { checkpointPath });
    await after.drained();

    expect(first.records().map(keyOf)).toEqual(['JOB#1', 'JOB#2', 'JOB#3', 'JOB#4', 'JOB#5']);
    expect(second.records().map(keyOf)).toEqual(['JOB#6', 'JOB#7', 'JOB#8']);
  });

  it('replays the stream from its start after a restart without saved checkpoints', async () => {
    tables = await createTestTables(client);
    const before = await startPoller(recorder().handler);
    for (let id = 1; id <= 3; id++) await put(id);
    await before.drained();
    await before.stop();

    const second = recorder();
    const after = await startPoller(second.handler);
    await after.drained();

    expect(second.records().map(keyOf)).toEqual(['JOB#1', 'JOB#2', 'JOB#3']);
  });

  it('keeps a batch whose invocation was cut short by stop() for the next start', async () => {
    tables = await createTestTables(client);
    const checkpointPath = join(directory, `${tables.jobsTable}-crash.json`);
    let release: () => void = () => undefined;
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started: () => void = () => undefined;
    const invoked = new Promise<void>((resolve) => {
      started = resolve;
    });
    const crashing = await startPoller(
      async () => {
        started();
        await blocked;
        throw new Error('the process died');
      },
      { checkpointPath },
    );
    await put(1);
    await invoked;
    const stopping = crashing.stop();
    release();
    await stopping;

    const second = recorder();
    const restarted = await startPoller(second.handler, { checkpointPath });
    await restarted.drained();

    expect(second.records().map(keyOf)).toEqual(['JOB#1']);
    expect(crashing.stats().deadLettered).toBe(0);
  });

  it('rejects a pending drained() when the poller stops', async () => {
    tables = await createTestTables(client);
    const poller = await startPoller(async () => new Promise((resolve) => setTimeout(resolve, 300)));
    await put(1);
    const waiting = poller.drained().catch((error: unknown) => error);
    await poller.stop();

    expect(await waiting).toBeInstanceOf(PollerStoppedError);
    await expect(poller.drained()).rejects.toBeInstanceOf(PollerStoppedError);
  });

  it('refuses a table that has no stream', async () => {
    tables = await createTestTables(client);
    await expect(
      startStreamPoller({
        endpoint: tables.endpoint,
        region: 'us-east-1',
        tableName: tables.authTable,
        handler: async () => undefined,
      }),
    ).rejects.toBeInstanceOf(StreamNotEnabledError);
  });
});
