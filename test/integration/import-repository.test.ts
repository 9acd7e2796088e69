/**
 * The jobs store the import writes through, on DynamoDB Local: versions, idempotency, the optimistic
 * lock under concurrent writers, jobs too large for one transaction, and the scans reindex and verify
 * read.
 */
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Job } from '../../functions/jobs/model/model';
import { JobRepository, type StoredJob } from '../../functions/jobs/store/repository';
import { createTestTables, localClient, type TestTables } from '../support/dynamo';
import { makeFile, makeJob } from '../support/jobs';

const client = localClient();
const documents = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
let tables: TestTables;
let repository: JobRepository;

const collect = async <T>(iterable: AsyncIterable<T>): Promise<T[]> => {
  const values: T[] = [];
  for await (const value of iterable) values.push(value);
  return values;
};

const partitionSize = async (jobId: number): Promise<number> => {
  const output = await documents.send(
    new QueryCommand({
      TableName: tables.jobsTable,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `JOB#${jobId}` },
      Select: 'COUNT',
    }),
  );
  return output.Count ?? 0;
};

beforeEach(async () => {
  tables = await createTestTables(client);
  repository = new JobRepository(documents, tables.jobsTable);
});

describe('jobs store', () => {
  it('stores a new job with its files and reads it back exactly', async () => {
    const job = makeJob({
      tags: ['print'],
      files: [makeFile({ tags: ['front'] }), makeFile({ remarkToProcessor: 'Crop' })],
    });
    const before = Date.now();

    const result = await repository.putJob(job);

    expect(result.outcome).toBe('created');
    expect(result.version).toBeGreaterThanOrEqual(before);
    expect(await repository.getJob(job.id)).toEqual({ job, version: result.version });
    expect(await partitionSize(job.id)).toBe(3);
  });

  it('answers undefined for a job it does not have', async () => {
    await expect(repository.getJob(123_456_789)).resolves.toBeUndefined();
  });

  it('writes nothing when the job is stored exactly so already', async () => {
    const job = makeJob({ files: [makeFile(), makeFile()] });
    const created = await repository.putJob(job);

    const again = await repository.putJob(structuredClone(job));

    expect(again).toEqual({ jobId: job.id, outcome: 'unchanged', version: created.version });
    expect((await repository.getJob(job.id))?.version).toBe(created.version);
  });

  it('bumps the version by one per change and deletes the files a job no longer has', async () => {
    const kept = makeFile();
    const dropped = makeFile();
    const job = makeJob({ files: [kept, dropped] });
    const created = await repository.putJob(job);

    const renamed = await repository.putJob({ ...job, name: 'Renamed', files: [kept] });
    const retagged = await repository.putJob({ ...job, name: 'Renamed', files: [{ ...kept, tags: ['detail'] }] });

    expect([renamed.outcome, renamed.version]).toEqual(['updated', created.version + 1]);
    expect([retagged.outcome, retagged.version]).toEqual(['updated', created.version + 2]);
    const stored = await repository.getJob(job.id);
    expect(stored?.job.files).toEqual([{ ...kept, tags: ['detail'] }]);
    expect(await partitionSize(job.id)).toBe(2);
  });

  it('loses no write when many writers change one job at once', async () => {
    const job = makeJob();
    const created = await repository.putJob(job);
    const names = Array.from({ length: 6 }, (_, position) => `Concurrent ${position}`);

    const results = await Promise.all(names.map((name) => repository.putJob({ ...job, name })));

    expect(results.every((result) => result.outcome === 'updated')).toBe(true);
    expect(results.map((result) => result.version).sort((a, b) => a - b)).toEqual(
      names.map((_, position) => created.version + position + 1),
    );
    const stored = await repository.getJob(job.id);
    const last = results.find((result) => result.version === created.version + names.length);
    expect(stored?.version).toBe(last?.version);
    expect(names).toContain(stored?.job.name);
  });

  it('stores a job too large for one transaction, and shrinks it again', async () => {
    const files = Array.from({ length: 140 }, () => makeFile());
    const job = makeJob({ files });

    const created = await repository.putJob(job);
    expect(await repository.getJob(job.id)).toEqual({ job, version: created.version });

    const shrunk = await repository.putJob({ ...job, files: files.slice(0, 3) });
    expect(shrunk.version).toBe(created.version + 1);
    expect((await repository.getJob(job.id))?.job.files).toEqual(files.slice(0, 3));
    expect(await partitionSize(job.id)).toBe(4);
  });

  it('writes files before the job item when a write does not fit in one transaction', async () => {
    const small = new JobRepository(documents, tables.jobsTable, { maxTransactionItems: 2 });
    const job = makeJob({ files: [makeFile(), makeFile(), makeFile()] });

    const created = await small.putJob(job);
    const changed = await small.putJob({ ...job, files: [makeFile(), ...job.files.slice(1)] });

    expect(changed.version).toBe(created.version + 1);
    expect((await small.getJob(job.id))?.job.files).toHaveLength(3);
    expect(await partitionSize(job.id)).toBe(4);
  });

  it('deletes a job with all its files', async () => {
    const job = makeJob({ files: [makeFile(), makeFile()] });
    await repository.putJob(job);

    await expect(repository.deleteJob(job.id)).resolves.toBe(true);
    await expect(repository.deleteJob(job.id)).resolves.toBe(false);
    expect(await partitionSize(job.id)).toBe(0);
  });

  it('gives a re-created job a version above every version it had before', async () => {
    const job = makeJob();
    const first = await repository.putJob(job);
    await repository.putJob({ ...job, name: 'Edited' });
    await repository.deleteJob(job.id);

    const recreated = await repository.putJob(job);

    expect(recreated.outcome).toBe('created');
    expect(recreated.version).toBeGreaterThan(first.version + 1);
  });

  it('scans every job complete, even when its items span scan pages', async () => {
    const paged = new JobRepository(documents, tables.jobsTable, { scanPageSize: 3 });
    const jobs: Job[] = [
      makeJob({ files: Array.from({ length: 7 }, () => makeFile()) }),
      makeJob({ files: [] }),
      makeJob({ files: [makeFile(), makeFile()] }),
    ];
    const versions: number[] = [];
    for (const job of jobs) versions.push((await repository.putJob(job)).version);

    const scanned = await collect(paged.scanJobs());

    const byId = (a: StoredJob, b: StoredJob): number => a.job.id - b.job.id;
    expect(scanned.sort(byId)).toEqual(
      jobs.map((job, position) => ({ job, version: versions[position] as number })).sort(byId),
    );
    expect((await collect(paged.scanJobIds())).sort((a, b) => a - b)).toEqual(jobs.map((job) => job.id));
    expect(await collect(paged.scanJobVersions())).toHaveLength(3);
  });
});
