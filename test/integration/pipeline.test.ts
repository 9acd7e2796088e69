/**
 * The whole indexing pipeline on real parts: the jobs store on DynamoDB Local, its stream read by the
 * local poller, the stream indexer, and the embedded search engine (wrapped in a fault injector where a
 * test needs failures). Every scenario ends with the index equal to the table.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { IndexerDeadLetter } from '../../functions/indexing/dead-letters';
import { createStreamIndexer, type StreamIndexer } from '../../functions/indexing/stream-indexer';
import type { Job } from '../../functions/jobs/model/model';
import { JobRepository } from '../../functions/jobs/store/repository';
import { createSearchIndex, resetSearchIndex, searchIndex } from '../../functions/search/engine';
import { jobKeys } from '../../functions/tables';
import { resetDocumentClient } from '../../functions/aws/dynamodb';
import { resetConfig } from '../../functions/config';
import { globalTextFieldsFor } from '../../functions/search/fields';
import type { SearchIndex } from '../../functions/search/search-index';
import { importJobs, importNdjson } from '../../local/operations/import';
import { reindex } from '../../local/operations/reindex';
import {
  type DeadLetter,
  type StreamPoller,
  type StreamPollerOptions,
  startStreamPoller,
} from '../../local/streams/poller';
import { verifyIndex } from '../../local/operations/verify-index';
import { createTestTables, handlerEnv, localClient, type TestTables } from '../support/dynamo';
import { FaultyIndex } from '../support/faulty-index';
import { makeFile, makeJob } from '../support/jobs';

const client = localClient();
const documents = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

let tables: TestTables;
let repository: JobRepository;
let engine: SearchIndex;
let index: FaultyIndex;
let indexer: StreamIndexer;
let deadLetters: DeadLetter[];
let delivered: DynamoDBRecord[];
let directory: string;
const pollers: StreamPoller[] = [];

const startPoller = async (options: Partial<StreamPollerOptions> = {}): Promise<StreamPoller> => {
  const poller = await startStreamPoller({
    endpoint: tables.endpoint,
    region: 'us-east-1',
    tableName: tables.jobsTable,
    handler: async (event: DynamoDBStreamEvent) => {
      delivered.push(...event.Records);
      return indexer(event);
    },
    retryDelayMs: 10,
    maxRetryDelayMs: 50,
    pollIntervalMs: 20,
    batchWindowMs: 20,
    onDeadLetter: (letter) => void deadLetters.push(letter),
    logger: quiet,
    ...options,
  });
  pollers.push(poller);
  return poller;
};

/** Jobs the index finds for a Global search, as ids. */
const find = async (text: string): Promise<number[]> => {
  const result = await engine.search({
    field: 'Global',
    text,
    globalFields: globalTextFieldsFor('operator'),
    globalMatchesAccountNumber: true,
    offset: 0,
    limit: 100,
  });
  return result.jobs.map((job) => job.id).sort((a, b) => a - b);
};

const expectIndexEqualsTable = async (): Promise<void> => {
  const result = await verifyIndex({ repository, index: engine });
  expect(result).toMatchObject({ ok: true, missing: [], stale: [], extra: [] });
};

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'pipeline-test-'));
});

afterAll(() => rmSync(directory, { recursive: true, force: true }));

beforeEach(async () => {
  tables = await createTestTables(client);
  repository = new JobRepository(documents, tables.jobsTable);
  engine = await createSearchIndex({ engine: 'embedded', path: ':memory:' });
  index = new FaultyIndex(engine);
  indexer = createStreamIndexer({ repository: () => repository, index: async () => index });
  deadLetters = [];
  delivered = [];
});

afterEach(async () => {
  await Promise.all(pollers.splice(0).map((poller) => poller.stop()));
  await engine.close();
});

describe('indexing pipeline', () => {
  it('makes an imported file searchable, and skips only the bad line', async () => {
    const poller = await startPoller();
    const cafe = makeJob({ name: 'Café Müller spring catalogue', files: [makeFile({ fileName: 'cem_test15.jpg' })] });
    const other = makeJob({ name: 'Winter jackets' });
    const ndjson = [JSON.stringify(cafe), '{"id": "not a job"}', JSON.stringify(other)].join('\n');

    const result = await importNdjson(Readable.from([ndjson]), { repository });
    await poller.drained();

    expect(result.imported).toBe(2);
    expect(result.failed.map((failure) => failure.line)).toEqual([2]);
    expect(await find('cafe spr')).toEqual([cafe.id]);
    expect(await find('test15')).toEqual([cafe.id]);
    expect(await find('winter')).toEqual([other.id]);
    await expectIndexEqualsTable();
  });

  it('indexes and finds a job whose id has 16 digits, the top of the id range', async () => {
    const poller = await startPoller();
    const job = makeJob({ id: Number.MAX_SAFE_INTEGER, name: 'Sixteen digit job' });
    const result = await importJobs([job], { repository });
    await poller.drained();

    expect(result.imported).toBe(1);
    expect(await find('sixteen')).toEqual([job.id]);
    expect(await find(String(job.id))).toEqual([job.id]);
    expect(deadLetters).toEqual([]);
    await expectIndexEqualsTable();
  });

  it('makes a change searchable and forgets the old text', async () => {
    const poller = await startPoller();
    const job = makeJob({ name: 'Summer lookbook' });
    await repository.putJob(job);
    await poller.drained();

    await repository.putJob({
      ...job,
      name: 'Autumn campaign',
      files: [...job.files, makeFile({ fileName: 'chaussure_7.tif' })],
    });
    await poller.drained();

    expect(await find('summer')).toEqual([]);
    expect(await find('autumn chaussure')).toEqual([job.id]);
    expect((await engine.get(job.id))?.version).toBe((await repository.getJob(job.id))?.version);
    await expectIndexEqualsTable();
  });

  it('keeps an edit made after the import in table and index when the older export is imported again, and after a reindex', async () => {
    const poller = await startPoller();
    const job = makeJob({ name: 'Spring catalogue', files: [makeFile()] });
    await importJobs([job], { repository });
    await poller.drained();
    await repository.putJob({ ...job, name: 'Edited through the API' });
    await poller.drained();
    const edited = await repository.getJob(job.id);

    const again = await importJobs([job], { repository });
    await poller.drained();

    expect(again.imported).toBe(0);
    expect(again.failed).toHaveLength(1);
    expect(await repository.getJob(job.id)).toEqual(edited);
    expect(await find('spring')).toEqual([]);
    expect(await find('edited')).toEqual([job.id]);
    expect((await engine.get(job.id))?.version).toBe(edited?.version);
    await expectIndexEqualsTable();

    await engine.clear();
    expect(await reindex({ repository, index: engine })).toMatchObject({ scanned: 1, indexed: 1, failed: [] });
    expect(await find('edited')).toEqual([job.id]);
    expect((await engine.get(job.id))?.version).toBe(edited?.version);
  });

  it('indexes a job too large for one transaction with every file', async () => {
    const poller = await startPoller();
    const files = Array.from({ length: 130 }, (_, position) => makeFile({ fileName: `bulk_${position}.jpg` }));
    const job = makeJob({ name: 'Large catalogue', files });

    await repository.putJob(job);
    await poller.drained();

    expect((await engine.get(job.id))?.fileNames).toHaveLength(130);
    expect(await find('bulk_129')).toEqual([job.id]);
    await expectIndexEqualsTable();
  });

  it('removes a deleted job, and brings it back when it is created again', async () => {
    const poller = await startPoller();
    const job = makeJob({ name: 'Ephemeral shoot' });
    await repository.putJob(job);
    await poller.drained();

    await repository.deleteJob(job.id);
    await poller.drained();
    expect(await find('ephemeral')).toEqual([]);
    await expectIndexEqualsTable();

    await repository.putJob({ ...job, name: 'Ephemeral shoot again' });
    await poller.drained();
    expect(await find('ephemeral again')).toEqual([job.id]);
    await expectIndexEqualsTable();
  });

  it('ends equal to the table when records are duplicated, reordered and replayed', async () => {
    const poller = await startPoller();
    const jobs = Array.from({ length: 6 }, (_, position) => makeJob({ name: `Replay ${position}` }));
    await importJobs(jobs, { repository });
    for (const job of jobs.slice(0, 3)) await repository.putJob({ ...job, name: `${job.name} edited` });
    await repository.deleteJob((jobs[5] as Job).id);
    await poller.drained();

    const records = [...delivered];
    await indexer({ Records: [...records].reverse() });
    await indexer({ Records: [...records, ...records] });
    await indexer({ Records: records.filter((_, position) => position % 2 === 1) });

    expect(await find('edited')).toEqual(jobs.slice(0, 3).map((job) => job.id));
    expect(await engine.get((jobs[5] as Job).id)).toBeUndefined();
    await expectIndexEqualsTable();
  });

  it('never lets a slow, older write overwrite a newer one', async () => {
    const job = makeJob({ name: 'Original name' });
    await repository.putJob(job);
    const record: DynamoDBRecord = {
      eventName: 'MODIFY',
      dynamodb: { Keys: { pk: { S: `JOB#${job.id}` }, sk: { S: 'JOB' } }, SequenceNumber: '1' },
    };
    index.delayRequests(300);
    const slow = indexer({ Records: [record] });
    while (index.calls.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await repository.putJob({ ...job, name: 'Newer name' });

    await indexer({ Records: [{ ...record, dynamodb: { ...record.dynamodb, SequenceNumber: '2' } }] });
    await expect(slow).resolves.toEqual({ batchItemFailures: [] });

    expect((await engine.get(job.id))?.summary.name).toBe('Newer name');
    await expectIndexEqualsTable();
  });

  it('retries jobs the index fails for a while until they are indexed', async () => {
    const poller = await startPoller();
    const jobs = [makeJob({ name: 'Flaky one' }), makeJob({ name: 'Steady two' })];
    index.failJobs([(jobs[0] as Job).id], { times: 2, status: 'retryable' });

    await importJobs(jobs, { repository });
    await poller.drained();

    expect(index.exhausted).toBe(true);
    expect(await find('flaky')).toEqual([(jobs[0] as Job).id]);
    expect(deadLetters).toEqual([]);
    await expectIndexEqualsTable();
  });

  it('retries whole batches whose bulk request fails until the index takes them', async () => {
    const poller = await startPoller();
    index.failRequests(2);

    await importJobs([makeJob(), makeJob(), makeJob()], { repository });
    await poller.drained();

    expect(index.exhausted).toBe(true);
    expect(deadLetters).toEqual([]);
    await expectIndexEqualsTable();
  });

  it('retries after a bulk request times out, and after an invocation outlives its timeout', async () => {
    const poller = await startPoller({ invocationTimeoutMs: 1_500 });
    index.timeOutRequests(50, 1).delayRequests(4_000, 1);

    await importJobs([makeJob(), makeJob()], { repository });
    await poller.drained();

    expect(index.exhausted).toBe(true);
    expect(deadLetters).toEqual([]);
    await expectIndexEqualsTable();
  });

  it('dead-letters a job the index keeps refusing, and a reindex repairs the index', async () => {
    const poller = await startPoller({ maxRetries: 1 });
    const poison = makeJob({ name: 'Poison pill' });
    const healthy = makeJob({ name: 'Healthy job' });
    index.failJobs([poison.id], { times: 1_000, status: 'rejected' });

    await importJobs([poison, healthy], { repository });
    await poller.drained();

    expect(deadLetters.flatMap((letter) => letter.records.map((record) => record.dynamodb?.Keys?.pk?.S))).toEqual([
      `JOB#${poison.id}`,
    ]);
    expect(await find('healthy')).toEqual([healthy.id]);
    expect(await verifyIndex({ repository, index: engine })).toMatchObject({ ok: false, missing: [poison.id] });

    const rebuilt = await reindex({ repository, index: engine });
    expect(rebuilt).toMatchObject({ scanned: 2, indexed: 2, failed: [] });
    await expectIndexEqualsTable();
  });

  it('has the indexer dead-letter a job the index refuses at its first delivery, so the jobs behind it go on', async () => {
    const letters: IndexerDeadLetter[] = [];
    indexer = createStreamIndexer({
      repository: () => repository,
      index: async () => index,
      deadLetters: () => async (letter) => void letters.push(letter),
    });
    // The poller's own retries as deployed: no count, until a record is 24 hours old.
    const poller = await startPoller();
    const poison = makeJob({ name: 'Poison pill' });
    const healthy = makeJob({ name: 'Healthy job' });
    index.failJobs([poison.id], { times: 1_000, status: 'rejected' });

    await importJobs([poison, healthy], { repository });
    await poller.drained();

    expect([...new Set(letters.map((letter) => letter.jobId))]).toEqual([poison.id]);
    expect(letters[0]?.records[0]?.keys).toEqual({ pk: { S: `JOB#${poison.id}` }, sk: { S: 'JOB' } });
    expect(deadLetters).toEqual([]);
    expect(await find('healthy')).toEqual([healthy.id]);
  });

  it('dead-letters only a job whose item was edited into a malformed shape, and a reindex reports it', async () => {
    const poller = await startPoller({ maxRetries: 1 });
    const jobs = [makeJob({ name: 'Before' }), makeJob({ name: 'Malformed' }), makeJob({ name: 'After' })];
    await importJobs(jobs, { repository });
    await poller.drained();
    const [before, malformed, after] = jobs as [Job, Job, Job];

    // An edit outside the API: the guid removed, the tags turned into one string, the version bumped.
    await documents.send(
      new UpdateCommand({
        TableName: tables.jobsTable,
        Key: { pk: jobKeys.pk(malformed.id), sk: jobKeys.jobSk },
        UpdateExpression: 'REMOVE guid SET tags = :tags, version = version + :one',
        ExpressionAttributeValues: { ':tags': 'red, blue', ':one': 1 },
      }),
    );
    for (const job of [before, after]) await repository.putJob({ ...job, name: `${job.name} edited` });
    await poller.drained();

    expect(deadLetters.flatMap((letter) => letter.records.map((record) => record.dynamodb?.Keys?.pk?.S))).toEqual([
      `JOB#${malformed.id}`,
    ]);
    expect(await find('edited')).toEqual([before.id, after.id].sort((a, b) => a - b));

    await engine.clear();
    const rebuilt = await reindex({ repository, index: engine });
    expect(rebuilt).toMatchObject({ scanned: 3, indexed: 2 });
    expect(rebuilt.failed).toEqual([{ jobId: malformed.id, reason: expect.stringContaining('guid') }]);
    expect(await find('edited')).toEqual([before.id, after.id].sort((a, b) => a - b));
  });

  it('loses no change when the poller crashes between batches and a new one resumes from its checkpoint', async () => {
    const checkpointPath = join(directory, `${tables.jobsTable}.json`);
    const first = await startPoller({ batchSize: 4, checkpointPath });
    const jobs = Array.from({ length: 24 }, (_, position) => makeJob({ name: `Crash test ${position}` }));
    const writing = importJobs(jobs, { repository, batchSize: 6 });
    while (index.calls.length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    await first.stop();
    await writing;

    const second = await startPoller({ batchSize: 4, checkpointPath });
    await second.drained();

    expect((await find('crash test')).length).toBe(24);
    await expectIndexEqualsTable();
  });

  it('loses no change when a poller without checkpoints crashes and a new one replays the stream', async () => {
    const first = await startPoller({ batchSize: 3 });
    const jobs = Array.from({ length: 12 }, () => makeJob());
    const writing = importJobs(jobs, { repository });
    while (index.calls.length < 1) await new Promise((resolve) => setTimeout(resolve, 10));
    await first.stop();
    await writing;
    for (const job of jobs.slice(0, 4)) await repository.putJob({ ...job, name: 'changed after the crash' });

    const second = await startPoller({ batchSize: 3 });
    await second.drained();

    expect(await find('changed after the crash')).toEqual(jobs.slice(0, 4).map((job) => job.id));
    await expectIndexEqualsTable();
  });

  it('rebuilds a cleared index from the table', async () => {
    const jobs = Array.from({ length: 15 }, () => makeJob());
    await importJobs(jobs, { repository });
    const progress: number[] = [];

    const result = await reindex({
      repository,
      index: engine,
      batchSize: 4,
      onProgress: (step) => progress.push(step.indexed),
    });

    expect(result).toEqual({ scanned: 15, indexed: 15, failed: [], caughtUp: { rewritten: 15, removed: 0 } });
    expect(progress.at(-1)).toBe(15);
    await expectIndexEqualsTable();
    await engine.clear();
    expect(await verifyIndex({ repository, index: engine })).toMatchObject({
      ok: false,
      missing: jobs.map((job) => job.id),
    });
  });
});

describe('the deployed indexer entry', () => {
  const saved = { ...process.env };

  afterEach(async () => {
    process.env = { ...saved };
    resetConfig();
    resetDocumentClient();
    await resetSearchIndex();
  });

  it('indexes a write into the configured engine when the poller invokes it', async () => {
    Object.assign(process.env, handlerEnv(tables));
    resetConfig();
    resetDocumentClient();
    await resetSearchIndex();
    const { handler } = await import('../../functions/handlers/indexer');
    const poller = await startPoller({ handler });
    const job = makeJob({ name: 'Ørsted Foto harbour series' });

    await repository.putJob(job);
    await poller.drained();

    const configured = await searchIndex();
    const found = await configured.search({
      field: 'JobName',
      text: 'foto harb',
      globalFields: [],
      globalMatchesAccountNumber: false,
      offset: 0,
      limit: 10,
    });
    expect(found.jobs.map((summary) => summary.id)).toEqual([job.id]);
    expect(await verifyIndex({ repository, index: configured })).toMatchObject({ ok: true });
  });
});
