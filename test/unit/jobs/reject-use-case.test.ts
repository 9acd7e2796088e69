import { BatchGetCommand, DynamoDBDocumentClient, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../../functions/aws/dynamodb';
import { toFileItem, toJobItem } from '../../../functions/jobs/items';
import type { Review } from '../../../functions/jobs/model';
import { RejectionTooLargeError } from '../../../functions/jobs/reject';
import { RejectFiles } from '../../../functions/jobs/reject-files';
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
