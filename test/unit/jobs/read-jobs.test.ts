/**
 * `GET /jobs/{id}` and `GET /jobs/{id}/files` on a mocked DynamoDB: one consistent read of the job item (a
 * job of another account answered exactly like a missing one), the counts of an item that predates them, and
 * a page of files — the `byReview` index asked for at most `limit + 1` ids per state, the page read by key,
 * its cursor, a file the index lists in a state it has left, and a committed delivery not yet written to
 * every file.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Principal } from '../../../functions/auth/principal';
import { ApiError } from '../../../functions/http/errors';
import { filesWithinBudget, PAGE_BYTES_BUDGET, payloadBytesOf } from '../../../functions/jobs/read/files-page-budget';
import {
  FILE_VIEW_ATTRIBUTES,
  type FileItem,
  type JobItem,
  toFileItem,
  toJobItem,
} from '../../../functions/jobs/store/items';
import { jobView } from '../../../functions/jobs/store/job-view';
import type { Job, JobFile, Review } from '../../../functions/jobs/model/model';
import { type FilesQuery, JobNotFoundError, JobReader } from '../../../functions/jobs/read/read-jobs';
import { jobKeys } from '../../../functions/tables';
import { makeFile, makeJob } from '../../support/jobs';
import { readyVariant, TEST_PICTURES, testPictures } from '../../support/pictures';

const documents = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const mock = mockClient(documents);

const reader = new JobReader({ client: documents, tableName: 'jobs', retry: { maxAttempts: 2 } });
const user: Pick<Principal, 'role' | 'accountId'> = { role: 'user', accountId: 1001 };
const operator: Pick<Principal, 'role' | 'accountId'> = { role: 'operator', accountId: 0 };

const JOB_ID = 4343;
/** Files 1–3 pending, 4–5 rejected, 6 accepted, in a job under review. */
const files: JobFile[] = [
  makeFile({ id: 1 }),
  makeFile({ id: 2 }),
  makeFile({ id: 3 }),
  makeFile({ id: 4, isRejected: true, isReviewed: true, rejectionReason: 'Too dark' }),
  makeFile({ id: 5, isRejected: true, isReviewed: true, rejectionReason: 'Too dark' }),
  makeFile({ id: 6, acceptedByUser: true, isReviewed: true }),
];
const job: Job = makeJob({ id: JOB_ID, accountId: 1001, status: 'CJ_REVIEWING', files });

let jobItem: Record<string, unknown> | undefined;
let fileItems: FileItem[];

/** The table holding `jobItem` and `fileItems`, answering the requests the reader sends. */
const serveTable = (): void => {
  mock.on(GetCommand).callsFake(async () => (jobItem === undefined ? {} : { Item: jobItem }));
  mock
    .on(QueryCommand)
    .callsFake(
      async (input: { IndexName?: string; ExpressionAttributeValues: Record<string, unknown>; Limit?: number }) => {
        if (input.IndexName === undefined) {
          const values = input.ExpressionAttributeValues as { ':from'?: string; ':to'?: string };
          if (values[':from'] === undefined)
            return { Items: [...(jobItem === undefined ? [] : [jobItem]), ...fileItems] };
          const inRange = fileItems
            .filter((item) => item.sk >= values[':from']! && item.sk <= values[':to']!)
            .sort((a, b) => (a.sk < b.sk ? -1 : 1));
          // DynamoDB reads `Limit` items, then answers those its filter keeps.
          const taken = inRange.slice(0, input.Limit);
          const state = input.ExpressionAttributeValues[':state'];
          return {
            Items: state === undefined ? taken : taken.filter((item) => item.reviewKey === state),
            ...(taken.length < inRange.length || taken.length === input.Limit
              ? { LastEvaluatedKey: { pk: taken.at(-1)?.pk, sk: taken.at(-1)?.sk } }
              : {}),
          };
        }
        const after = (input.ExpressionAttributeValues[':after'] as number | undefined) ?? -1;
        const listed = fileItems
          .filter((item) => item.reviewKey === input.ExpressionAttributeValues[':key'] && item.fileId > after)
          .sort((a, b) => a.fileId - b.fileId)
          .slice(0, input.Limit)
          .map(({ pk, sk, fileId, reviewKey }) => ({ pk, sk, fileId, reviewKey }));
        return { Items: listed };
      },
    );
  mock.on(BatchGetCommand).callsFake(async (input: { RequestItems: { jobs: { Keys: Array<{ sk: string }> } } }) => ({
    Responses: {
      jobs: input.RequestItems.jobs.Keys.flatMap(({ sk }) => fileItems.filter((item) => item.sk === sk)),
    },
  }));
};
const reviewQueries = () =>
  mock
    .commandCalls(QueryCommand)
    .map((call) => call.args[0].input)
    .filter((input) => input.IndexName === 'byReview');
const batchKeys = () =>
  mock.commandCalls(BatchGetCommand).flatMap((call) => call.args[0].input.RequestItems?.jobs?.Keys ?? []);
const page = (query: Partial<FilesQuery>, principal = user) =>
  reader.files(JOB_ID, principal, { review: undefined, limit: 10, afterFileId: undefined, ...query });
const ids = (answer: { files: JobFile[] }): number[] => answer.files.map((file) => file.id);
/** The projection of the attributes a page reads of each file item, as every read of the page's files sends it. */
const viewedProjection = FILE_VIEW_ATTRIBUTES.map((_, position) => `#a${position}`).join(', ');
const viewedNames = Object.fromEntries(FILE_VIEW_ATTRIBUTES.map((name, position) => [`#a${position}`, name]));

beforeEach(() => {
  mock.reset();
  jobItem = toJobItem(job, 8) as unknown as Record<string, unknown>;
  fileItems = job.files.map((file) => toFileItem(JOB_ID, file, true));
  serveTable();
});

describe('a job', () => {
  it('is its job item as the API shows it, from one strongly consistent GetItem', async () => {
    await expect(reader.job(JOB_ID, user)).resolves.toEqual(jobView(jobItem as unknown as JobItem));
    expect(mock.commandCalls(GetCommand).map((call) => call.args[0].input)).toEqual([
      { TableName: 'jobs', Key: { pk: `JOB#${JOB_ID}`, sk: 'JOB' }, ConsistentRead: true },
    ]);
    expect(mock.commandCalls(QueryCommand)).toHaveLength(0);
    expect((await reader.job(JOB_ID, user)).review).toEqual({ pending: 3, rejected: 2, accepted: 1 });
  });

  it("answers another account's job exactly like a missing one (404 job_not_found)", async () => {
    jobItem = { ...jobItem, accountId: 2002 };
    const other = await reader.job(JOB_ID, user).catch((error: unknown) => error);
    jobItem = undefined;
    const missing = await reader.job(JOB_ID, user).catch((error: unknown) => error);

    expect(other).toBeInstanceOf(JobNotFoundError);
    expect(other).toBeInstanceOf(ApiError);
    expect(other).toEqual(missing);
    expect(other).toMatchObject({ name: 'JobNotFoundError', code: 'job_not_found', jobId: JOB_ID });
  });

  it('answers job_not_found for an item that is no job', async () => {
    jobItem = { ...jobItem, entity: 'file' };
    await expect(reader.job(JOB_ID, operator)).rejects.toBeInstanceOf(JobNotFoundError);
  });

  it('is shown to an operator whatever its account, and to a user of account 0 when it is theirs', async () => {
    jobItem = { ...jobItem, accountId: 0 };
    await expect(reader.job(JOB_ID, operator)).resolves.toMatchObject({ id: JOB_ID, accountId: 0 });
    await expect(reader.job(JOB_ID, { role: 'user', accountId: 0 })).resolves.toMatchObject({ id: JOB_ID });
    await expect(reader.job(JOB_ID, user)).rejects.toBeInstanceOf(JobNotFoundError);
  });

  it('counts the files of a job item written before the counts, from one consistent read of its partition', async () => {
    const { reviewPending: _pending, ...older } = jobItem as Record<string, unknown>;
    jobItem = older;

    await expect(reader.job(JOB_ID, user)).resolves.toMatchObject({ review: { pending: 3, rejected: 2, accepted: 1 } });
    expect(mock.commandCalls(QueryCommand)[0]?.args[0].input).toMatchObject({
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `JOB#${JOB_ID}` },
      ConsistentRead: true,
    });
  });

  it('counts the unreviewed files of such an item as pending only once the job is delivered', async () => {
    const counted = async (fields: Record<string, unknown>) => {
      const { reviewPending: _pending, ...older } = { ...(jobItem as Record<string, unknown>), ...fields };
      jobItem = older;
      return (await reader.job(JOB_ID, user)).review;
    };
    expect(await counted({ status: 'CJ_WORK_PROGRESS', deliveredDate: null })).toEqual({
      pending: 0,
      rejected: 2,
      accepted: 1,
    });
    expect(await counted({ status: 'CJ_WORK_PROGRESS', deliveredDate: '2026-11-01T00:00:00.000Z' })).toEqual({
      pending: 3,
      rejected: 2,
      accepted: 1,
    });
    expect(await counted({ status: 'CJ_REVIEWING', deliveredDate: undefined })).toEqual({
      pending: 3,
      rejected: 2,
      accepted: 1,
    });
  });
});

describe('a page of files', () => {
  it('reads a page of every file with one strongly consistent Query of the file keys, beside the job item', async () => {
    const answer = await page({ limit: 4 });

    expect(ids(answer)).toEqual([1, 2, 3, 4]);
    expect(answer.continueAfter).toBe(4);
    expect(mock.commandCalls(QueryCommand).map((call) => call.args[0].input)).toEqual([
      {
        TableName: 'jobs',
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
        ProjectionExpression: viewedProjection,
        ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk', ...viewedNames },
        ExpressionAttributeValues: {
          ':pk': `JOB#${JOB_ID}`,
          ':from': 'FILE#0000000000000001',
          ':to': 'FILE#9007199254740991',
        },
        ConsistentRead: true,
        Limit: 5,
      },
    ]);
    expect(mock.commandCalls(GetCommand)).toHaveLength(1);
    expect(mock.commandCalls(BatchGetCommand)).toHaveLength(0);
    expect(answer.files[0]).toEqual({ ...files[0], original: null, edited: null });
  });

  it('continues after the cursor, and ends with no cursor when nothing follows', async () => {
    const answer = await page({ limit: 2, afterFileId: 4 });

    expect(ids(answer)).toEqual([5, 6]);
    expect(answer.continueAfter).toBeUndefined();
    expect(mock.commandCalls(QueryCommand)[0]?.args[0].input.ExpressionAttributeValues).toMatchObject({
      ':from': 'FILE#0000000000000005',
    });
  });

  it('asks for nothing after the largest id', async () => {
    const answer = await page({ afterFileId: Number.MAX_SAFE_INTEGER });

    expect(answer).toEqual({ files: [], continueAfter: undefined });
    expect(mock.commandCalls(QueryCommand)).toHaveLength(0);
  });

  it('continues after the last file read when DynamoDB ended the Query at 1 MB before limit items', async () => {
    mock.on(QueryCommand).resolves({ Items: fileItems.slice(0, 2), LastEvaluatedKey: { pk: 'x', sk: 'y' } });

    const answer = await page({ limit: 10 });
    expect(ids(answer)).toEqual([1, 2]);
    expect(answer.continueAfter).toBe(2);
  });

  it('lists every state from the byReview index for a job item not marked as moved, reading both keys of each file', async () => {
    const { fileKeys: _marker, ...unmoved } = jobItem as Record<string, unknown>;
    jobItem = unmoved;
    fileItems = fileItems.map((item) => (item.fileId === 2 ? { ...item, sk: 'FILE#2' } : item));

    const answer = await page({ limit: 4 });

    expect(ids(answer)).toEqual([1, 2, 3, 4]);
    expect(answer.continueAfter).toBe(4);
    expect(reviewQueries()).toEqual(
      ['none', 'pending', 'rejected', 'accepted'].map((state) => ({
        TableName: 'jobs',
        IndexName: 'byReview',
        KeyConditionExpression: '#reviewKey = :key',
        ExpressionAttributeNames: { '#reviewKey': 'reviewKey' },
        ExpressionAttributeValues: { ':key': `${JOB_ID}#${state}` },
        Limit: 5,
      })),
    );
    expect(batchKeys()).toEqual(
      [1, 2, 3, 4].flatMap((id) => [
        { pk: `JOB#${JOB_ID}`, sk: `FILE#${String(id).padStart(16, '0')}` },
        { pk: `JOB#${JOB_ID}`, sk: `FILE#${id}` },
      ]),
    );
    expect(mock.commandCalls(BatchGetCommand)[0]?.args[0].input.RequestItems?.jobs?.ConsistentRead).toBe(true);
  });

  it('gives a cursor when exactly one more file follows, and none for a page that ends the listing', async () => {
    expect((await page({ limit: 5 })).continueAfter).toBe(5);
    expect((await page({ limit: 6 })).continueAfter).toBeUndefined();
  });

  it('shows a file the lagging index lists in two states once, and the page in id order whatever order reads answer in', async () => {
    const { fileKeys: _marker, ...unmoved } = jobItem as Record<string, unknown>;
    jobItem = unmoved;
    // File 2 was just rejected: the index still lists it as pending too.
    fileItems = fileItems.map((item) =>
      item.fileId === 2 ? { ...item, isRejected: true, isReviewed: true, reviewKey: `${JOB_ID}#rejected` } : item,
    );
    const stale = { pk: `JOB#${JOB_ID}`, sk: 'FILE#2', fileId: 2, reviewKey: `${JOB_ID}#pending` };
    mock.on(QueryCommand, { ExpressionAttributeValues: { ':key': `${JOB_ID}#pending` } }).resolves({
      Items: [stale, ...fileItems.filter((item) => item.reviewKey === `${JOB_ID}#pending`)].reverse(),
    });
    mock.on(BatchGetCommand).callsFake(async (input: { RequestItems: { jobs: { Keys: Array<{ sk: string }> } } }) => ({
      Responses: {
        jobs: input.RequestItems.jobs.Keys.flatMap(({ sk }) => fileItems.filter((item) => item.sk === sk)).reverse(),
      },
    }));

    const answer = await page({ limit: 4 });
    expect(ids(answer)).toEqual([1, 2, 3, 4]);
    expect(batchKeys().map((key) => key.sk)).toEqual([1, 2, 3, 4].flatMap((id) => jobKeys.fileSks(id)));
  });

  it('reads a page of one state with one strongly consistent Query of the file keys, filtered to it, beside the job item', async () => {
    const answer = await page({ review: 'rejected' });

    expect(ids(answer)).toEqual([4, 5]);
    expect(answer.continueAfter).toBeUndefined();
    expect(mock.commandCalls(QueryCommand).map((call) => call.args[0].input)).toEqual([
      {
        TableName: 'jobs',
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
        ProjectionExpression: viewedProjection,
        ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk', '#state': 'reviewKey', ...viewedNames },
        ExpressionAttributeValues: {
          ':pk': `JOB#${JOB_ID}`,
          ':from': 'FILE#0000000000000001',
          ':to': 'FILE#9007199254740991',
          ':state': `${JOB_ID}#rejected`,
        },
        FilterExpression: '#state = :state',
        ConsistentRead: true,
        Limit: 11,
      },
    ]);
    expect(mock.commandCalls(GetCommand)).toHaveLength(1);
    expect(mock.commandCalls(BatchGetCommand)).toHaveLength(0);
  });

  it('gives a cursor after the last file of a page of one state when the Query found more than the page', async () => {
    const answer = await page({ review: 'pending', limit: 2 });

    expect(ids(answer)).toEqual([1, 2]);
    expect(answer.continueAfter).toBe(2);
    expect(reviewQueries()).toHaveLength(0);
  });

  it("lists the rest of a sparse state's page from the byReview index after the last file the Query read, and reads it by key", async () => {
    // Limit 2: the Query reads files 1 and 2, neither rejected, and stops with more to read.
    const answer = await page({ review: 'rejected', limit: 1 });

    expect(ids(answer)).toEqual([4]);
    expect(answer.continueAfter).toBe(4);
    expect(reviewQueries()).toEqual([
      {
        TableName: 'jobs',
        IndexName: 'byReview',
        KeyConditionExpression: '#reviewKey = :key AND #fileId > :after',
        ExpressionAttributeNames: { '#reviewKey': 'reviewKey', '#fileId': 'fileId' },
        ExpressionAttributeValues: { ':key': `${JOB_ID}#rejected`, ':after': 2 },
        Limit: 2,
      },
    ]);
    expect(batchKeys()).toEqual([{ pk: `JOB#${JOB_ID}`, sk: jobKeys.fileSk(4) }]);
    expect(mock.commandCalls(BatchGetCommand)[0]?.args[0].input.RequestItems?.jobs).toMatchObject({
      ConsistentRead: true,
      ProjectionExpression: viewedProjection,
      ExpressionAttributeNames: viewedNames,
    });
  });

  it('ends a whole page of one state with a cursor, asking the index nothing, when the Query stopped with more to read', async () => {
    // Limit 4: the Query finds files 1–3 pending and stops at file 4, which is not.
    const answer = await page({ review: 'pending', limit: 3 });

    expect(ids(answer)).toEqual([1, 2, 3]);
    expect(answer.continueAfter).toBe(3);
    expect(reviewQueries()).toHaveLength(0);
    expect(mock.commandCalls(BatchGetCommand)).toHaveLength(0);
  });

  it('ends a page of one state with no cursor when the index lists none of it after what the Query read', async () => {
    // Limit 5: the Query finds files 1–3 pending and stops at file 5; the index lists no pending file after it.
    const answer = await page({ review: 'pending', limit: 4 });

    expect(ids(answer)).toEqual([1, 2, 3]);
    expect(answer.continueAfter).toBeUndefined();
    expect(reviewQueries().map((input) => input.ExpressionAttributeValues)).toEqual([
      { ':key': `${JOB_ID}#pending`, ':after': 5 },
    ]);
    expect(mock.commandCalls(BatchGetCommand)).toHaveLength(0);
  });

  it('leaves out a file the index still lists in a state it has left', async () => {
    // File 5 was accepted a moment ago; the lagging index still lists it as rejected.
    fileItems = fileItems.map((item) =>
      item.fileId === 5 ? { ...item, isRejected: false, acceptedByUser: true, reviewKey: `${JOB_ID}#accepted` } : item,
    );
    mock.on(QueryCommand, { IndexName: 'byReview' }).resolves({
      Items: [4, 5].map((fileId) => ({ pk: `JOB#${JOB_ID}`, sk: jobKeys.fileSk(fileId), fileId })),
    });

    const answer = await page({ review: 'rejected', limit: 2 });
    expect(ids(answer)).toEqual([4]);
    expect(batchKeys().map((key) => key.sk)).toEqual([jobKeys.fileSk(4), jobKeys.fileSk(5)]);
  });

  it('reads the state of a file item without reviewKey from its flags', async () => {
    const { fileKeys: _marker, ...unmoved } = jobItem as Record<string, unknown>;
    jobItem = unmoved;
    const { reviewKey: _key, ...older } = fileItems[3] as FileItem;
    mock.on(BatchGetCommand).resolves({ Responses: { jobs: [older, fileItems[0] as FileItem] } });

    expect(ids(await page({ review: 'rejected' }))).toEqual([4]);
  });

  it('reads a file item without reviewKey, unreviewed, as pending (the files page reads a delivered job)', async () => {
    const { fileKeys: _marker, ...unmoved } = jobItem as Record<string, unknown>;
    jobItem = unmoved;
    const { reviewKey: _key, ...older } = fileItems[0] as FileItem;
    mock.on(BatchGetCommand).resolves({ Responses: { jobs: [older, fileItems[1] as FileItem] } });

    expect(ids(await page({ review: 'pending' }))).toEqual([1, 2]);
  });

  it('leaves out items that are no files', async () => {
    mock.on(QueryCommand).resolves({ Items: [jobItem as Record<string, unknown>, fileItems[0]!] });
    expect(ids(await page({ review: 'pending' }))).toEqual([1]);
    expect(ids(await page({}))).toEqual([1]);

    const { fileKeys: _marker, ...unmoved } = jobItem as Record<string, unknown>;
    jobItem = unmoved;
    serveTable();
    mock.on(BatchGetCommand).resolves({ Responses: { jobs: [jobItem, fileItems[0]!] } });
    expect(ids(await page({ review: 'pending' }))).toEqual([1]);
  });

  it("answers another account's job like a missing one, reading no file", async () => {
    jobItem = { ...jobItem, accountId: 2002 };
    await expect(page({})).rejects.toBeInstanceOf(JobNotFoundError);
    jobItem = undefined;
    await expect(page({})).rejects.toMatchObject({ code: 'job_not_found', jobId: JOB_ID });
    await expect(page({}, operator)).rejects.toBeInstanceOf(JobNotFoundError);
    expect(mock.commandCalls(BatchGetCommand)).toHaveLength(0);
  });
});

describe('a page of files under a committed delivery not yet written to every file', () => {
  /** Files 4 and 6 (rejected and accepted on their items) were delivered again, with files 1 and 2 (pending). */
  beforeEach(() => {
    jobItem = { ...jobItem, deliveryCommitted: 'delivery-1', deliveryFileIds: [6, 4, 2, 1] };
  });

  it('lists the delivered files as pending, after the cursor, and reads them as delivered', async () => {
    const answer = await page({ review: 'pending', limit: 3, afterFileId: 2 });

    expect(ids(answer)).toEqual([3, 4, 6]);
    expect(answer.continueAfter).toBeUndefined();
    expect(answer.files.map((file) => [file.isRejected, file.acceptedByUser, file.isReviewed])).toEqual([
      [false, false, false],
      [false, false, false],
      [false, true, false],
    ]);
  });

  it('takes at most limit + 1 of the delivered ids', async () => {
    fileItems = fileItems.map((item) => ({ ...item, reviewKey: `${JOB_ID}#accepted` }));
    jobItem = { ...jobItem, deliveryFileIds: [1, 2, 3, 4, 5, 6] };

    const answer = await page({ review: 'pending', limit: 2 });

    expect(ids(answer)).toEqual([1, 2]);
    expect(answer.continueAfter).toBe(2);
    expect(batchKeys().map((key) => key.sk)).toEqual([1, 2].map((id) => jobKeys.fileSk(id)));
  });

  it('leaves the delivered files out of the other states', async () => {
    expect(ids(await page({ review: 'rejected' }))).toEqual([5]);
    expect(batchKeys().map((key) => key.sk)).toEqual([jobKeys.fileSk(5)]);
  });

  it('pages the other states by the ids their index lists, not by the delivered ids', async () => {
    const answer = await page({ review: 'rejected', limit: 2 });

    expect(ids(answer)).toEqual([5]);
    expect(answer.continueAfter).toBeUndefined();
  });

  it('shows every file, the delivered ones as delivered, when no state is asked for', async () => {
    const answer = await page({});

    expect(ids(answer)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(answer.files.find((file) => file.id === 4)?.isRejected).toBe(false);
    expect(answer.files.find((file) => file.id === 5)?.isRejected).toBe(true);
  });
});

describe('a page of heavily reviewed files', () => {
  /** A review as large as a file item holds: its text alone about 60 KB. */
  const largeReview = (fileId: number): Review => ({
    reviewDate: '2026-11-01T10:00:00.000Z',
    customRejection: `${fileId} `.padEnd(60_000, 'x'),
    rejects: [{ reason: 'Cropping', positions: [{ xPercent: 0.5, yPercent: 0.5 }] }],
  });
  const heavyFiles = Array.from({ length: 16 }, (_, index) =>
    makeFile({
      id: index + 1,
      isRejected: true,
      isReviewed: true,
      rejectionReason: 'Cropping',
      reviews: largeReview(index + 1),
      previousReviews: Array.from({ length: 5 }, () => largeReview(index + 1)),
    }),
  );

  beforeEach(() => {
    const heavy = makeJob({ id: JOB_ID, accountId: 1001, status: 'CJ_REJECT_READY', files: heavyFiles });
    jobItem = toJobItem(heavy, 3) as unknown as Record<string, unknown>;
    fileItems = heavy.files.map((file) => toFileItem(JOB_ID, file, true));
  });

  it('ends early with a cursor before the files pass the response budget, and the cursor goes on with no file lost or repeated', async () => {
    const seen: number[] = [];
    let afterFileId: number | undefined;
    let pages = 0;
    do {
      const answer = await page({ limit: 100, afterFileId });
      const bytes = answer.files.reduce((sum, file) => sum + payloadBytesOf(file), 0);
      expect(bytes).toBeLessThanOrEqual(PAGE_BYTES_BUDGET);
      expect(answer.files.length).toBeGreaterThan(0);
      seen.push(...ids(answer));
      afterFileId = answer.continueAfter;
      if (afterFileId !== undefined) expect(afterFileId).toBe(seen.at(-1));
      pages += 1;
    } while (afterFileId !== undefined);

    expect(pages).toBeGreaterThan(1);
    expect(seen).toEqual(heavyFiles.map((file) => file.id));
  });

  it('holds at least one file, however large', () => {
    expect(filesWithinBudget(heavyFiles, 1)).toBe(1);
    expect(filesWithinBudget([], 1)).toBe(0);
  });

  it('counts a file as the response payload carries it: its JSON escaped once more inside the body', () => {
    const quoted = makeFile({ id: 1, fileName: '"'.repeat(1_000) });
    const plain = makeFile({ id: 1, fileName: 'a'.repeat(1_000) });
    expect(payloadBytesOf(quoted) - payloadBytesOf(plain)).toBe(3_000);
    expect(payloadBytesOf(plain)).toBe(JSON.stringify(JSON.stringify(plain)).length - 1);
  });
});

describe('the pictures of a page of files', () => {
  const signer = testPictures();
  let signers = 0;
  const picturing = new JobReader({
    client: documents,
    tableName: 'jobs',
    pictures: () => {
      signers += 1;
      return signer();
    },
  });
  const ready = readyVariant({
    uploadId: 'mi3k2j1h0a1b2c3d4e5f60718',
    contentType: 'image/png',
    width: 800,
    height: 600,
  });
  const invalid = {
    status: 'invalid' as const,
    uploadId: 'mi3k2j1h0ffffffffffffffff',
    reason: 'The file is not a picture of a type the service takes (JPEG, PNG, TIFF, WebP or AVIF).',
    uploadedDate: '2026-11-28T10:00:00.000Z',
  };

  beforeEach(() => {
    signers = 0;
    fileItems = fileItems.map((item) =>
      item.id === 1
        ? { ...item, original: ready, edited: invalid }
        : item.id === 2
          ? { ...item, original: invalid }
          : item,
    );
  });

  it('answers each picture: null before an upload, an invalid one with its reason, a ready one with its URLs', async () => {
    const answer = await picturing.files(JOB_ID, user, { review: undefined, limit: 3, afterFileId: undefined });
    const [first, second, third] = answer.files;

    const base = `${TEST_PICTURES.endpoint}/${TEST_PICTURES.bucket}`;
    const at = `1001/${JOB_ID}/1/original/${ready.uploadId}`;
    expect(first?.original).toEqual({
      status: 'ready',
      contentType: 'image/png',
      size: ready.size,
      width: 800,
      height: 600,
      sha256: ready.sha256,
      uploadedDate: ready.uploadedDate,
      thumbnailUrl: expect.stringMatching(`^${base}/renditions/${at}/thumbnail\\.webp\\?.*X-Amz-Expires=900`),
      previewUrl: expect.stringMatching(`^${base}/renditions/${at}/preview\\.webp\\?.*X-Amz-Signature=`),
      downloadUrl: expect.stringMatching(`^${base}/uploads/${at}\\?.*response-content-disposition=attachment`),
    });
    expect(first?.original?.status === 'ready' && first.original.downloadUrl).toContain(
      encodeURIComponent(`filename="${first?.fileName}"`),
    );
    expect(first?.edited).toEqual({ status: 'invalid', reason: invalid.reason, uploadedDate: invalid.uploadedDate });
    expect(second).toMatchObject({ original: { status: 'invalid' }, edited: null });
    expect(third).toMatchObject({ original: null, edited: null });
    expect(JSON.stringify(answer)).not.toContain('uploadId');
    expect(JSON.stringify(answer)).not.toContain(invalid.uploadId);
    expect(signers).toBe(1);
    // Still the one Query beside the job item: the pictures are attributes of the file items read.
    expect(mock.commandCalls(QueryCommand)).toHaveLength(1);
  });

  it('signs nothing, and needs no bucket, for a page without a ready picture', async () => {
    const answer = await picturing.files(JOB_ID, user, { review: undefined, limit: 10, afterFileId: 1 });

    expect(answer.files.map((file) => file.original?.status ?? null)).toEqual(['invalid', null, null, null, null]);
    expect(signers).toBe(0);
  });

  it('gives the files of one review state their pictures too', async () => {
    const answer = await picturing.files(JOB_ID, user, { review: 'pending', limit: 10, afterFileId: undefined });

    expect(answer.files[0]?.original?.status).toBe('ready');
  });

  it('counts the URLs in the page budget: a page of pictured files ends sooner', async () => {
    const plain = await picturing.files(JOB_ID, user, { review: undefined, limit: 1, afterFileId: undefined });
    const pictured = plain.files[0]!;
    const bare = { ...pictured, original: null, edited: null };

    expect(payloadBytesOf(pictured) - payloadBytesOf(bare)).toBeGreaterThan(3 * 300);
    const budget = payloadBytesOf(bare) * 3;
    expect(filesWithinBudget([bare, bare, bare], budget)).toBe(3);
    expect(filesWithinBudget([pictured, pictured, pictured], budget)).toBeLessThan(3);
  });
});
