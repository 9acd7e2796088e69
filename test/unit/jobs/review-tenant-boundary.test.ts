/**
 * The tenant boundary of the customer's review (`POST /reject`, `POST /accept`) on a mocked DynamoDB: which
 * account a located file's job belongs to is decided from its job item alone, before anything of its files is
 * read or written. For a user, a file id that lies in another account's job reads that job's item and nothing
 * else of it — not its files, not its partition (to finish a committed delivery, or to count a job item
 * written before counts existed) — writes nothing, and costs the same requests whatever the size of the other
 * job; an operator sees every account.
 */
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../../functions/aws/dynamodb';
import { AcceptFiles } from '../../../functions/jobs/review/accept-files';
import { toFileItem, toJobItem } from '../../../functions/jobs/store/items';
import { type Job, unreviewedFile } from '../../../functions/jobs/model/model';
import { RejectFiles } from '../../../functions/jobs/review/reject-files';
import { reviewedJob } from './reject-fixture';

const OWN = 10;
const OTHER = 11;
const user = { role: 'user' as const, accountId: OWN };
const operator = { role: 'operator' as const, accountId: 1 };

const client = createDocumentClient({ region: 'us-east-1', dynamodbEndpoint: undefined, dependencyTimeoutMs: 1_000 });
const dynamo = mockClient(DynamoDBDocumentClient);
const options = { client, tableName: 'jobs', retry: { maxAttempts: 2 }, sleep: async () => {} };

/** The two review actions, each naming file 70. */
const actions = {
  reject: (principal: typeof user | typeof operator) =>
    new RejectFiles(options).run({ files: [{ fileId: 70, customRejection: 'Redo', rejects: [] }] }, principal),
  accept: (principal: typeof user | typeof operator) => new AcceptFiles(options).run({ fileIds: [70] }, principal),
};

/** Another account's job 8 in review, with `fileCount` files (file 70 first). */
const foreignJob = (fileCount: number): Job => ({
  ...reviewedJob,
  id: 8,
  accountId: OTHER,
  deliveredDate: '2024-01-02T00:00:00.000Z',
  files: Array.from({ length: fileCount }, (_, index) => unreviewedFile({ id: 70 + index, fileName: `f${index}.jpg` })),
});

/**
 * The items of a foreign job as the table holds them: its job item with a committed delivery not yet written to
 * its files (which a reader of the job would finish) and no stored counts (which a reader would count from the
 * partition), and its file items.
 */
const foreignItems = (fileCount: number) => {
  const job = foreignJob(fileCount);
  const { reviewPending: _p, reviewRejected: _r, reviewAccepted: _a, ...jobItem } = toJobItem(job, 5);
  const committed = { ...jobItem, deliveryCommitted: 'd-other', deliveryFileIds: job.files.map((file) => file.id) };
  return {
    jobItem: committed,
    files: job.files.map((file) => toFileItem(job.id, file, true)),
  };
};

/** Answers each BatchGetItem with the items of `items` it asks for, as a table that holds them would. */
const holdItems = (items: ReadonlyArray<{ pk: string; sk: string }>) => {
  dynamo
    .on(BatchGetCommand)
    .callsFake((input: { RequestItems: { jobs: { Keys: Array<{ pk: string; sk: string }> } } }) => ({
      Responses: {
        jobs: input.RequestItems.jobs.Keys.flatMap((key) =>
          items.filter((item) => item.pk === key.pk && item.sk === key.sk),
        ),
      },
    }));
};

/** Answers every read with the foreign job's items, as a table that holds them would. */
const holdForeignJob = (fileCount: number) => {
  const { jobItem, files } = foreignItems(fileCount);
  dynamo
    .on(QueryCommand, { IndexName: 'byFileId' })
    .resolves({ Items: [{ pk: 'JOB#8', sk: 'FILE#0000000000000070', fileId: 70 }] });
  holdItems([jobItem, ...files]);
  dynamo.on(QueryCommand, { ExpressionAttributeValues: { ':pk': 'JOB#8' } }).resolves({ Items: [jobItem, ...files] });
  dynamo.on(GetCommand).resolves({ Item: jobItem });
};

const WRITES = [TransactWriteCommand, UpdateCommand, PutCommand, BatchWriteCommand, DeleteCommand] as const;

/** Every request sent, by command and input, in order. */
const requests = () =>
  dynamo.calls().map((call) => ({ command: call.args[0].constructor.name, input: call.args[0].input as unknown }));

beforeEach(() => {
  dynamo.reset();
  for (const write of WRITES) dynamo.on(write as never).resolves({} as never);
});

describe.each(Object.entries(actions))('POST /%s at the tenant boundary', (_name, run) => {
  it('answers a user file_not_found for another account’s file, reading only its job item and writing nothing', async () => {
    holdForeignJob(3);
    await expect(run(user)).rejects.toMatchObject({ code: 'file_not_found', fileId: 70 });
    expect(requests()).toEqual([
      { command: 'QueryCommand', input: expect.objectContaining({ IndexName: 'byFileId' }) },
      {
        command: 'BatchGetCommand',
        input: { RequestItems: { jobs: { Keys: [{ pk: 'JOB#8', sk: 'JOB' }], ConsistentRead: true } } },
      },
    ]);
    for (const write of WRITES) expect(dynamo.commandCalls(write as never)).toHaveLength(0);
    expect(dynamo.commandCalls(ScanCommand)).toHaveLength(0);
  });

  it('costs a user the same requests for another account’s job of 3,000 files as for one of 1', async () => {
    holdForeignJob(1);
    await expect(run(user)).rejects.toMatchObject({ code: 'file_not_found' });
    const small = requests();
    dynamo.reset();
    holdForeignJob(3_000);
    await expect(run(user)).rejects.toMatchObject({ code: 'file_not_found' });
    expect(requests()).toEqual(small);
    expect(small).toHaveLength(2);
  });

  it('costs a user no read of any file for an id no job has', async () => {
    dynamo.on(QueryCommand, { IndexName: 'byFileId' }).resolves({ Items: [] });
    await expect(run(user)).rejects.toMatchObject({ code: 'file_not_found', fileId: 70 });
    expect(requests().map((request) => request.command)).toEqual(['QueryCommand']);
  });

  it('lets an operator see the other account’s job: it finishes the delivery, then reads the file', async () => {
    holdForeignJob(3);
    await run(operator).catch(() => undefined);
    // No read of whose job it is: the first read is of the file with its job.
    expect(dynamo.commandCalls(BatchGetCommand)[0]?.args[0].input.RequestItems?.jobs?.Keys).toEqual([
      { pk: 'JOB#8', sk: 'FILE#0000000000000070' },
      { pk: 'JOB#8', sk: 'JOB' },
    ]);
    expect(dynamo.commandCalls(UpdateCommand)[0]?.args[0].input).toMatchObject({
      UpdateExpression: 'REMOVE #deliveryCommitted, #deliveryFileIds',
      ExpressionAttributeValues: { ':delivery': 'd-other' },
    });
  });

  it('reads, of an id naming files of two accounts, only the file in the user’s own account', async () => {
    const own = { ...reviewedJob, deliveredDate: '2024-01-02T00:00:00.000Z' };
    const { jobItem: foreignJobItem, files } = foreignItems(3);
    dynamo.on(QueryCommand, { IndexName: 'byFileId' }).resolves({
      Items: [
        { pk: 'JOB#7', sk: 'FILE#0000000000000070', fileId: 70 },
        { pk: 'JOB#8', sk: 'FILE#0000000000000070', fileId: 70 },
      ],
    });
    holdItems([toJobItem(own, 3), toFileItem(7, own.files[0]!, true), foreignJobItem, ...files]);
    const answer = await run(user);
    expect(answer.files).toEqual([expect.objectContaining({ fileId: 70, jobId: 7 })]);
    const reads = dynamo.commandCalls(BatchGetCommand).map((call) => call.args[0].input.RequestItems?.jobs?.Keys);
    expect(reads).toEqual([
      [
        { pk: 'JOB#7', sk: 'JOB' },
        { pk: 'JOB#8', sk: 'JOB' },
      ],
      [
        { pk: 'JOB#7', sk: 'FILE#0000000000000070' },
        { pk: 'JOB#7', sk: 'JOB' },
      ],
    ]);
    // The foreign job's delivery is not finished, its partition not read; only the own job is written.
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(0);
    expect(dynamo.commandCalls(QueryCommand)).toHaveLength(1);
    const written = dynamo.commandCalls(TransactWriteCommand)[0]?.args[0].input.TransactItems ?? [];
    expect(written.map((item) => (item.Update ?? item.ConditionCheck)?.Key?.pk)).toEqual(['JOB#7', 'JOB#7']);
  });
});
