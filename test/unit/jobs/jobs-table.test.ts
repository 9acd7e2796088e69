/**
 * The jobs-table gateway's one policy, as each of its users meets it on a mocked DynamoDB: how a failed
 * request is thrown (the one classifier), how a read-check-write that lost a race is retried and when it
 * gives up (the one contention policy, for the repository's upserts and the reject use case alike), and
 * how items a batch left unprocessed are asked for again.
 */
import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DynamoDBDocumentClient,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../../functions/aws/dynamodb';
import { isTransientFailure } from '../../../functions/aws/failures';
import { DependencyUnavailableError } from '../../../functions/http/errors';
import { toFileItem, toJobItem } from '../../../functions/jobs/store/items';
import { JobsTable } from '../../../functions/jobs/store/jobs-table';
import { RejectContentionError } from '../../../functions/jobs/review/reject';
import { RejectFiles } from '../../../functions/jobs/review/reject-files';
import { JobRepository, JobWriteConflictError } from '../../../functions/jobs/store/repository';
import { makeFile, makeJob } from '../../support/jobs';
import { rejectPrincipal, rejectRequest, reviewedJob } from './reject-fixture';

const named = (name: string, extra: Record<string, unknown> = {}): Error =>
  Object.assign(new Error(name), { name, ...extra });
const conditionFailed = () =>
  named('TransactionCanceledException', {
    CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }],
  });
const canceled = (...codes: string[]) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

const reviewed = reviewedJob;
const request = rejectRequest;
const principal = rejectPrincipal;

const dynamo = mockClient(DynamoDBDocumentClient);
const client = createDocumentClient({ region: 'us-east-1', dynamodbEndpoint: undefined, dependencyTimeoutMs: 1_000 });
const plainClient = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const delays: number[] = [];
const recordDelay = async (ms: number): Promise<void> => {
  delays.push(ms);
};
const repository = new JobRepository(plainClient, 'jobs', { retry: { maxAttempts: 3 } });
const rejectFiles = (maxAttempts = 4) =>
  new RejectFiles({ client, tableName: 'jobs', retry: { maxAttempts }, random: () => 0.5, sleep: recordDelay });

beforeEach(() => {
  dynamo.reset();
  delays.length = 0;
});

describe('how a failed jobs-table request is thrown', () => {
  it('turns throttling past the SDK retries into DependencyUnavailableError', async () => {
    dynamo.on(QueryCommand).rejects(named('ProvisionedThroughputExceededException'));
    await expect(repository.getJob(1)).rejects.toBeInstanceOf(DependencyUnavailableError);
  });

  it('turns a timed-out request into DependencyUnavailableError', async () => {
    dynamo.on(QueryCommand).rejects(named('TimeoutError'));
    await expect(repository.getJob(1)).rejects.toBeInstanceOf(DependencyUnavailableError);
  });

  it('names the dependency dynamodb, whoever sent the request, and keeps what DynamoDB said as the cause', async () => {
    const throttled = named('ThrottlingException');
    dynamo.on(QueryCommand).rejects(throttled);
    await expect(new JobsTable(plainClient, 'jobs').readJob(1)).rejects.toMatchObject({
      dependency: 'dynamodb',
      cause: throttled,
    });
    await expect(rejectFiles().run(request, principal)).rejects.toMatchObject({ dependency: 'dynamodb' });
  });

  it('lets errors about the request itself through unchanged', async () => {
    dynamo.on(QueryCommand).rejects(named('ValidationException'));
    await expect(repository.getJob(1)).rejects.toMatchObject({ name: 'ValidationException' });
  });

  it('lets a lost race through unchanged, for the contention policy', async () => {
    dynamo.on(TransactWriteCommand).rejects(conditionFailed());
    await expect(new JobsTable(plainClient, 'jobs').transactWrite([])).rejects.toMatchObject({
      name: 'TransactionCanceledException',
    });
  });
});

describe('transient DynamoDB errors', () => {
  it.each([
    named('ThrottlingException'),
    named('InternalServerError'),
    named('TimeoutError'),
    Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }),
    named('UnknownError', { $metadata: { httpStatusCode: 503 } }),
    named('TransactionCanceledException', { CancellationReasons: [{ Code: 'ThrottlingError' }] }),
  ])('counts %s as unavailable', (error) => {
    expect(isTransientFailure(error)).toBe(true);
  });

  it.each([named('ValidationException'), named('ResourceNotFoundException'), conditionFailed(), 'not an error'])(
    'counts %s as a problem of the request',
    (error) => {
      expect(isTransientFailure(error)).toBe(false);
    },
  );
});

describe('the contention policy', () => {
  describe('of an upsert', () => {
    it('re-reads and retries when a concurrent writer changed the job first', async () => {
      const job = makeJob();
      dynamo
        .on(QueryCommand)
        .resolvesOnce({ Items: [toJobItem({ ...job, name: 'old' }, 5)] })
        .resolves({ Items: [toJobItem({ ...job, name: 'other writer' }, 6)] });
      dynamo.on(TransactWriteCommand).rejectsOnce(conditionFailed()).resolves({});

      await expect(repository.putJob(job)).resolves.toEqual({ jobId: job.id, outcome: 'updated', version: 7 });
      const conditions = dynamo
        .commandCalls(TransactWriteCommand)
        .map((call) => call.args[0].input.TransactItems?.[0]?.Put?.ExpressionAttributeValues);
      expect(conditions).toEqual([{ ':expected': 5 }, { ':expected': 6 }]);
    });

    it('gives up with JobWriteConflictError after its conflict retries', async () => {
      dynamo.on(QueryCommand).resolves({ Items: [] });
      dynamo.on(TransactWriteCommand).rejects(conditionFailed());

      await expect(repository.putJob(makeJob())).rejects.toBeInstanceOf(JobWriteConflictError);
      expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(3);
    });
  });

  describe('of a rejection', () => {
    beforeEach(() => {
      dynamo.on(QueryCommand).resolves({ Items: [{ pk: 'JOB#7', sk: 'FILE#0000000000000070', fileId: 70 }] });
      dynamo
        .on(BatchGetCommand)
        .resolves({ Responses: { jobs: [toJobItem(reviewed, 3), toFileItem(7, reviewed.files[0]!, true)] } });
    });

    it('reads again and writes again after losing a race, waiting a jittered, growing delay', async () => {
      dynamo
        .on(TransactWriteCommand)
        .rejectsOnce(canceled('ConditionalCheckFailed', 'None'))
        .rejectsOnce(canceled('None', 'TransactionConflict'))
        .resolves({});
      await expect(rejectFiles().run(request, principal)).resolves.toMatchObject({ _type: 'RejectResponseBody' });
      expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(3);
      // Whose job it is, once per request; then the file and its job, once per attempt.
      expect(dynamo.commandCalls(BatchGetCommand)).toHaveLength(4);
      expect(dynamo.commandCalls(QueryCommand)).toHaveLength(1);
      expect(delays).toEqual([10, 20]);
    });

    it('answers a contention error once its attempts are spent', async () => {
      dynamo.on(TransactWriteCommand).rejects(canceled('ConditionalCheckFailed', 'None'));
      const outcome = rejectFiles(3).run(request, principal);
      await expect(outcome).rejects.toBeInstanceOf(RejectContentionError);
      await expect(outcome).rejects.toBeInstanceOf(DependencyUnavailableError);
      expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(3);
    });

    it('passes on a transaction failure that no retry can fix', async () => {
      dynamo.on(TransactWriteCommand).rejects(canceled('ValidationError', 'None'));
      await expect(rejectFiles().run(request, principal)).rejects.toBeInstanceOf(TransactionCanceledException);
      expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(1);
    });
  });

  describe('itself', () => {
    it('caps every wait at maxDelayMs and stops once the next wait would pass the time budget', async () => {
      let clock = 0;
      const table = new JobsTable(plainClient, 'jobs', {
        retry: { maxAttempts: 100, baseDelayMs: 100, maxDelayMs: 300, budgetMs: 1_000 },
        now: () => clock,
        random: () => 1,
        sleep: async (ms) => {
          delays.push(ms);
          clock += ms;
        },
      });
      let attempts = 0;
      const outcome = table.underContention(
        async () => {
          attempts += 1;
          throw conditionFailed();
        },
        (made, lastConflict) => Object.assign(new Error('gave up'), { made, lastConflict }),
      );
      await expect(outcome).rejects.toMatchObject({ made: 5, lastConflict: { name: 'TransactionCanceledException' } });
      expect(delays).toEqual([100, 200, 300, 300]);
      expect(attempts).toBe(5);
    });

    it('still waits when the next wait ends exactly at the time budget, counted from the start of the work', async () => {
      let clock = 10_000;
      const table = new JobsTable(plainClient, 'jobs', {
        retry: { maxAttempts: 100, baseDelayMs: 100, maxDelayMs: 300, budgetMs: 900 },
        now: () => clock,
        random: () => 1,
        sleep: async (ms) => {
          delays.push(ms);
          clock += ms;
        },
      });
      const outcome = table.underContention(
        async () => {
          throw conditionFailed();
        },
        (made) => Object.assign(new Error('gave up'), { made }),
      );
      // 100 + 200 + 300 = 600 ms waited; the next 300 ms end at exactly 900 ms, within the budget; the one after, past it.
      await expect(outcome).rejects.toMatchObject({ made: 5 });
      expect(delays).toEqual([100, 200, 300, 300]);
    });

    it('does not wait after the last attempt', async () => {
      const table = new JobsTable(plainClient, 'jobs', { retry: { maxAttempts: 2 }, sleep: recordDelay });
      const outcome = table.underContention(
        async () => {
          throw conditionFailed();
        },
        (made) => new Error(`gave up after ${made}`),
      );
      await expect(outcome).rejects.toThrow('gave up after 2');
      expect(delays).toHaveLength(1);
    });
  });
});

describe('items a batch left unprocessed', () => {
  it('resends the items a batch write left unprocessed', async () => {
    const small = new JobRepository(plainClient, 'jobs', { maxTransactionItems: 1 });
    const job = makeJob({ files: [makeFile()] });
    const unprocessed = { jobs: [{ PutRequest: { Item: toFileItem(job.id, job.files[0] as never) } }] };
    dynamo.on(QueryCommand).resolves({ Items: [] });
    dynamo.on(BatchWriteCommand).resolvesOnce({ UnprocessedItems: unprocessed }).resolves({});
    dynamo.on(TransactWriteCommand).resolves({});

    await small.putJob(job);

    expect(dynamo.commandCalls(BatchWriteCommand)).toHaveLength(2);
  });

  describe('of a rejection', () => {
    beforeEach(() => {
      dynamo.on(QueryCommand).resolves({ Items: [{ pk: 'JOB#7', sk: 'FILE#0000000000000070', fileId: 70 }] });
    });

    it('retries the keys a batch read left unprocessed', async () => {
      dynamo
        .on(BatchGetCommand)
        // Whose job it is, then the file and its job: the file's key left unprocessed.
        .resolvesOnce({ Responses: { jobs: [toJobItem(reviewed, 3)] } })
        .resolvesOnce({
          Responses: { jobs: [toJobItem(reviewed, 3)] },
          UnprocessedKeys: { jobs: { Keys: [{ pk: 'JOB#7', sk: 'FILE#0000000000000070' }] } },
        })
        .resolves({ Responses: { jobs: [toFileItem(7, reviewed.files[0]!, true)] } });
      dynamo.on(TransactWriteCommand).resolves({});
      await expect(rejectFiles().run(request, principal)).resolves.toMatchObject({ jobs: [{ id: 7 }] });
      expect(dynamo.commandCalls(BatchGetCommand)[2]?.args[0].input.RequestItems?.jobs?.Keys).toEqual([
        { pk: 'JOB#7', sk: 'FILE#0000000000000070' },
      ]);
    });

    it('reports DynamoDB unavailable when a batch read stays unprocessed', async () => {
      dynamo.on(BatchGetCommand).resolves({ UnprocessedKeys: { jobs: { Keys: [{ pk: 'JOB#7', sk: 'JOB' }] } } });
      await expect(rejectFiles().run(request, principal)).rejects.toBeInstanceOf(DependencyUnavailableError);
      expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
    });
  });
});
