import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { toFileItem, toJobItem } from '../../../functions/jobs/store/items';
import { JobRepository, planWrite, sameItem } from '../../../functions/jobs/store/repository';
import { makeFile, makeJob } from '../../support/jobs';
import { jobKeys } from '../../../functions/tables';

describe('item comparison', () => {
  it('ignores key order and attributes holding undefined', () => {
    expect(sameItem({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1, d: undefined })).toBe(true);
  });

  it('tells apart lists in another order, null from absent, and different numbers', () => {
    expect(sameItem({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(sameItem({ a: null }, {})).toBe(false);
    expect(sameItem({ a: 1 }, { a: 2 })).toBe(false);
  });

  it('tells an object from a value that is none, either way round', () => {
    for (const value of [1, 'a', null, undefined, true]) {
      expect(sameItem(value, {})).toBe(false);
      expect(sameItem({}, value)).toBe(false);
    }
    expect(sameItem(null, null)).toBe(true);
  });

  it('compares lists element by element, and a list with no object', () => {
    expect(sameItem([1, { b: [2] }], [1, { b: [2] }])).toBe(true);
    expect(sameItem([], {})).toBe(false);
    expect(sameItem({}, [])).toBe(false);
    expect(sameItem([1], { 0: 1 })).toBe(false);
    expect(sameItem([1], [1, 2])).toBe(false);
    expect(sameItem([1, 2], [1])).toBe(false);
    expect(sameItem([1, undefined], [1])).toBe(false);
    expect(sameItem([1, 2], [1, 3])).toBe(false);
    expect(sameItem([2, 1], [1, 1])).toBe(false);
  });
});

describe('write planning', () => {
  const job = makeJob({ files: [makeFile(), makeFile()] });
  const stored = [toJobItem(job, 41), ...job.files.map((file) => toFileItem(job.id, file))];

  it('plans nothing for a job stored exactly so', () => {
    expect(planWrite(job, stored)).toMatchObject({ jobItem: undefined, version: 41, filePuts: [], fileDeletes: [] });
  });

  it('starts a new job at the current time', () => {
    expect(planWrite(job, [], 1_700_000_000_000)).toMatchObject({
      version: 1_700_000_000_000,
      expectedVersion: undefined,
      filePuts: job.files.map((file) => toFileItem(job.id, file)),
    });
  });

  it('writes only the changed file and the job item at the next version', () => {
    const changed = { ...job, files: [job.files[0], { ...job.files[1], isRejected: true }] } as typeof job;
    const plan = planWrite(changed, stored);
    expect(plan.version).toBe(42);
    expect(plan.expectedVersion).toBe(41);
    expect(plan.filePuts.map((item) => item.fileId)).toEqual([job.files[1]?.id]);
    expect(plan.jobItem?.version).toBe(42);
  });

  it('writes a changed file that leaves the job item as it was, at the next version', () => {
    const retagged = { ...job, files: [job.files[0], { ...job.files[1], tags: ['new'] }] } as typeof job;
    const plan = planWrite(retagged, stored);
    expect(plan.filePuts.map((item) => item.tags)).toEqual([['new']]);
    expect(plan.fileDeletes).toEqual([]);
    expect(plan.jobItem?.version).toBe(42);
  });

  it('deletes a file item the job does not list even when the job item is as it was', () => {
    const orphan = toFileItem(job.id, makeFile());
    const plan = planWrite(job, [...stored, orphan]);
    expect(plan.fileDeletes).toEqual([orphan.sk]);
    expect(plan.filePuts).toEqual([]);
    expect(plan.jobItem?.version).toBe(42);
  });

  it("records an import's version as importedVersion, and any other write drops it", () => {
    expect(planWrite(job, [], 9, { imported: true }).jobItem?.importedVersion).toBe(9);
    expect(planWrite(job, [], 9).jobItem).not.toHaveProperty('importedVersion');
    expect(planWrite(job, [], 9, { imported: false }).jobItem).not.toHaveProperty('importedVersion');
    const imported = [{ ...toJobItem(job, 41), importedVersion: 41 }, ...stored.slice(1)];
    expect(planWrite(job, imported)).toMatchObject({ jobItem: undefined, version: 41 });
    const renamed = planWrite({ ...job, name: 'Renamed' }, imported);
    expect(renamed.jobItem?.version).toBe(42);
    expect(renamed.jobItem).not.toHaveProperty('importedVersion');
  });

  it('deletes the files the job no longer has', () => {
    const plan = planWrite({ ...job, files: job.files.slice(0, 1) }, stored);
    expect(plan.fileDeletes).toEqual([jobKeys.fileSk(job.files[1]!.id)]);
    expect(plan.jobItem?.fileCount).toBe(1);
  });
});

describe('jobs store on a mocked DynamoDB', () => {
  const dynamo = mockClient(DynamoDBDocumentClient);
  const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
  const repository = new JobRepository(client, 'jobs');
  // Its contention policy, its classifier and its resending of unprocessed items: jobs-table.test.ts.

  beforeEach(() => {
    dynamo.reset();
  });

  it('reads a job with one strongly consistent query per page', async () => {
    const job = makeJob({ files: [makeFile()] });
    dynamo
      .on(QueryCommand)
      .resolvesOnce({ Items: [toJobItem(job, 3)], LastEvaluatedKey: { pk: 'x', sk: 'JOB' } })
      .resolvesOnce({ Items: [toFileItem(job.id, job.files[0] as never)] });

    await expect(repository.getJob(job.id)).resolves.toEqual({ job, version: 3 });
    const inputs = dynamo.commandCalls(QueryCommand).map((call) => call.args[0].input);
    expect(inputs.map((input) => input.ConsistentRead)).toEqual([true, true]);
    expect(inputs[1]?.ExclusiveStartKey).toEqual({ pk: 'x', sk: 'JOB' });
  });

  it('writes a job that fits in one transaction with one conditioned transaction', async () => {
    const job = makeJob({ files: [makeFile(), makeFile()] });
    dynamo.on(QueryCommand).resolves({ Items: [] });
    dynamo.on(TransactWriteCommand).resolves({});

    await expect(repository.putJob(job)).resolves.toMatchObject({ outcome: 'created' });
    const writes = dynamo.commandCalls(TransactWriteCommand);
    expect(writes).toHaveLength(1);
    const items = writes[0]?.args[0].input.TransactItems ?? [];
    expect(items).toHaveLength(3);
    expect(items[0]?.Put?.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(dynamo.commandCalls(BatchWriteCommand)).toHaveLength(0);
  });

  it('writes a larger job files first, in batches, and the job item last', async () => {
    const job = makeJob({ files: Array.from({ length: 120 }, () => makeFile()) });
    const order: string[] = [];
    dynamo.on(QueryCommand).resolves({ Items: [] });
    dynamo.on(BatchWriteCommand).callsFake(async () => {
      order.push('files');
      return {};
    });
    dynamo.on(TransactWriteCommand).callsFake(async (input: { TransactItems: unknown[] }) => {
      order.push(`job item (${input.TransactItems.length})`);
      return {};
    });

    await repository.putJob(job);

    expect(order).toEqual(['files', 'files', 'files', 'files', 'files', 'job item (1)']);
  });

  it('skips the write entirely when nothing changed', async () => {
    const job = makeJob({ files: [makeFile()] });
    dynamo.on(QueryCommand).resolves({ Items: [toJobItem(job, 9), toFileItem(job.id, job.files[0] as never)] });

    await expect(repository.putJob(job)).resolves.toEqual({ jobId: job.id, outcome: 'unchanged', version: 9 });
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });
});
