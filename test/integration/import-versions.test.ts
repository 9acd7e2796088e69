/**
 * The import's version guarantees on DynamoDB Local, with the batched creates in place: new jobs are
 * written without being read, several per transaction, yet an import never undoes a change another
 * writer made (a rejection after the import, or one racing the import's own write), a rerun of older
 * data changes nothing, and jobs that exist, are too large to share a transaction or are refused by
 * DynamoDB are each handled on their own.
 */
import { Readable } from 'node:stream';
import { DynamoDBDocumentClient, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Job } from '../../functions/jobs/model/model';
import { RejectFiles } from '../../functions/jobs/review/reject-files';
import { JobRepository } from '../../functions/jobs/store/repository';
import { importJobs, importNdjson } from '../../local/operations/import';
import { createTestTables, localClient } from '../support/dynamo';
import { makeFile, makeJob } from '../support/jobs';

const client = localClient();
const documents = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
const operator = { role: 'operator' as const, accountId: 1001 };
let tableName: string;
let repository: JobRepository;

/** The commands a repository sends, counted by name; `before` runs ahead of each one. */
const observed = (before?: (command: unknown) => Promise<void>) => {
  const counts = new Map<string, number>();
  const spy = {
    send: async (command: { constructor: { name: string } }) => {
      counts.set(command.constructor.name, (counts.get(command.constructor.name) ?? 0) + 1);
      await before?.(command);
      return documents.send(command as never);
    },
  } as unknown as DynamoDBDocumentClient;
  return { spy, counts };
};

const reject = (fileId: number): Promise<unknown> =>
  new RejectFiles({ client: documents, tableName }).run(
    { files: [{ fileId, customRejection: 'Background not white', rejects: [] }] },
    operator,
  );

const reviewing = (overrides: Partial<Job> = {}): Job =>
  makeJob({ status: 'CJ_REVIEWING', files: [makeFile(), makeFile()], ...overrides });

beforeEach(async () => {
  const tables = await createTestTables(client);
  tableName = tables.jobsTable;
  repository = new JobRepository(documents, tableName);
});

describe('import versions', () => {
  it('creates new jobs without reading them, several per transaction', async () => {
    const jobs = Array.from({ length: 30 }, () => makeJob({ files: [makeFile(), makeFile()] }));
    const { spy, counts } = observed();

    const result = await importJobs(jobs, { repository: new JobRepository(spy, tableName) });

    expect(result).toEqual({ imported: 30, unchanged: 0, failed: [] });
    expect(counts.get('QueryCommand') ?? 0).toBe(0);
    expect(counts.get('TransactWriteCommand')).toBeLessThan(jobs.length);
    for (const job of jobs) expect((await repository.getJob(job.id))?.job).toEqual(job);
  });

  it('writes the existing jobs of a batch one by one and the new ones together, all correct', async () => {
    const existing = Array.from({ length: 5 }, () => makeJob({ files: [makeFile()] }));
    await importJobs(existing, { repository });
    const changed = existing.map((job, position) =>
      position % 2 === 0 ? { ...job, name: `Changed ${position}`, files: [makeFile()] } : job,
    );
    const fresh = Array.from({ length: 10 }, () => makeJob());
    const mixed = [fresh[0], changed[0], ...fresh.slice(1, 6), ...changed.slice(1), ...fresh.slice(6)] as Job[];
    const { spy, counts } = observed();

    const result = await importJobs(mixed, { repository: new JobRepository(spy, tableName) });

    expect(result).toEqual({ imported: 13, unchanged: 2, failed: [] });
    expect(counts.get('QueryCommand')).toBe(existing.length);
    for (const job of mixed) expect((await repository.getJob(job.id))?.job).toEqual(job);
  });

  it('keeps a rejection made after the import when the same (now older) file is imported again', async () => {
    const job = reviewing();
    const line = JSON.stringify(job);
    await importNdjson(Readable.from([line]), { repository });
    await reject(job.files[0]!.id);
    const rejected = await repository.getJob(job.id);

    const again = await importNdjson(Readable.from([line]), { repository });

    expect(again.imported).toBe(0);
    expect(again.failed).toEqual([{ line: 1, message: expect.stringMatching(/changed by another writer/) }]);
    expect(await repository.getJob(job.id)).toEqual(rejected);
    expect(rejected?.job.files[0]?.isRejected).toBe(true);
  });

  it('keeps a rejection that races the import writing the same job', async () => {
    const job = reviewing();
    await importJobs([job], { repository });
    let raced = false;
    const { spy } = observed(async (command) => {
      if (raced || !(command instanceof TransactWriteCommand)) return;
      raced = true;
      await reject(job.files[1]!.id);
    });
    const edited = { ...job, name: 'Edited by a second import' };

    const result = await importJobs([edited], { repository: new JobRepository(spy, tableName) });

    expect(raced).toBe(true);
    expect(result.failed).toEqual([{ line: 1, message: expect.stringMatching(/changed by another writer/) }]);
    const stored = await repository.getJob(job.id);
    expect(stored?.job.files[1]?.isRejected).toBe(true);
    expect(stored?.job.name).toBe(job.name);
  });

  it('applies a changed line to a job only imports have written, and counts an identical one unchanged', async () => {
    const job = makeJob({ files: [makeFile(), makeFile()] });
    const first = await repository.importJobs([job]);
    const renamed = { ...job, name: 'Renamed in the source system' };

    const [second] = await repository.importJobs([renamed]);
    const [third] = await repository.importJobs([renamed]);

    const version = first[0]?.status === 'fulfilled' ? first[0].value.version : Number.NaN;
    expect(second).toEqual({ status: 'fulfilled', value: { jobId: job.id, outcome: 'updated', version: version + 1 } });
    expect(third).toEqual({
      status: 'fulfilled',
      value: { jobId: job.id, outcome: 'unchanged', version: version + 1 },
    });
    expect((await repository.getJob(job.id))?.job.name).toBe(renamed.name);
  });

  it('imports a job too large to share a transaction beside small ones', async () => {
    const large = makeJob({ files: Array.from({ length: 120 }, () => makeFile()) });
    const small = [makeJob(), makeJob()];

    const result = await importJobs([small[0], large, small[1]], { repository });

    expect(result).toEqual({ imported: 3, unchanged: 0, failed: [] });
    expect((await repository.getJob(large.id))?.job).toEqual(large);
    const queried = await documents.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `JOB#${large.id}` },
        Select: 'COUNT',
      }),
    );
    expect(queried.Count).toBe(121);
  });

  it('reports a job DynamoDB refuses and writes the others of its transaction', async () => {
    const huge = makeJob({ files: [makeFile({ remarkToProcessor: 'x'.repeat(420 * 1024) })] });
    const others = [makeJob(), makeJob(), makeJob()];

    const result = await importJobs([others[0], others[1], huge, others[2]], { repository });

    expect(result.imported).toBe(3);
    expect(result.failed).toEqual([{ line: 3, message: expect.stringMatching(/^the table refused the job/) }]);
    for (const job of others) expect((await repository.getJob(job.id))?.job).toEqual(job);
    expect(await repository.getJob(huge.id)).toBeUndefined();
  });

  it('refuses a batch that names one job twice', async () => {
    const job = makeJob();
    await expect(repository.importJobs([job, { ...job, name: 'Twice' }])).rejects.toThrow(/appears twice/);
  });
});
