/**
 * The stream poller and trimmed stream records, on DynamoDB Local: a shard iterator taken while the
 * shard is empty must not be mistaken for a trim (DynamoDB Local numbers the records of all its tables
 * in one sequence, so another table's writes make such an iterator look stale), and records really
 * trimmed before the indexer read them must be reported as an error that names the repair, with
 * `verify-index` showing the jobs they leave wrong.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createStreamIndexer } from '../../functions/indexing/stream-indexer';
import { JobRepository } from '../../functions/jobs/store/repository';
import { createSearchIndex } from '../../functions/search/engine';
import type { SearchIndex } from '../../functions/search/search-index';
import { reindex } from '../../local/operations/reindex';
import {
  type PollerLogger,
  type StreamPoller,
  type StreamPollerOptions,
  startStreamPoller,
} from '../../local/streams/poller';
import { verifyIndex } from '../../local/operations/verify-index';
import { createTestTables, localClient, type TestTables } from '../support/dynamo';
import { makeJob } from '../support/jobs';
import { trimmingStreamsClient } from '../support/trimming-streams';

const client = localClient();
const documents = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });

interface LogLine {
  level: 'info' | 'warn' | 'error';
  message: string;
  details: Record<string, unknown> | undefined;
}

let tables: TestTables;
let repository: JobRepository;
let engine: SearchIndex;
let directory: string;
let lines: LogLine[];
const pollers: StreamPoller[] = [];

const logger: PollerLogger = {
  info: (message, details) => void lines.push({ level: 'info', message, details }),
  warn: (message, details) => void lines.push({ level: 'warn', message, details }),
  error: (message, details) => void lines.push({ level: 'error', message, details }),
};
const complaints = (): LogLine[] => lines.filter((line) => line.level !== 'info');

const startPoller = async (options: Partial<StreamPollerOptions> = {}): Promise<StreamPoller> => {
  const indexer = createStreamIndexer({ repository: () => repository, index: async () => engine });
  const poller = await startStreamPoller({
    endpoint: tables.endpoint,
    region: 'us-east-1',
    tableName: tables.jobsTable,
    handler: async (event) => indexer(event),
    retryDelayMs: 10,
    maxRetryDelayMs: 50,
    pollIntervalMs: 20,
    batchWindowMs: 20,
    logger,
    ...options,
  });
  pollers.push(poller);
  return poller;
};

/** The highest sequence number of the stream records of one job (read straight from DynamoDB Local). */
const lastSequenceOf = async (jobId: number): Promise<string> => {
  const streams = new DynamoDBStreamsClient({
    endpoint: tables.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tables.jobsTable }));
    const streamArn = Table?.LatestStreamArn as string;
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    const sequences: string[] = [];
    for (const shard of StreamDescription?.Shards ?? []) {
      let iterator = (
        await streams.send(
          new GetShardIteratorCommand({
            StreamArn: streamArn,
            ShardId: shard.ShardId,
            ShardIteratorType: 'TRIM_HORIZON',
          }),
        )
      ).ShardIterator;
      while (iterator !== undefined) {
        const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
        if ((page.Records ?? []).length === 0) break;
        for (const record of page.Records ?? []) {
          if (record.dynamodb?.Keys?.pk?.S === `JOB#${jobId}`) sequences.push(record.dynamodb.SequenceNumber as string);
        }
        iterator = page.NextShardIterator;
      }
    }
    const last = sequences.sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1)).at(-1);
    if (last === undefined) throw new Error(`No stream record of job ${jobId}`);
    return last;
  } finally {
    streams.destroy();
  }
};

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'poller-trim-test-'));
});

afterAll(() => rmSync(directory, { recursive: true, force: true }));

beforeEach(async () => {
  tables = await createTestTables(client);
  repository = new JobRepository(documents, tables.jobsTable);
  engine = await createSearchIndex({ engine: 'embedded', path: ':memory:' });
  lines = [];
});

afterEach(async () => {
  await Promise.all(pollers.splice(0).map((poller) => poller.stop()));
  await engine.close();
});

describe('stream poller and trimmed records', () => {
  it('reads a shard that was empty when it started, after another table was written first, without a complaint', async () => {
    const poller = await startPoller();
    // The poller has read the empty shard (and holds an iterator for it) once drained() resolves.
    await poller.drained();
    for (let position = 0; position < 3; position++) {
      await documents.send(
        new PutCommand({ TableName: tables.authTable, Item: { pk: `CLIENT#${position}`, sk: 'CLIENT' } }),
      );
    }
    const jobs = [makeJob({ name: 'Quiet start one' }), makeJob({ name: 'Quiet start two' })];
    for (const job of jobs) await repository.putJob(job);
    await poller.drained();

    expect(complaints()).toEqual([]);
    expect(await verifyIndex({ repository, index: engine })).toMatchObject({ ok: true, checked: 2 });
  });

  it('reports records trimmed before they were read as an error naming reindex; verify-index shows the damage', async () => {
    const checkpointPath = join(directory, `${tables.jobsTable}.json`);
    const trimming = trimmingStreamsClient(tables.endpoint);
    const first = await startPoller({ checkpointPath, streams: trimming.client });
    const kept = makeJob({ name: 'Indexed before the gap' });
    const changed = makeJob({ name: 'Changed during the gap' });
    await repository.putJob(kept);
    await repository.putJob(changed);
    await first.drained();
    await first.stop();
    expect(complaints()).toEqual([]);

    // While nothing reads the stream, three changes are written, and the first two are trimmed away.
    await repository.putJob({ ...changed, name: 'Changed during the gap, second version' });
    const lost = makeJob({ name: 'Created during the gap' });
    await repository.putJob(lost);
    const survivor = makeJob({ name: 'Created after the trim point' });
    await repository.putJob(survivor);
    trimming.trimThrough(await lastSequenceOf(lost.id));

    const second = await startPoller({ checkpointPath, streams: trimming.client });
    await second.drained();

    const errors = complaints();
    expect(errors.map((line) => line.level)).toEqual(['error']);
    expect(errors[0]?.message).toContain('npm run cli -- reindex');
    expect(errors[0]?.message).toContain('verify-index');
    // The records after the trim point were still read.
    const verified = await verifyIndex({ repository, index: engine });
    expect(verified).toMatchObject({
      ok: false,
      missing: [lost.id],
      stale: [{ jobId: changed.id, reason: 'version' }],
      extra: [],
    });

    const rebuilt = await reindex({ repository, index: engine });
    expect(rebuilt.failed).toEqual([]);
    expect(await verifyIndex({ repository, index: engine })).toMatchObject({ ok: true, checked: 4 });
    trimming.client.destroy();
  });

  it('reports a trim once: a restart on the same checkpoint does not report it again', async () => {
    const checkpointPath = join(directory, `${tables.jobsTable}-once.json`);
    const trimming = trimmingStreamsClient(tables.endpoint);
    const first = await startPoller({ checkpointPath, streams: trimming.client });
    await repository.putJob(makeJob({ name: 'Read before the stop' }));
    await first.drained();
    await first.stop();
    const lost = makeJob({ name: 'Written and trimmed while stopped' });
    await repository.putJob(lost);
    trimming.trimThrough(await lastSequenceOf(lost.id));

    const second = await startPoller({ checkpointPath, streams: trimming.client });
    await second.drained();
    await second.stop();
    expect(complaints().map((line) => line.level)).toEqual(['error']);

    const third = await startPoller({ checkpointPath, streams: trimming.client });
    await third.drained();
    expect(complaints().map((line) => line.level)).toEqual(['error']);
    expect(await verifyIndex({ repository, index: engine })).toMatchObject({ ok: false, missing: [lost.id] });
    trimming.client.destroy();
  });
});
