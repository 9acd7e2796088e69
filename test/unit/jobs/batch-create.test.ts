/**
 * The import's batched creates on a mocked DynamoDB client: the failure paths DynamoDB Local does not
 * produce on demand (transaction conflicts, a request refused as a whole, throttling, an unreachable
 * table) and how jobs are packed into transactions.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { type CreateResult, createJobsInBatches } from '../../../functions/jobs/store/batch-create';
import { toFileItems, toJobItem } from '../../../functions/jobs/store/items';
import { JobsTable } from '../../../functions/jobs/store/jobs-table';
import type { Job } from '../../../functions/jobs/model/model';
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

  it('reports a table that stays unreachable for every job as unavailable once the policy gives up, without sending the rest', async () => {
    waits = [];
    mock.on(TransactWriteCommand).rejects(Object.assign(named('Error'), { code: 'ECONNREFUSED' }));
    const jobs = Array.from({ length: 3 }, () => makeJob({ files: Array.from({ length: 40 }, () => makeFile()) }));

    const results = await createJobsInBatches(pacedTarget, jobs, { ...noWait, concurrency: 1 });

    for (const result of results) {
      expect(result.status).toBe('rejected');
      expect((result as PromiseRejectedResult).reason).toBeInstanceOf(DependencyUnavailableError);
    }
    expect(fallbacks).toEqual([]);
    // The first group's attempts under the policy (10), and none of the other groups.
    expect(mock.commandCalls(TransactWriteCommand)).toHaveLength(pacedTarget.table.retry.maxAttempts);
  });

  it('waits out a table that answers 5xx for a while (a lock DynamoDB Local waited on too long), and writes every job', async () => {
    waits = [];
    const locked = Object.assign(named('InternalServerError'), {
      message: 'This action timed out because it took too long waiting for a lock',
      $metadata: { httpStatusCode: 500 },
    });
    mock.on(TransactWriteCommand).rejectsOnce(locked).rejectsOnce(locked).rejectsOnce(locked).resolves({});
    const jobs = Array.from({ length: 3 }, () => makeJob());

    const results = await createJobsInBatches(pacedTarget, jobs, noWait);

    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    expect(waits).toEqual([20, 40, 80]);
    expect(fallbacks).toEqual([]);
  });

  it('sends the jobs known to exist the careful way at once, and no transaction for them', async () => {
    mock.on(TransactWriteCommand).resolves({});
    const [known, fresh] = [makeJob(), makeJob()];

    const results = await createJobsInBatches(target, [known!, fresh!], { ...noWait, existing: new Set([known!.id]) });

    expect(sentJobIds()).toEqual([[fresh!.id]]);
    expect(fallbacks).toEqual([known!.id]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled']);
  });

  it('waits out a table that is unavailable for a while on the careful path too', async () => {
    waits = [];
    mock.on(TransactWriteCommand).rejects(cancelled(['ConditionalCheckFailed', 'None']));
    let refusals = 2;
    const job = makeJob({ files: [makeFile()] });
    const flaky = {
      table: pacedTarget.table,
      fallback: async (written: Job): Promise<CreateResult> => {
        if (refusals-- > 0) throw new DependencyUnavailableError('dynamodb', named('ThrottlingException'));
        return target.fallback(written);
      },
    };

    const results = await createJobsInBatches(flaky, [job], noWait);

    expect(results[0]?.status).toBe('fulfilled');
    expect(fallbacks).toEqual([job.id]);
    expect(waits).toEqual([20, 40]);
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

/** A table whose waits are recorded, each the full backoff (`random` 1): 20 ms × 2^(attempt − 1), up to 400 ms. */
let waits: number[];
const pacedTarget = {
  table: new JobsTable(documents, 'jobs', {
    random: () => 1,
    sleep: async (ms) => {
      waits.push(ms);
    },
  }),
  fallback: target.fallback,
};
const VERSION = noWait.now();
/** The bytes the import counts for an item of a job written at `VERSION` (its JSON text). */
const itemBytes = (job: Job): number[] =>
  [{ ...toJobItem(job, VERSION), importedVersion: VERSION }, ...toFileItems(job)].map((item) =>
    Buffer.byteLength(JSON.stringify(item)),
  );
/** A job whose items count exactly `sizes` bytes: the job item's, then each file's. */
const sizedJob = (sizes: number[]): Job => {
  const job = makeJob({ files: sizes.slice(1).map(() => makeFile()) });
  const [jobBytes = 0, ...fileBytes] = itemBytes(job);
  return {
    ...job,
    description: 'd'.repeat((sizes[0] ?? 0) - jobBytes),
    files: job.files.map((file, index) => ({
      ...file,
      remarkToProcessor: 'r'.repeat((sizes[index + 1] ?? 0) - (fileBytes[index] ?? 0)),
    })),
  };
};
/** `total` bytes over `items` items as even as can be. */
const spread = (total: number, items: number): number[] =>
  Array.from({ length: items }, (_, index) => Math.floor(total / items) + (index < total % items ? 1 : 0));
const MIB = 1024 * 1024;

describe('the limits of a shared transaction', () => {
  beforeEach(() => {
    mock.on(TransactWriteCommand).resolves({});
  });

  it('shares a job with an item of exactly 400 KiB, and sends one with a larger item the careful way', async () => {
    const fits = sizedJob([2_000, 400 * 1024]);
    const tooLarge = sizedJob([2_000, 400 * 1024 + 1]);
    expect(itemBytes(fits)).toEqual([2_000, 400 * 1024]);

    await createJobsInBatches(target, [fits, tooLarge], noWait);

    expect(sentJobIds()).toEqual([[fits.id]]);
    expect(fallbacks).toEqual([tooLarge.id]);
  });

  it('shares a job of exactly 4 MiB, and sends a larger one the careful way', async () => {
    const fits = sizedJob(spread(4 * MIB, 12));
    const tooLarge = sizedJob(spread(4 * MIB + 1, 12));
    expect(itemBytes(fits).reduce((sum, size) => sum + size, 0)).toBe(4 * MIB);

    await createJobsInBatches(target, [fits, tooLarge], noWait);

    expect(sentJobIds()).toEqual([[fits.id]]);
    expect(fallbacks).toEqual([tooLarge.id]);
  });

  it('packs jobs into one transaction up to 4 MiB together, and no further', async () => {
    const first = sizedJob(spread(2 * MIB, 6));
    const second = sizedJob(spread(2 * MIB, 6));
    const third = sizedJob(spread(2 * MIB + 1, 6));
    const fourth = sizedJob(spread(2 * MIB, 6));

    await createJobsInBatches(target, [first, second, third, fourth], { ...noWait, concurrency: 1 });

    expect(sentJobIds()).toEqual([[first.id, second.id], [third.id], [fourth.id]]);
    expect(fallbacks).toEqual([]);
  });

  it('keeps two jobs over 4 MiB together apart once the item budget has grown past their items', async () => {
    // 6 items, then 8 and 6: the first transaction doubles the budget to 24 items, which the last two fit.
    const first = sizedJob(spread(2 * MIB, 6));
    const threeMiB = sizedJob(spread(3 * MIB, 8));
    const twoMiB = sizedJob(spread(2 * MIB, 6));

    await createJobsInBatches(target, [first, threeMiB, twoMiB], { ...noWait, concurrency: 1 });

    expect(sentJobIds()).toEqual([[first.id], [threeMiB.id], [twoMiB.id]]);
    expect(fallbacks).toEqual([]);
  });

  it('shares a job of exactly as many items as a transaction holds', async () => {
    const job = makeJob({ files: [makeFile(), makeFile()] });

    await createJobsInBatches(target, [job], { ...noWait, transactionItems: 3 });

    expect(sentJobIds()).toEqual([[job.id]]);
    expect(fallbacks).toEqual([]);
  });

  it('conditions the job item of each job on attribute_not_exists(pk), and nothing else', async () => {
    await createJobsInBatches(target, [makeJob({ files: [makeFile()] }), makeJob()], noWait);

    const conditions = (mock.commandCalls(TransactWriteCommand)[0]?.args[0].input.TransactItems ?? []).map(
      (item) => item.Put?.ConditionExpression,
    );
    expect(conditions).toEqual(['attribute_not_exists(pk)', undefined, 'attribute_not_exists(pk)', undefined]);
  });

  it('refuses a batch naming one job twice, before writing anything', async () => {
    const job = makeJob();

    await expect(createJobsInBatches(target, [job, makeJob(), { ...job }], noWait)).rejects.toThrow(
      new TypeError(`Job ${job.id} appears twice in one batch of creates`),
    );
    expect(mock.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });
});

describe('a transaction sent again', () => {
  beforeEach(() => {
    waits = [];
  });

  it.each(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException'])(
    'takes %s for a timeout: waits, then sends the two halves, each after its own wait',
    async (name) => {
      mock.on(TransactWriteCommand).rejectsOnce(named(name)).resolves({});
      const jobs = [makeJob(), makeJob()];

      const results = await createJobsInBatches(pacedTarget, jobs, noWait);

      expect(sentJobIds()).toEqual([[jobs[0]!.id, jobs[1]!.id], [jobs[0]!.id], [jobs[1]!.id]]);
      expect(waits).toEqual([20, 20, 20]);
      expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled']);
    },
  );

  it('keeps every transaction after a timeout to half the budget: a half of the jobs over it is cut again', async () => {
    mock.on(TransactWriteCommand).resolvesOnce({}).rejectsOnce(named('TimeoutError')).resolves({});
    const files = (count: number) => Array.from({ length: count }, () => makeFile());
    // 12 items, then 11, 11 and 1: the first goes alone (the budget starts at 12) and doubles the budget to
    // 24; the next three (23 items) time out, which halves it to 12, and their first half (22 items) is
    // sent as two transactions.
    const opener = makeJob({ files: files(11) });
    const a = makeJob({ files: files(10) });
    const b = makeJob({ files: files(10) });
    const c = makeJob({ files: [] });

    const results = await createJobsInBatches(pacedTarget, [opener, a, b, c], { ...noWait, concurrency: 1 });

    expect(sentJobIds()).toEqual([[opener.id], [a.id, b.id, c.id], [a.id], [b.id], [c.id]]);
    expect(results.every((result) => result.status === 'fulfilled')).toBe(true);
  });

  it('sends a lone job that timed out again whole, after one wait', async () => {
    mock.on(TransactWriteCommand).rejectsOnce(named('TimeoutError')).resolves({});

    await createJobsInBatches(pacedTarget, [makeJob()], noWait);

    expect(mock.commandCalls(TransactWriteCommand)).toHaveLength(2);
    expect(waits).toEqual([20]);
  });

  it('gives a job that keeps timing out six attempts, then reports DynamoDB unavailable', async () => {
    mock.on(TransactWriteCommand).rejects(named('TimeoutError'));
    const job = makeJob();

    const results = await createJobsInBatches(pacedTarget, [job], noWait);

    expect(mock.commandCalls(TransactWriteCommand)).toHaveLength(6);
    expect(waits).toEqual([20, 40, 80, 160, 320]);
    expect(fallbacks).toEqual([]);
    expect(results[0]).toMatchObject({ status: 'rejected', reason: { dependency: 'dynamodb' } });
  });

  it('waits before each attempt after a conflict, a growing moment, and none before the first', async () => {
    mock
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled(['TransactionConflict', 'None']))
      .rejectsOnce(cancelled(['TransactionConflict', 'None']))
      .resolves({});

    await createJobsInBatches(pacedTarget, [makeJob()], noWait);

    expect(mock.commandCalls(TransactWriteCommand)).toHaveLength(3);
    expect(waits).toEqual([20, 40]);
  });

  it('sends the jobs that do not exist again at once, without those that do', async () => {
    const jobs = [makeJob({ files: [makeFile()] }), makeJob({ files: [makeFile()] }), makeJob()];
    mock
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled(['None', 'None', 'ConditionalCheckFailed', 'None', 'None', 'None']))
      .resolves({});

    const results = await createJobsInBatches(pacedTarget, jobs, noWait);

    expect(sentJobIds()).toEqual([jobs.map((job) => job.id), [jobs[0]!.id, jobs[2]!.id]]);
    expect(fallbacks).toEqual([jobs[1]!.id]);
    expect(waits).toEqual([]);
    expect(results.map((result) => result.status === 'fulfilled' && result.value.outcome)).toEqual([
      'created',
      'updated',
      'created',
    ]);
  });

  it('sends a job one of whose items DynamoDB refused the careful way', async () => {
    const jobs = [makeJob({ files: [makeFile()] }), makeJob({ files: [makeFile()] })];
    mock
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled(['None', 'None', 'None', 'ValidationError']))
      .resolves({});

    await createJobsInBatches(pacedTarget, jobs, noWait);

    expect(sentJobIds()).toEqual([jobs.map((job) => job.id), [jobs[0]!.id]]);
    expect(fallbacks).toEqual([jobs[1]!.id]);
  });

  it('sends nothing more once every job of a transaction exists', async () => {
    const jobs = [makeJob(), makeJob()];
    mock
      .on(TransactWriteCommand)
      .rejects(cancelled(['ConditionalCheckFailed', 'None', 'ConditionalCheckFailed', 'None']));

    await createJobsInBatches(pacedTarget, jobs, noWait);

    expect(mock.commandCalls(TransactWriteCommand)).toHaveLength(1);
    expect(fallbacks).toEqual(jobs.map((job) => job.id));
  });

  it('fails a lone job DynamoDB refused as a request, without the careful way', async () => {
    const refused = named('ValidationException');
    mock.on(TransactWriteCommand).rejects(refused);

    const results = await createJobsInBatches(pacedTarget, [makeJob()], noWait);

    expect(results).toEqual([{ status: 'rejected', reason: refused }]);
    expect(fallbacks).toEqual([]);
  });

  it('writes the jobs that go the careful way in input order', async () => {
    const large = makeJob({ files: Array.from({ length: 100 }, () => makeFile()) });
    const existing = makeJob();
    mock.on(TransactWriteCommand).rejects(cancelled(['ConditionalCheckFailed', 'None']));

    await createJobsInBatches(pacedTarget, [existing, large], { ...noWait, fallbackConcurrency: 1 });

    expect(fallbacks).toEqual([existing.id, large.id]);
  });
});
