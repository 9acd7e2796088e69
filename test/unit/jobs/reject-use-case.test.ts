import {
  BatchGetCommand,
  DynamoDBDocumentClient,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../../functions/aws/dynamodb';
import { toFileItem, toJobItem } from '../../../functions/jobs/store/items';
import { AMBIGUOUS_FILE_MESSAGE } from '../../../functions/jobs/review/reject';
import type { Review } from '../../../functions/jobs/model/model';
import { RejectionTooLargeError } from '../../../functions/jobs/review/reject';
import { RejectFiles } from '../../../functions/jobs/review/reject-files';
import { rejectPrincipal, rejectRequest, reviewedJob } from './reject-fixture';

const job = reviewedJob;
const request = rejectRequest;
const principal = rejectPrincipal;

describe('the reject use case with a mocked DynamoDB', () => {
  const client = createDocumentClient({ region: 'us-east-1', dynamodbEndpoint: undefined, dependencyTimeoutMs: 1_000 });
  const dynamo = mockClient(DynamoDBDocumentClient);
  const delays: number[] = [];
  const useCase = (maxAttempts = 4) =>
    new RejectFiles({
      client,
      tableName: 'jobs',
      retry: { maxAttempts },
      random: () => 0.5,
      sleep: async (ms) => {
        delays.push(ms);
      },
    });

  beforeEach(() => {
    dynamo.reset();
    delays.length = 0;
    dynamo.on(QueryCommand).resolves({ Items: [{ pk: 'JOB#7', sk: 'FILE#0000000000000070', fileId: 70 }] });
    dynamo
      .on(BatchGetCommand)
      .resolves({ Responses: { jobs: [toJobItem(job, 3), toFileItem(7, job.files[0]!, true)] } });
  });

  it('looks the file up in the byFileId index and reads its items consistently', async () => {
    dynamo.on(TransactWriteCommand).resolves({});
    await useCase().run(request, principal);
    expect(dynamo.commandCalls(QueryCommand)[0]?.args[0].input).toMatchObject({
      IndexName: 'byFileId',
      ExpressionAttributeValues: { ':fileId': 70 },
    });
    // Whose job it is first, from its job item alone; then the file with its job.
    expect(dynamo.commandCalls(BatchGetCommand).map((call) => call.args[0].input.RequestItems?.jobs)).toEqual([
      { Keys: [{ pk: 'JOB#7', sk: 'JOB' }], ConsistentRead: true },
      {
        Keys: [
          { pk: 'JOB#7', sk: 'FILE#0000000000000070' },
          { pk: 'JOB#7', sk: 'JOB' },
        ],
        ConsistentRead: true,
      },
    ]);
    // No committed delivery read: no partition is read, and the stored counts are added to, not written whole
    // (the delivered file moves from pending to rejected).
    expect(dynamo.commandCalls(QueryCommand)).toHaveLength(1);
    const items = dynamo.commandCalls(TransactWriteCommand)[0]?.args[0].input.TransactItems ?? [];
    const jobWrite = items.find((item) => item.Update?.Key?.sk === 'JOB')?.Update;
    expect(jobWrite?.UpdateExpression).toMatch(
      / ADD #version :one, #reviewPending :reviewPending, #reviewRejected :reviewRejected$/,
    );
    expect(jobWrite?.ExpressionAttributeValues).not.toHaveProperty(':read');
  });

  it('trims a long review history to the five most recent reviews with one bounded write', async () => {
    const review = (index: number): Review => ({
      customRejection: 'x'.repeat(1_000),
      rejects: [],
      reviewDate: new Date(Date.UTC(2023, 0, 1, 0, 0, index)).toISOString(),
    });
    const history = Array.from({ length: 400 }, (_, index) => review(index + 1));
    const full = {
      ...job.files[0]!,
      isRejected: true,
      reviewDate: '2024-01-01T00:00:00.000Z',
      reviews: review(0),
      previousReviews: history,
    };
    dynamo.on(BatchGetCommand).resolves({ Responses: { jobs: [toJobItem(job, 3), toFileItem(7, full, true)] } });
    dynamo.on(TransactWriteCommand).resolves({});
    await expect(useCase().run(request, principal)).resolves.toMatchObject({ files: [{ fileId: 70 }] });
    const items = dynamo.commandCalls(TransactWriteCommand)[0]?.args[0].input.TransactItems ?? [];
    const fileWrite = items.find((item) => item.Update?.Key?.sk === 'FILE#0000000000000070')?.Update;
    expect(fileWrite?.UpdateExpression).toContain('#previousReviews = :moved');
    expect(fileWrite?.ExpressionAttributeValues?.[':moved']).toEqual([...history.slice(-4), review(0)]);
  });

  it('refuses with file_not_rejectable, writing nothing, a file whose item leaves no room for the review', async () => {
    const crowded = { ...job.files[0]!, remarkToProcessor: 'p'.repeat(395_000) };
    dynamo.on(BatchGetCommand).resolves({ Responses: { jobs: [toJobItem(job, 3), toFileItem(7, crowded, true)] } });
    const outcome = useCase().run(request, principal);
    await expect(outcome).rejects.toBeInstanceOf(RejectionTooLargeError);
    await expect(outcome).rejects.toMatchObject({ code: 'file_not_rejectable', fileId: 70 });
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('treats a file the index lists but the table no longer holds as not found', async () => {
    dynamo.on(BatchGetCommand).resolves({ Responses: { jobs: [toJobItem(job, 3)] } });
    await expect(useCase().run(request, principal)).rejects.toMatchObject({ code: 'file_not_found', fileId: 70 });
  });

  it('reads another account’s file as not found to a user, and finds it for an operator', async () => {
    const other = { ...job, accountId: 11 };
    dynamo
      .on(BatchGetCommand)
      .resolves({ Responses: { jobs: [toJobItem(other, 3), toFileItem(7, other.files[0]!, true)] } });
    dynamo.on(TransactWriteCommand).resolves({});
    await expect(useCase().run(request, principal)).rejects.toMatchObject({ code: 'file_not_found', fileId: 70 });
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
    await expect(useCase().run(request, { role: 'operator', accountId: 1 })).resolves.toMatchObject({
      files: [{ fileId: 70, isRejected: true }],
    });
  });

  it('takes no item of another kind or id, nor a file without its job item, for the file', async () => {
    const cases = [
      [toJobItem(job, 3), { ...toFileItem(7, job.files[0]!, true), entity: 'job' }],
      [toJobItem(job, 3), { ...toFileItem(7, job.files[0]!, true), fileId: 71 }],
      [{ ...toJobItem(job, 3), entity: 'file' }, toFileItem(7, job.files[0]!, true)],
    ];
    for (const items of cases) {
      dynamo.on(BatchGetCommand).resolves({ Responses: { jobs: items } });
      await expect(useCase().run(request, principal)).rejects.toMatchObject({ code: 'file_not_found', fileId: 70 });
    }
  });

  it('refuses an id that names files of two jobs the caller may change', async () => {
    const second = { ...job, id: 8 };
    dynamo.on(QueryCommand).resolves({
      Items: [
        { pk: 'JOB#7', sk: 'FILE#0000000000000070', fileId: 70 },
        { pk: 'JOB#8', sk: 'FILE#0000000000000070', fileId: 70 },
      ],
    });
    dynamo.on(BatchGetCommand).resolves({
      Responses: {
        jobs: [
          toJobItem(job, 3),
          toFileItem(7, job.files[0]!, true),
          toJobItem(second, 3),
          toFileItem(8, second.files[0]!, true),
        ],
      },
    });
    await expect(useCase().run(request, principal)).rejects.toMatchObject({
      code: 'file_not_rejectable',
      fileId: 70,
      message: AMBIGUOUS_FILE_MESSAGE,
    });
    // To a user of one of the two accounts, the id names one file.
    const foreign = { ...second, accountId: 11 };
    dynamo.on(BatchGetCommand).resolves({
      Responses: {
        jobs: [
          toJobItem(job, 3),
          toFileItem(7, job.files[0]!, true),
          toJobItem(foreign, 3),
          toFileItem(8, foreign.files[0]!, true),
        ],
      },
    });
    dynamo.on(TransactWriteCommand).resolves({});
    const answer = await useCase().run(request, principal);
    expect(answer.files).toEqual([expect.objectContaining({ fileId: 70, jobId: 7 })]);
  });

  it('counts the files of a job item written before counts existed, and writes the counts with the review', async () => {
    const {
      reviewPending: _p,
      reviewRejected: _r,
      reviewAccepted: _a,
      ...legacy
    } = toJobItem(job, 3) as unknown as Record<string, unknown>;
    // The file as a delivered job stores it: pending review.
    dynamo.on(BatchGetCommand).resolves({ Responses: { jobs: [legacy, toFileItem(7, job.files[0]!, true)] } });
    dynamo
      .on(QueryCommand, { IndexName: 'byFileId' })
      .resolves({ Items: [{ pk: 'JOB#7', sk: 'FILE#0000000000000070', fileId: 70 }] });
    dynamo.on(QueryCommand, { ExpressionAttributeValues: { ':pk': 'JOB#7' } }).resolves({
      Items: [toFileItem(7, job.files[0]!, true), toJobItem(job, 3)],
    });
    dynamo.on(TransactWriteCommand).resolves({});
    await useCase().run(request, principal);
    const partition = dynamo.commandCalls(QueryCommand).find((call) => call.args[0].input.IndexName === undefined);
    expect(partition?.args[0].input).toMatchObject({ ConsistentRead: true });
    const items = dynamo.commandCalls(TransactWriteCommand)[0]?.args[0].input.TransactItems ?? [];
    const jobWrite = items.find((item) => item.Update?.Key?.sk === 'JOB')?.Update;
    // Counted from the partition as one pending file, written as one rejected file: the counts written whole,
    // under a guard on the version read.
    expect(jobWrite?.UpdateExpression).toContain(
      '#reviewPending = :reviewPending, #reviewRejected = :reviewRejected, #reviewAccepted = :reviewAccepted',
    );
    expect(jobWrite?.ExpressionAttributeValues).toMatchObject({
      ':reviewPending': 0,
      ':reviewRejected': 1,
      ':reviewAccepted': 0,
      ':read': 3,
    });
    expect(jobWrite?.ConditionExpression).toContain('#version = :read');
  });

  it('finishes a committed delivery found while reading, then reads again and decides on that read', async () => {
    const committed = { ...toJobItem(job, 3), deliveryCommitted: 'd-1', deliveryFileIds: [70] };
    // Archived meanwhile: only a decision on the second read refuses the file.
    const archived = toJobItem({ ...job, status: 'CJ_ARCHIVED' }, 4);
    dynamo
      .on(BatchGetCommand)
      .resolvesOnce({ Responses: { jobs: [committed] } })
      .resolvesOnce({ Responses: { jobs: [committed, toFileItem(7, job.files[0]!, true)] } })
      .resolves({ Responses: { jobs: [archived, toFileItem(7, job.files[0]!, true)] } });
    dynamo
      .on(QueryCommand, { IndexName: 'byFileId' })
      .resolves({ Items: [{ pk: 'JOB#7', sk: 'FILE#0000000000000070', fileId: 70 }] });
    dynamo.on(QueryCommand, { ExpressionAttributeValues: { ':pk': 'JOB#7' } }).resolves({
      Items: [toFileItem(7, job.files[0]!, true), committed],
    });
    dynamo.on(UpdateCommand).resolves({});
    dynamo.on(TransactWriteCommand).resolves({});
    await expect(useCase().run(request, principal)).rejects.toMatchObject({ code: 'job_archived', fileId: 70 });
    // The delivery's record is removed before the second read.
    expect(dynamo.commandCalls(UpdateCommand)[0]?.args[0].input).toMatchObject({
      UpdateExpression: 'REMOVE #deliveryCommitted, #deliveryFileIds',
      ExpressionAttributeValues: { ':delivery': 'd-1' },
    });
    // Whose job it is, the read that finds the delivery, the read after it.
    expect(dynamo.commandCalls(BatchGetCommand)).toHaveLength(3);
    // The index lookup and the one partition the committed delivery lives in: no other job is finished.
    expect(dynamo.commandCalls(QueryCommand)).toHaveLength(2);
  });
});
