/**
 * The import's batched creates on a mocked DynamoDB client: the failure paths DynamoDB Local does not
 * produce on demand (transaction conflicts, a request refused as a whole, throttling, an unreachable
 * table) and how jobs are packed into transactions.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { type CreateResult, createJobsInBatches } from '../../../functions/jobs/batch-create';
import { JobsTable } from '../../../functions/jobs/jobs-table';
import type { Job } from '../../../functions/jobs/model';
import { DependencyUnavailableError } from '../../../functions/http/errors';
import { makeFile, makeJob } from '../../support/jobs';

const documents = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const mock = mockClient(documents);
const named = (name: string, extra: Record<string, unknown> = {}): Error =>
  Object.assign(new Error(name), { name, ...extra });
const cancelled = (codes: string[]): Error =>
  named('TransactionCanceledException', { CancellationReasons: codes.map((Code) => ({ Code })) });

let fallbacks: number[];
const target = {
  table: new JobsTable(documents, 'jobs'),
  fallback: async (job: Job): Promise<CreateResult> => {
    fallbacks.push(job.id);
    return { jobId: job.id, outcome: 'updated', version: 7 };
  },
};
const noWait = { now: () => 1_000 };
const sentJobIds = (): number[][] =>
  mock
    .commandCalls(TransactWriteCommand)
    .map((call) =>
      (call.args[0].input.TransactItems ?? [])
        .filter((item) => item.Put?.ConditionExpression !== undefined)
        .map((item) => item.Put?.Item?.id as number),
    );

beforeEach(() => {
  mock.reset();
  fallbacks = [];
});

describe('batched creates', () => {
  it('packs whole jobs into transactions of at most the item limit, each job item conditioned', async () => {
    mock.on(TransactWriteCommand).resolves({});
    const jobs = Array.from({ length: 5 }, () => makeJob({ files: [makeFile(), makeFile()] }));

    const results = await createJobsInBatches(target, jobs, { ...noWait, transactionItems: 7, concurrency: 1 });

    expect(sentJobIds()).toEqual([jobs.slice(0, 2), jobs.slice(2, 4), jobs.slice(4)].map((g) => g.map((j) => j.id)));
    const items = mock.commandCalls(TransactWriteCommand)[0]?.args[0].input.TransactItems ?? [];
    expect(items[0]?.Put?.Item).toMatchObject({ sk: 'JOB', version: 1_000, importedVersion: 1_000 });
    expect(items[1]?.Put?.ConditionExpression).toBeUndefined();
    expect(results.every((result) => result.status === 'fulfilled' && result.value.outcome === 'created')).toBe(true);
  });

  it('writes many groups, each on its first attempt, none of them the careful way', async () => {
    mock.on(TransactWriteCommand).resolves({});
    const jobs = Array.from({ length: 42 }, () => makeJob({ files: [makeFile()] }));

    const results = await createJobsInBatches(target, jobs, { ...noWait, transactionItems: 6, concurrency: 2 });

    expect(fallbacks).toEqual([]);
    expect(mock.commandCalls(TransactWriteCommand)).toHaveLength(jobs.length / 3);
    expect(results.every((result) => result.status === 'fulfilled' && result.value.outcome === 'created')).toBe(true);
  });

  it('sends a transaction again after a conflict, without touching the careful path', async () => {
    mock
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled(['TransactionConflict', 'None', 'None', 'None']))
      .resolves({});
    const jobs = [makeJob(), makeJob()];

    const results = await createJobsInBatches(target, jobs, noWait);

    expect(mock.commandCalls(TransactWriteCommand)).toHaveLength(2);
    expect(fallbacks).toEqual([]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled']);
  });

  it('writes the jobs of a transaction refused as a whole one by one', async () => {
    mock.on(TransactWriteCommand).rejects(named('ValidationException'));
    const jobs = [makeJob(), makeJob(), makeJob()];

    const results = await createJobsInBatches(target, jobs, noWait);

    expect(fallbacks).toEqual(jobs.map((job) => job.id));
    expect(results).toEqual(
      jobs.map((job) => ({ status: 'fulfilled', value: { jobId: job.id, outcome: 'updated', version: 7 } })),
    );
  });

  it('sends a transaction that timed out again as two halves', async () => {
    mock
      .on(TransactWriteCommand)
      .rejectsOnce(Object.assign(named('TimeoutError'), { code: 'ETIMEDOUT' }))
      .resolves({});
    const jobs = Array.from({ length: 4 }, () => makeJob());

    const results = await createJobsInBatches(target, jobs, noWait);

    const ids = jobs.map((job) => job.id);
    expect(sentJobIds()).toEqual([ids, ids.slice(0, 2), ids.slice(2)]);
    expect(results.every((result) => result.status === 'fulfilled')).toBe(true);
    expect(fallbacks).toEqual([]);
  });

  it('starts with small transactions, doubles them with every success, and halves one that times out', async () => {
    mock
      .on(TransactWriteCommand)
      .resolvesOnce({})
      .resolvesOnce({})
      .resolvesOnce({})
      .rejectsOnce(Object.assign(named('TimeoutError'), { code: 'ETIMEDOUT' }))
      .resolves({});
    const jobs = Array.from({ length: 48 }, () => makeJob());

    const results = await createJobsInBatches(target, jobs, { ...noWait, transactionItems: 48, concurrency: 1 });

    const ids = jobs.map((job) => job.id);
    expect(sentJobIds()).toEqual([
      ids.slice(0, 6),
      ids.slice(6, 18),
      ids.slice(18, 24),
      ids.slice(24),
      ids.slice(24, 36),
      ids.slice(36),
    ]);
    expect(results.every((result) => result.status === 'fulfilled')).toBe(true);
  });

  it('sends a lone job whose transaction timed out again', async () => {
    mock
      .on(TransactWriteCommand)
      .rejectsOnce(Object.assign(named('TimeoutError'), { code: 'ETIMEDOUT' }))
      .resolves({});
    const job = makeJob();

    const results = await createJobsInBatches(target, [job], noWait);

    expect(mock.commandCalls(TransactWriteCommand)).toHaveLength(2);
    expect(results[0]?.status).toBe('fulfilled');
  });

  it('reports an unreachable table for every job as unavailable, without sending the rest', async () => {
    mock.on(TransactWriteCommand).rejects(Object.assign(named('Error'), { code: 'ECONNREFUSED' }));
    const jobs = Array.from({ length: 3 }, () => makeJob({ files: Array.from({ length: 40 }, () => makeFile()) }));

    const results = await createJobsInBatches(target, jobs, { ...noWait, concurrency: 1 });

    for (const result of results) {
      expect(result.status).toBe('rejected');
      expect((result as PromiseRejectedResult).reason).toBeInstanceOf(DependencyUnavailableError);
    }
    expect(fallbacks).toEqual([]);
    expect(mock.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });

  it('hands jobs that stay throttled to the careful path after a bounded number of attempts', async () => {
    mock.on(TransactWriteCommand).rejects(cancelled(['ThrottlingError', 'None']));
    const job = makeJob();

    const results = await createJobsInBatches(target, [job], noWait);

    expect(mock.commandCalls(TransactWriteCommand).length).toBeGreaterThan(1);
    expect(mock.commandCalls(TransactWriteCommand).length).toBeLessThanOrEqual(6);
    expect(fallbacks).toEqual([job.id]);
    expect(results[0]?.status).toBe('fulfilled');
  }, 20_000);

  it('sends a job with more items than one transaction holds the careful way straight away', async () => {
    mock.on(TransactWriteCommand).resolves({});
    const large = makeJob({ files: Array.from({ length: 100 }, () => makeFile()) });
    const small = makeJob();

    await createJobsInBatches(target, [large, small], noWait);

    expect(fallbacks).toEqual([large.id]);
    expect(sentJobIds()).toEqual([[small.id]]);
  });
});
