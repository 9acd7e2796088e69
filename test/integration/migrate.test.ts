/**
 * `migrate` on DynamoDB Local: a job written before the padded file keys and the review counts is moved
 * and counted, a write that lands in the middle of the migration is not lost, pages and `GET /jobs/{id}`
 * answer the same before and after, and a second run finds nothing to do and writes nothing.
 */
import { DynamoDBDocumentClient, GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { toFileItems, toJobItem } from '../../functions/jobs/store/items';
import { JobsTable } from '../../functions/jobs/store/jobs-table';
import type { Job } from '../../functions/jobs/model/model';
import { JobReader } from '../../functions/jobs/read/read-jobs';
import { COUNT_ATTRIBUTES } from '../../functions/jobs/model/review';
import { FILE_KEYS, jobKeys } from '../../functions/tables';
import { migrateJobs } from '../../local/operations/migrate';
import { createTestTables, localClient } from '../support/dynamo';
import { makeFile, makeJob } from '../support/jobs';

const documents = DynamoDBDocumentClient.from(localClient(), { marshallOptions: { removeUndefinedValues: true } });
const operator = { role: 'operator' as const, accountId: 0 };

/** The writes the migration sends, by command name; `beforeWrite` runs once before the first transaction. */
const migrationClient = () => {
  const writes: string[] = [];
  const hooks: { beforeWrite?: () => Promise<void> } = {};
  const client = DynamoDBDocumentClient.from(localClient(), { marshallOptions: { removeUndefinedValues: true } });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = context.commandName ?? '';
      if (/Transact|Put|Update|Delete|BatchWrite/.test(name)) {
        writes.push(name);
        const hook = hooks.beforeWrite;
        hooks.beforeWrite = undefined;
        await hook?.();
      }
      return next(args);
    },
    { step: 'initialize', name: 'watchWrites' },
  );
  return { client, writes, hooks };
};

let tableName: string;
beforeEach(async () => {
  tableName = (await createTestTables()).jobsTable;
});

/** Writes a job as earlier versions did: unpadded file keys, no mark and no review counts on the job item. */
const putFormer = async (job: Job, version = 1): Promise<void> => {
  const {
    [FILE_KEYS.attribute]: _mark,
    [COUNT_ATTRIBUTES.pending]: _p,
    [COUNT_ATTRIBUTES.rejected]: _r,
    [COUNT_ATTRIBUTES.accepted]: _a,
    ...jobItem
  } = toJobItem(job, version) as unknown as Record<string, unknown>;
  await documents.send(new PutCommand({ TableName: tableName, Item: jobItem }));
  for (const item of toFileItems(job)) {
    await documents.send(
      new PutCommand({ TableName: tableName, Item: { ...item, sk: jobKeys.legacyFileSk(item.fileId) } }),
    );
  }
};

const partitionKeys = async (jobId: number): Promise<string[]> =>
  (await new JobsTable(documents, tableName).readPartition(jobId, true)).map((item) => String(item.sk)).sort();

const jobItemOf = async (jobId: number) =>
  (await documents.send(new GetCommand({ TableName: tableName, Key: { pk: jobKeys.pk(jobId), sk: jobKeys.jobSk } })))
    .Item!;

/** A job in review: files 9 and 10 pending, 95 rejected, 100 accepted (ids of different lengths). */
const reviewJob = (): Job =>
  makeJob({
    status: 'CJ_REVIEWING',
    deliveredDate: '2026-11-01T09:00:00.000Z',
    files: [
      makeFile({ id: 9 }),
      makeFile({ id: 10 }),
      makeFile({ id: 95, isRejected: true, isReviewed: true, rejectionReason: ' - Cropping' }),
      makeFile({ id: 100, acceptedByUser: true, isReviewed: true }),
    ],
  });

describe('migrate', () => {
  it('moves every file to its padded key and writes the counts, keeping the version, the content and the answers', async () => {
    const job = reviewJob();
    await putFormer(job, 7);
    const reader = new JobReader({ client: documents, tableName });
    const before = {
      job: await reader.job(job.id, operator),
      files: await reader.files(job.id, operator, { review: undefined, limit: 50, afterFileId: undefined }),
    };
    const { client } = migrationClient();

    const result = await migrateJobs({ table: new JobsTable(client, tableName) });

    expect(result).toEqual({ found: 1, migrated: 1, filesMoved: 4, countsWritten: 1, failed: [] });
    expect(await partitionKeys(job.id)).toEqual([
      'FILE#0000000000000009',
      'FILE#0000000000000010',
      'FILE#0000000000000095',
      'FILE#0000000000000100',
      'JOB',
    ]);
    const jobItem = await jobItemOf(job.id);
    expect(jobItem).toMatchObject({
      version: 7,
      fileKeys: 'padded',
      reviewPending: 2,
      reviewRejected: 1,
      reviewAccepted: 1,
    });
    expect(await reader.job(job.id, operator)).toEqual(before.job);
    expect(await reader.files(job.id, operator, { review: undefined, limit: 50, afterFileId: undefined })).toEqual(
      before.files,
    );
  });

  it('loses no write that lands between its read and its write, and counts the job as that write left it', async () => {
    const job = reviewJob();
    await putFormer(job, 3);
    const { client, hooks } = migrationClient();
    // A rejection of file 9 as the API writes it: the file at the key it read, the job's version incremented.
    hooks.beforeWrite = async () => {
      await documents.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: tableName,
                Key: { pk: jobKeys.pk(job.id), sk: jobKeys.legacyFileSk(9) },
                UpdateExpression: 'SET isRejected = :true, isReviewed = :true, reviewKey = :key',
                ConditionExpression: 'attribute_exists(pk)',
                ExpressionAttributeValues: { ':true': true, ':key': `${job.id}#rejected` },
              },
            },
            {
              Update: {
                TableName: tableName,
                Key: { pk: jobKeys.pk(job.id), sk: jobKeys.jobSk },
                UpdateExpression: 'SET version = version + :one, #name = :name',
                ConditionExpression: 'version = :read',
                ExpressionAttributeNames: { '#name': 'name' },
                ExpressionAttributeValues: { ':one': 1, ':read': 3, ':name': 'Renamed meanwhile' },
              },
            },
          ],
        }),
      );
    };

    const result = await migrateJobs({ table: new JobsTable(client, tableName, { sleep: async () => {} }) });

    expect(result).toMatchObject({ migrated: 1, filesMoved: 4, countsWritten: 1, failed: [] });
    expect(await partitionKeys(job.id)).not.toContain('FILE#9');
    const file = await documents.send(
      new GetCommand({ TableName: tableName, Key: { pk: jobKeys.pk(job.id), sk: jobKeys.fileSk(9) } }),
    );
    expect(file.Item).toMatchObject({ isRejected: true, reviewKey: `${job.id}#rejected` });
    expect(await jobItemOf(job.id)).toMatchObject({
      version: 4,
      name: 'Renamed meanwhile',
      fileKeys: 'padded',
      reviewPending: 1,
      reviewRejected: 2,
      reviewAccepted: 1,
    });
  });

  it('finds nothing to do the second time and writes nothing', async () => {
    await putFormer(reviewJob());
    await migrateJobs({ table: new JobsTable(documents, tableName) });
    const { client, writes } = migrationClient();

    const again = await migrateJobs({ table: new JobsTable(client, tableName) });

    expect(again).toEqual({ found: 0, migrated: 0, filesMoved: 0, countsWritten: 0, failed: [] });
    expect(writes).toEqual([]);
  });

  it('leaves a job written now alone, and marks one that has its counts but former keys', async () => {
    const current = reviewJob();
    await new JobsTable(documents, tableName).transactWrite(
      [toJobItem(current, 1), ...toFileItems(current)].map((item) => ({ Put: { TableName: tableName, Item: item } })),
    );
    const counted = reviewJob();
    const { [FILE_KEYS.attribute]: _mark, ...jobItem } = toJobItem(counted, 2) as unknown as Record<string, unknown>;
    await documents.send(new PutCommand({ TableName: tableName, Item: jobItem }));
    for (const item of toFileItems(counted)) {
      await documents.send(
        new PutCommand({ TableName: tableName, Item: { ...item, sk: jobKeys.legacyFileSk(item.fileId) } }),
      );
    }

    const result = await migrateJobs({ table: new JobsTable(documents, tableName) });

    expect(result).toEqual({ found: 1, migrated: 1, filesMoved: 4, countsWritten: 0, failed: [] });
    expect(await jobItemOf(counted.id)).toMatchObject({ version: 2, fileKeys: 'padded', reviewPending: 2 });
  });
});
