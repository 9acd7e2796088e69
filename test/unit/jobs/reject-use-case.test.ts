import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../../functions/aws/dynamodb';
import { DependencyUnavailableError } from '../../../functions/http/errors';
import { toFileItem, toJobItem } from '../../../functions/jobs/items';
import { type Job, type Review, unreviewedFile } from '../../../functions/jobs/model';
import { RejectContentionError, RejectionTooLargeError } from '../../../functions/jobs/reject';
import { RejectFiles } from '../../../functions/jobs/reject-files';

const job: Job = {
  id: 7,
  accountId: 10,
  accountName: 'Ørsted Foto',
  status: 'CJ_REVIEWING',
  guid: '0b6f2c4e-8f7a-4c59-9d3e-1a2b3c4d5e6f',
  name: 'Autumn',
  description: '',
  invoiceReference: '',
  tags: [],
  realCost: 1,
  createdDate: '2024-01-01T00:00:00.000Z',
  acceptedDate: null,
  orderedDate: null,
  deliveredDate: null,
  reviewedDate: null,
  files: [unreviewedFile({ id: 70, fileName: 'a.jpg' })],
};

const request = { files: [{ fileId: 70, customRejection: 'Redo', rejects: [] }] };
const principal = { role: 'user' as const, accountId: 10 };

const canceled = (...codes: string[]) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

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
    dynamo.on(QueryCommand).resolves({ Items: [{ pk: 'JOB#7', sk: 'FILE#70', fileId: 70 }] });
    dynamo.on(BatchGetCommand).resolves({ Responses: { jobs: [toJobItem(job, 3), toFileItem(7, job.files[0]!)] } });
  });

  it('looks the file up in the byFileId index and reads its items consistently', async () => {
    dynamo.on(TransactWriteCommand).resolves({});
    await useCase().run(request, principal);
    expect(dynamo.commandCalls(QueryCommand)[0]?.args[0].input).toMatchObject({
      IndexName: 'byFileId',
      ExpressionAttributeValues: { ':fileId': 70 },
    });
    expect(dynamo.commandCalls(BatchGetCommand)[0]?.args[0].input.RequestItems?.jobs).toEqual({
      Keys: [
        { pk: 'JOB#7', sk: 'FILE#70' },
        { pk: 'JOB#7', sk: 'JOB' },
      ],
      ConsistentRead: true,
    });
  });

  it('reads again and writes again after losing a race, waiting a jittered, growing delay', async () => {
    dynamo
      .on(TransactWriteCommand)
      .rejectsOnce(canceled('ConditionalCheckFailed', 'None'))
      .rejectsOnce(canceled('None', 'TransactionConflict'))
      .resolves({});
    await expect(useCase().run(request, principal)).resolves.toMatchObject({ _type: 'RejectResponseBody' });
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(3);
    expect(dynamo.commandCalls(BatchGetCommand)).toHaveLength(3);
    expect(dynamo.commandCalls(QueryCommand)).toHaveLength(1);
    expect(delays).toEqual([10, 20]);
  });

  it('answers a contention error once its attempts are spent', async () => {
    dynamo.on(TransactWriteCommand).rejects(canceled('ConditionalCheckFailed', 'None'));
    const outcome = useCase(3).run(request, principal);
    await expect(outcome).rejects.toBeInstanceOf(RejectContentionError);
    await expect(outcome).rejects.toBeInstanceOf(DependencyUnavailableError);
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(3);
  });

  it('passes on a transaction failure that no retry can fix', async () => {
    dynamo.on(TransactWriteCommand).rejects(canceled('ValidationError', 'None'));
    await expect(useCase().run(request, principal)).rejects.toBeInstanceOf(TransactionCanceledException);
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });

  it('retries the keys a batch read left unprocessed', async () => {
    dynamo
      .on(BatchGetCommand)
      .resolvesOnce({
        Responses: { jobs: [toJobItem(job, 3)] },
        UnprocessedKeys: { jobs: { Keys: [{ pk: 'JOB#7', sk: 'FILE#70' }] } },
      })
      .resolves({ Responses: { jobs: [toFileItem(7, job.files[0]!)] } });
    dynamo.on(TransactWriteCommand).resolves({});
    await expect(useCase().run(request, principal)).resolves.toMatchObject({ jobs: [{ id: 7 }] });
    expect(dynamo.commandCalls(BatchGetCommand)[1]?.args[0].input.RequestItems?.jobs?.Keys).toEqual([
      { pk: 'JOB#7', sk: 'FILE#70' },
    ]);
  });

  it('reports DynamoDB unavailable when a batch read stays unprocessed', async () => {
    dynamo.on(BatchGetCommand).resolves({ UnprocessedKeys: { jobs: { Keys: [{ pk: 'JOB#7', sk: 'JOB' }] } } });
    await expect(useCase().run(request, principal)).rejects.toBeInstanceOf(DependencyUnavailableError);
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
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
    dynamo.on(BatchGetCommand).resolves({ Responses: { jobs: [toJobItem(job, 3), toFileItem(7, full)] } });
    dynamo.on(TransactWriteCommand).resolves({});
    await expect(useCase().run(request, principal)).resolves.toMatchObject({ files: [{ fileId: 70 }] });
    const items = dynamo.commandCalls(TransactWriteCommand)[0]?.args[0].input.TransactItems ?? [];
    const fileWrite = items.find((item) => item.Update?.Key?.sk === 'FILE#70')?.Update;
    expect(fileWrite?.UpdateExpression).toContain('#previousReviews = :moved');
    expect(fileWrite?.ExpressionAttributeValues?.[':moved']).toEqual([...history.slice(-4), review(0)]);
  });

  it('refuses with file_not_rejectable, writing nothing, a file whose item leaves no room for the review', async () => {
    const crowded = { ...job.files[0]!, remarkToProcessor: 'p'.repeat(395_000) };
    dynamo.on(BatchGetCommand).resolves({ Responses: { jobs: [toJobItem(job, 3), toFileItem(7, crowded)] } });
    const outcome = useCase().run(request, principal);
    await expect(outcome).rejects.toBeInstanceOf(RejectionTooLargeError);
    await expect(outcome).rejects.toMatchObject({ code: 'file_not_rejectable', fileId: 70 });
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('treats a file the index lists but the table no longer holds as not found', async () => {
    dynamo.on(BatchGetCommand).resolves({ Responses: { jobs: [toJobItem(job, 3)] } });
    await expect(useCase().run(request, principal)).rejects.toMatchObject({ code: 'file_not_found', fileId: 70 });
  });
});
