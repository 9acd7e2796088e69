/**
 * The jobs store's other operations on a mocked DynamoDB: an import's write (a job another writer changed
 * since is kept), a create without a read, batched imports, deletes (small and large), the transaction limit
 * of a write, and the scans of job versions and of whole jobs.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { toFileItem, toFileItems, toJobItem } from '../../../functions/jobs/store/items';
import type { Job } from '../../../functions/jobs/model/model';
import {
  JobRepository,
  JobSupersededError,
  JobWriteConflictError,
  MAX_TRANSACTION_ITEMS,
} from '../../../functions/jobs/store/repository';
import { makeFile, makeJob } from '../../support/jobs';
import { jobKeys } from '../../../functions/tables';

const documents = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const mock = mockClient(documents);
const named = (name: string, extra: Record<string, unknown> = {}): Error =>
  Object.assign(new Error(name), { name, ...extra });

const repository = (options: ConstructorParameters<typeof JobRepository>[2] = {}) =>
  new JobRepository(documents, 'jobs', { retry: { maxAttempts: 3, baseDelayMs: 0 }, ...options });
const itemsOf = (job: Job, version: number, extra: Record<string, unknown> = {}) => [
  { ...toJobItem(job, version), ...extra },
  ...toFileItems(job),
];
const transactions = () =>
  mock.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems ?? []);
const batches = () => mock.commandCalls(BatchWriteCommand).map((call) => call.args[0].input.RequestItems?.jobs ?? []);
const collect = async <T>(iterable: AsyncIterable<T>): Promise<T[]> => {
  const all: T[] = [];
  for await (const each of iterable) all.push(each);
  return all;
};

beforeEach(() => {
  mock.reset();
  mock.on(TransactWriteCommand).resolves({});
  mock.on(BatchWriteCommand).resolves({});
});

describe("an import's write of one job", () => {
  it('creates a new job, recording the version it wrote as importedVersion', async () => {
    mock.on(QueryCommand).resolves({ Items: [] });
    const job = makeJob();

    const result = await repository().importJob(job);

    expect(result).toMatchObject({ jobId: job.id, outcome: 'created' });
    const jobItem = transactions()[0]?.[0]?.Put?.Item;
    expect(jobItem).toMatchObject({ version: result.version, importedVersion: result.version });
  });

  it('changes a job the import wrote last, at the next version', async () => {
    const job = makeJob();
    mock.on(QueryCommand).resolves({ Items: itemsOf(job, 4, { importedVersion: 4 }) });

    const result = await repository().importJob({ ...job, name: 'Renamed' });

    expect(result).toEqual({ jobId: job.id, outcome: 'updated', version: 5 });
    expect(mock.commandCalls(QueryCommand).map((call) => call.args[0].input.ConsistentRead)).toEqual([true]);
    expect(transactions()[0]?.[0]?.Put).toMatchObject({
      Item: { name: 'Renamed', version: 5, importedVersion: 5 },
      ConditionExpression: 'version = :expected',
      ExpressionAttributeValues: { ':expected': 4 },
    });
  });

  it('keeps a job another writer changed since the import wrote it (JobSupersededError)', async () => {
    const job = makeJob();
    mock.on(QueryCommand).resolves({ Items: itemsOf(job, 6, { importedVersion: 4 }) });

    const outcome = repository().importJob({ ...job, name: 'Renamed' });

    await expect(outcome).rejects.toBeInstanceOf(JobSupersededError);
    await expect(outcome).rejects.toMatchObject({
      jobId: job.id,
      name: 'JobSupersededError',
      message: `job ${job.id} was changed by another writer since it was imported; the table keeps that change`,
    });
    expect(transactions()).toHaveLength(0);
  });

  it('answers unchanged for such a job when the table already holds exactly the imported job', async () => {
    const job = makeJob();
    mock.on(QueryCommand).resolves({ Items: itemsOf(job, 6, { importedVersion: 4 }) });

    await expect(repository().importJob(job)).resolves.toEqual({ jobId: job.id, outcome: 'unchanged', version: 6 });
  });
});

describe('a create of a job that never existed', () => {
  const isNew = (item: object) => ({
    Put: { TableName: 'jobs', Item: item, ConditionExpression: 'attribute_not_exists(pk)' },
  });

  it('reads nothing and writes the job whole in one transaction, every item conditioned on attribute_not_exists', async () => {
    const job = makeJob({ files: [makeFile(), makeFile()] });

    const jobItem = await repository().createJob(job, 1_234);

    expect(mock.commandCalls(QueryCommand)).toHaveLength(0);
    expect(jobItem).toEqual(toJobItem(job, 1_234));
    const [items] = transactions();
    expect(items).toEqual([isNew(toJobItem(job, 1_234)), ...toFileItems(job).map(isNew)]);
  });

  it('writes a job larger than a transaction files first, in transactions of conditional puts, and its job item last', async () => {
    const job = makeJob({ files: Array.from({ length: 25 }, () => makeFile()) });

    await repository({ maxTransactionItems: 10 }).createJob(job, 1_234);

    expect(batches()).toHaveLength(0);
    const written = transactions();
    expect(written.map((items) => items.length)).toEqual([10, 10, 5, 1]);
    expect(written.slice(0, 3).flat()).toEqual(toFileItems(job).map(isNew));
    expect(written[3]).toEqual([isNew(toJobItem(job, 1_234))]);
  });

  it("writes the items it is given in the job item's own transaction, small job or large", async () => {
    const seal = { Update: { TableName: 'jobs', Key: { pk: 'K', sk: 'K' }, UpdateExpression: 'SET a = :a' } };
    const small = makeJob({ files: [makeFile()] });
    const large = makeJob({ files: Array.from({ length: 9 }, () => makeFile()) });

    await repository({ maxTransactionItems: 10 }).createJob(small, 1, { commitWith: [seal] });
    await repository({ maxTransactionItems: 10 }).createJob(large, 2, { commitWith: [seal] });

    // The large job's 9 files and job item fit 10 items, not with the record too.
    expect(transactions()).toEqual([
      [isNew(toJobItem(small, 1)), isNew(toFileItems(small)[0]!), seal],
      toFileItems(large).map(isNew),
      [isNew(toJobItem(large, 2)), seal],
    ]);
  });

  it.each([
    ['its job item', 0],
    ['one of its files', 2],
  ])('answers 503 without its job item when %s is taken, naming it taken', async (_case, taken) => {
    const job = makeJob({ files: [makeFile(), makeFile()] });
    const codes = ['None', 'None', 'None', 'None'];
    codes[taken] = 'ConditionalCheckFailed';
    mock
      .on(TransactWriteCommand)
      .rejects(named('TransactionCanceledException', { CancellationReasons: codes.map((Code) => ({ Code })) }));

    const outcome = repository().createJob(job, 1, { commitWith: [{ ConditionCheck: {} as never }] });

    await expect(outcome).rejects.toMatchObject({
      name: 'DependencyUnavailableError',
      dependency: 'dynamodb',
      cause: { name: 'IdTakenError', jobId: job.id },
    });
  });

  it('answers 503 when only an item it was given failed its condition, naming no id taken', async () => {
    const job = makeJob({ files: [makeFile()] });
    const refused = named('TransactionCanceledException', {
      CancellationReasons: [{ Code: 'None' }, { Code: 'None' }, { Code: 'ConditionalCheckFailed' }],
    });
    mock.on(TransactWriteCommand).rejects(refused);

    await expect(
      repository().createJob(job, 1, { commitWith: [{ ConditionCheck: {} as never }] }),
    ).rejects.toMatchObject({ name: 'DependencyUnavailableError', cause: refused });
  });

  it('writes no job item once a transaction of its files failed', async () => {
    const job = makeJob({ files: Array.from({ length: 25 }, () => makeFile()) });
    mock
      .on(TransactWriteCommand)
      .resolvesOnce({})
      .rejects(
        named('TransactionCanceledException', {
          CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, ...Array.from({ length: 9 }, () => ({}))],
        }),
      );

    await expect(repository({ maxTransactionItems: 10 }).createJob(job, 1)).rejects.toMatchObject({
      cause: { name: 'IdTakenError' },
    });
    expect(
      transactions()
        .flat()
        .some((item) => item.Put?.Item?.sk === 'JOB'),
    ).toBe(false);
  });
});

describe('the size of one transaction', () => {
  it('holds a write of exactly maxTransactionItems items, and no more', async () => {
    mock.on(QueryCommand).resolves({ Items: [] });
    await repository({ maxTransactionItems: 3 }).putJob(makeJob({ files: [makeFile(), makeFile()] }));
    expect(transactions().map((items) => items.length)).toEqual([3]);
    expect(batches()).toHaveLength(0);

    mock.resetHistory();
    await repository({ maxTransactionItems: 3 }).putJob(makeJob({ files: [makeFile(), makeFile(), makeFile()] }));
    expect(transactions().map((items) => items.length)).toEqual([1]);
    expect(batches().map((batch) => batch.length)).toEqual([3]);
  });

  it('is at most DynamoDB limit of 100 items, and at least one', async () => {
    expect(MAX_TRANSACTION_ITEMS).toBe(100);
    mock.on(QueryCommand).resolves({ Items: [] });
    await repository({ maxTransactionItems: 500 }).putJob(makeJob({ files: Array.from({ length: 99 }, makeFile) }));
    await repository({ maxTransactionItems: 500 }).putJob(makeJob({ files: Array.from({ length: 100 }, makeFile) }));
    expect(transactions().map((items) => items.length)).toEqual([100, 1]);

    mock.resetHistory();
    await repository({ maxTransactionItems: 0 }).putJob(makeJob({ files: [] }));
    await repository({ maxTransactionItems: 0 }).putJob(makeJob({ files: [makeFile()] }));
    expect(transactions().map((items) => items.length)).toEqual([1, 1]);
    expect(batches()).toHaveLength(1);
  });

  it('deletes the files a job no longer has in the same transaction', async () => {
    const job = makeJob({ files: [makeFile(), makeFile()] });
    mock.on(QueryCommand).resolves({ Items: itemsOf(job, 2) });
    const dropped = job.files[1]!.id;

    await repository().putJob({ ...job, files: job.files.slice(0, 1) });

    expect(transactions()[0]?.slice(1)).toEqual([
      { Delete: { TableName: 'jobs', Key: { pk: `JOB#${job.id}`, sk: jobKeys.fileSk(dropped) } } },
    ]);
  });

  it('deletes them in the batches of a larger write', async () => {
    const job = makeJob({ files: [makeFile(), makeFile(), makeFile()] });
    mock.on(QueryCommand).resolves({ Items: itemsOf(job, 2) });

    await repository({ maxTransactionItems: 2 }).putJob({ ...job, name: 'Renamed', files: [] });

    expect(batches()[0]).toEqual(
      job.files.map((file) => ({ DeleteRequest: { Key: { pk: `JOB#${job.id}`, sk: jobKeys.fileSk(file.id) } } })),
    );
  });
});

describe('batched imports and upserts', () => {
  it('imports new jobs in transactions of at most maxTransactionItems, and existing ones the careful way', async () => {
    const existing = makeJob();
    const fresh = [makeJob(), makeJob()];
    mock.on(QueryCommand).resolves({ Items: itemsOf(existing, 3, { importedVersion: 3 }) });
    mock
      .on(TransactWriteCommand)
      .rejectsOnce(
        named('TransactionCanceledException', {
          CancellationReasons: [
            { Code: 'ConditionalCheckFailed' },
            { Code: 'None' },
            { Code: 'None' },
            { Code: 'None' },
          ],
        }),
      )
      .resolves({});

    const results = await repository({ maxTransactionItems: 4 }).importJobs([existing, ...fresh], { now: () => 50 });

    expect(results.map((result) => result.status === 'fulfilled' && result.value.outcome)).toEqual([
      'unchanged',
      'created',
      'created',
    ]);
    expect(transactions().map((items) => items.length)).toEqual([4, 2, 2]);
  });

  it('upserts many jobs, answering in input order', async () => {
    const jobs = [makeJob(), makeJob(), makeJob()];
    mock.on(QueryCommand).callsFake(async (input: { ExpressionAttributeValues: Record<string, string> }) => ({
      Items: input.ExpressionAttributeValues[':pk'] === `JOB#${jobs[1]!.id}` ? itemsOf(jobs[1]!, 9) : [],
    }));

    const results = await repository().putJobs(jobs, { concurrency: 2 });

    expect(results.map((result) => [result.jobId, result.outcome])).toEqual([
      [jobs[0]!.id, 'created'],
      [jobs[1]!.id, 'unchanged'],
      [jobs[2]!.id, 'created'],
    ]);
  });

  it("claims an import's ids on the id counter", async () => {
    mock.on(GetCommand).resolves({ Item: { next: 1_000_000_010 } });
    mock.on(UpdateCommand).resolves({});

    await expect(repository().claimImportIds([1_000_000_001, 1_000_000_020])).resolves.toEqual(
      new Set([1_000_000_001]),
    );
    expect(mock.commandCalls(UpdateCommand)[0]?.args[0].input.ExpressionAttributeValues).toEqual({
      ':past': 1_000_000_021,
      ':read': 1_000_000_010,
    });
  });
});

describe('a delete', () => {
  it('answers false and writes nothing for a job the table does not hold', async () => {
    mock.on(QueryCommand).resolves({ Items: [] });
    await expect(repository().deleteJob(5)).resolves.toBe(false);
    expect(transactions()).toHaveLength(0);
    expect(batches()).toHaveLength(0);
  });

  it('deletes the job item, conditioned on the version read, and its files in one transaction', async () => {
    const job = makeJob({ files: [makeFile(), makeFile()] });
    mock.on(QueryCommand).resolves({ Items: itemsOf(job, 7) });

    await expect(repository().deleteJob(job.id)).resolves.toBe(true);

    expect(mock.commandCalls(QueryCommand)[0]?.args[0].input.ConsistentRead).toBe(true);
    expect(transactions()).toEqual([
      [
        {
          Delete: {
            TableName: 'jobs',
            Key: { pk: `JOB#${job.id}`, sk: 'JOB' },
            ConditionExpression: 'version = :expected',
            ExpressionAttributeValues: { ':expected': 7 },
          },
        },
        ...job.files.map((file) => ({
          Delete: { TableName: 'jobs', Key: { pk: `JOB#${job.id}`, sk: jobKeys.fileSk(file.id) } },
        })),
      ],
    ]);
  });

  it('deletes the job item of a job without files alone, answering true', async () => {
    const job = makeJob({ files: [] });
    mock.on(QueryCommand).resolves({ Items: itemsOf(job, 3) });

    await expect(repository().deleteJob(job.id)).resolves.toBe(true);

    expect(transactions()).toEqual([
      [
        {
          Delete: {
            TableName: 'jobs',
            Key: { pk: `JOB#${job.id}`, sk: 'JOB' },
            ConditionExpression: 'version = :expected',
            ExpressionAttributeValues: { ':expected': 3 },
          },
        },
      ],
    ]);
    expect(batches()).toHaveLength(0);
  });

  it('deletes a job of exactly maxTransactionItems items in one transaction', async () => {
    const job = makeJob({ files: [makeFile(), makeFile()] });
    mock.on(QueryCommand).resolves({ Items: itemsOf(job, 7) });

    await expect(repository({ maxTransactionItems: 3 }).deleteJob(job.id)).resolves.toBe(true);

    expect(transactions().map((items) => items.length)).toEqual([3]);
    expect(batches()).toHaveLength(0);
  });

  it('deletes files left without a job item, answering false', async () => {
    const job = makeJob({ files: [makeFile()] });
    mock.on(QueryCommand).resolves({ Items: toFileItems(job) });

    await expect(repository().deleteJob(job.id)).resolves.toBe(false);

    expect(transactions()).toEqual([
      [{ Delete: { TableName: 'jobs', Key: { pk: `JOB#${job.id}`, sk: jobKeys.fileSk(job.files[0]!.id) } } }],
    ]);
  });

  it('deletes a larger job item first, then its files in batches', async () => {
    const job = makeJob({ files: [makeFile(), makeFile(), makeFile()] });
    mock.on(QueryCommand).resolves({ Items: itemsOf(job, 7) });
    const order: string[] = [];
    mock.on(TransactWriteCommand).callsFake(async () => {
      order.push('job item');
      return {};
    });
    mock.on(BatchWriteCommand).callsFake(async () => {
      order.push('files');
      return {};
    });

    await expect(repository({ maxTransactionItems: 3 }).deleteJob(job.id)).resolves.toBe(true);

    expect(order).toEqual(['job item', 'files']);
    expect(transactions()[0]).toHaveLength(1);
    expect(batches()[0]).toHaveLength(3);
  });

  it('deletes the files of a larger partition without a job item in batches only', async () => {
    const job = makeJob({ files: [makeFile(), makeFile(), makeFile()] });
    mock.on(QueryCommand).resolves({ Items: toFileItems(job) });

    await expect(repository({ maxTransactionItems: 2 }).deleteJob(job.id)).resolves.toBe(false);

    expect(transactions()).toHaveLength(0);
    expect(batches()[0]).toHaveLength(3);
  });

  it('reads again after losing a race, and gives up with JobWriteConflictError', async () => {
    const job = makeJob();
    mock.on(QueryCommand).resolves({ Items: itemsOf(job, 7) });
    mock.on(TransactWriteCommand).rejects(named('ConditionalCheckFailedException'));

    const outcome = repository().deleteJob(job.id);

    await expect(outcome).rejects.toBeInstanceOf(JobWriteConflictError);
    await expect(outcome).rejects.toMatchObject({
      name: 'JobWriteConflictError',
      jobId: job.id,
      message: `Job ${job.id} was changed concurrently on each of 3 attempts`,
      cause: { name: 'ConditionalCheckFailedException' },
    });
    expect(mock.commandCalls(QueryCommand)).toHaveLength(3);
  });
});

describe('the scans', () => {
  it('lists the id and version of every job item, a page of 1,000 items at a time by default', async () => {
    mock
      .on(ScanCommand)
      .resolvesOnce({ Items: [{ id: 1, version: 3 }], LastEvaluatedKey: { pk: 'JOB#1', sk: 'JOB' } })
      .resolves({ Items: [{ id: 2, version: 4 }] });

    await expect(collect(repository().scanJobVersions())).resolves.toEqual([
      { jobId: 1, version: 3 },
      { jobId: 2, version: 4 },
    ]);
    const inputs = mock.commandCalls(ScanCommand).map((call) => call.args[0].input);
    expect(inputs[0]).toEqual({
      TableName: 'jobs',
      Limit: 1_000,
      FilterExpression: 'sk = :job',
      ProjectionExpression: '#id, version',
      ExpressionAttributeNames: { '#id': 'id' },
      ExpressionAttributeValues: { ':job': 'JOB' },
      ExclusiveStartKey: undefined,
    });
    expect(inputs[1]?.ExclusiveStartKey).toEqual({ pk: 'JOB#1', sk: 'JOB' });
  });

  it('lists the ids of the jobs, with the page size asked for', async () => {
    mock.on(ScanCommand).resolves({
      Items: [
        { id: 8, version: 1 },
        { id: 9, version: 1 },
      ],
    });

    await expect(collect(repository({ scanPageSize: 7 }).scanJobIds())).resolves.toEqual([8, 9]);
    expect(mock.commandCalls(ScanCommand)[0]?.args[0].input.Limit).toBe(7);
  });

  it('gathers whole jobs from the items of a scan, across pages, reading again a job it saw incomplete', async () => {
    const first = makeJob({ files: [makeFile(), makeFile()] });
    const second = makeJob({ files: [makeFile()] });
    const changing = makeJob({ files: [makeFile(), makeFile()] });
    const [firstJob, ...firstFiles] = itemsOf(first, 1);
    mock
      .on(ScanCommand)
      .resolvesOnce({ Items: [firstJob!, firstFiles[0]!], LastEvaluatedKey: { pk: 'x', sk: 'y' } })
      .resolvesOnce({
        Items: [firstFiles[1]!, ...itemsOf(second, 2), ...itemsOf(changing, 3).slice(0, 2)],
        LastEvaluatedKey: { pk: 'x', sk: 'z' },
      })
      // Files of a partition without a job item are no job.
      .resolves({ Items: [toFileItem(99, makeFile())] });
    mock.on(QueryCommand).resolves({ Items: itemsOf(changing, 4) });

    const jobs = await collect(repository().scanJobs());

    expect(jobs).toEqual([
      { job: first, version: 1 },
      { job: second, version: 2 },
      { job: changing, version: 4 },
    ]);
    expect(mock.commandCalls(QueryCommand).map((call) => call.args[0].input)).toEqual([
      expect.objectContaining({ ExpressionAttributeValues: { ':pk': `JOB#${changing.id}` }, ConsistentRead: true }),
    ]);
    expect(mock.commandCalls(ScanCommand)[0]?.args[0].input).toEqual({
      TableName: 'jobs',
      Limit: 1_000,
      ExclusiveStartKey: undefined,
    });
  });

  it('reads again the last job of a scan when it ends incomplete, and yields nothing for an empty table', async () => {
    const job = makeJob({ files: [makeFile(), makeFile()] });
    mock.on(ScanCommand).resolves({ Items: itemsOf(job, 1).slice(0, 2) });
    mock.on(QueryCommand).resolves({ Items: itemsOf(job, 2) });

    await expect(collect(repository().scanJobs())).resolves.toEqual([{ job, version: 2 }]);

    mock.on(ScanCommand).resolves({});
    await expect(collect(repository().scanJobs())).resolves.toEqual([]);
  });

  it('skips a job deleted between the scan and the read again', async () => {
    const job = makeJob({ files: [makeFile(), makeFile()] });
    mock.on(ScanCommand).resolves({ Items: itemsOf(job, 1).slice(0, 2) });
    mock.on(QueryCommand).resolves({ Items: [] });

    await expect(collect(repository().scanJobs())).resolves.toEqual([]);
  });
});
