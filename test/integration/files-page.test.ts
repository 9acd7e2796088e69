/**
 * A page of a job's files on DynamoDB Local: one Query of the partition's padded file keys beside the
 * job item's GetItem (requests counted on the wire), filtered to one review state when one is asked for and
 * going on from the `byReview` index when that state is sparse, every file once across pages, a page of heavily
 * reviewed files ended early with a cursor and continued with no file lost or repeated, and a job whose
 * files are still at their former keys listed correctly until the migration moves them.
 */
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PAGE_BYTES_BUDGET, payloadBytesOf } from '../../functions/jobs/read/files-page-budget';
import { FILE_VIEW_ATTRIBUTES, toFileItems, toJobItem } from '../../functions/jobs/store/items';
import type { Job, Review } from '../../functions/jobs/model/model';
import { type FilesQuery, JobReader } from '../../functions/jobs/read/read-jobs';
import { JobRepository } from '../../functions/jobs/store/repository';
import type { ReviewFilter } from '../../functions/jobs/model/review';
import { FILE_KEYS, jobKeys } from '../../functions/tables';
import { createTestTables, localClient } from '../support/dynamo';
import { makeFile, makeJob } from '../support/jobs';

const documents = DynamoDBDocumentClient.from(localClient(), { marshallOptions: { removeUndefinedValues: true } });
const operator = { role: 'operator' as const, accountId: 0 };
/** The commands sent to DynamoDB Local, by name, since the last reset. */
const sent: string[] = [];
/** The attribute names of the file items the reads answered, since the last reset. */
const fileAttributes = new Set<string>();
documents.middlewareStack.add(
  (next, context) => async (args) => {
    sent.push(context.commandName ?? 'unknown');
    const result = await next(args);
    const output = result.output as { Items?: object[]; Responses?: Record<string, object[]> };
    for (const item of [...(output.Items ?? []), ...Object.values(output.Responses ?? {}).flat()])
      if ((item as { entity?: unknown }).entity === 'file')
        for (const name of Object.keys(item)) fileAttributes.add(name);
    return result;
  },
  { step: 'initialize', name: 'countCommands' },
);

let tableName: string;
let reader: JobReader;
let repository: JobRepository;

beforeAll(async () => {
  tableName = (await createTestTables()).jobsTable;
  reader = new JobReader({ client: documents, tableName });
  repository = new JobRepository(documents, tableName);
});
beforeEach(() => {
  sent.length = 0;
  fileAttributes.clear();
});

/** Every file id of a listing, page by page, and the commands each page sent. */
const listAll = async (jobId: number, query: Partial<FilesQuery> = {}) => {
  const ids: number[] = [];
  const pages: Array<{ count: number; bytes: number; commands: string[] }> = [];
  let afterFileId: number | undefined;
  do {
    sent.length = 0;
    const page = await reader.files(jobId, operator, { review: undefined, limit: 50, ...query, afterFileId });
    pages.push({
      count: page.files.length,
      bytes: page.files.reduce((sum, file) => sum + payloadBytesOf(file), 0),
      commands: [...sent].sort(),
    });
    ids.push(...page.files.map((file) => file.id));
    afterFileId = page.continueAfter;
  } while (afterFileId !== undefined && pages.length < 100);
  return { ids, pages };
};

describe('a page of every file', () => {
  it('is one Query of the file keys beside one GetItem of the job item, in id order across ids of any length', async () => {
    const fileIds = [9, 10, 11, 99, 100, 1_000, 12_345, 5_000_000_001, 1_234_567_890_123_456];
    const job = makeJob({ files: fileIds.map((id) => makeFile({ id })).reverse() });
    await repository.putJob(job);

    const { ids, pages } = await listAll(job.id, { limit: 4 });

    expect(ids).toEqual(fileIds);
    expect(pages.map((page) => page.count)).toEqual([4, 4, 1]);
    for (const page of pages) expect(page.commands).toEqual(['GetItemCommand', 'QueryCommand']);
  });
});

describe('what a page reads of each file', () => {
  it('is what it answers and judges the file by, not its keys nor its earlier edited versions', async () => {
    const job = makeJob({ status: 'CJ_REVIEWING', deliveredDate: '2026-11-01T09:00:00.000Z' });
    await repository.putJob(job);
    const [file] = toFileItems(job);
    const edit = {
      status: 'ready',
      uploadId: 'u1',
      contentType: 'image/jpeg',
      size: 1,
      width: 1,
      height: 1,
      sha256: 'x',
      uploadedDate: '2026-11-01T09:00:00.000Z',
    };
    await documents.send(new PutCommand({ TableName: tableName, Item: { ...file, previousEdits: [edit, edit] } }));

    for (const review of [undefined, 'pending', 'rejected'] as const) {
      const page = await reader.files(job.id, operator, { review, limit: 1, afterFileId: undefined });
      if (review !== 'rejected') expect(page.files.map((shown) => shown.id)).toEqual([file!.id]);
    }
    // The rejected page shows nothing: the Query read the job's one file, of another state.
    expect([...fileAttributes].sort()).toEqual([...FILE_VIEW_ATTRIBUTES].filter((name) => name in file!).sort());
    expect(fileAttributes).not.toContain('previousEdits');
    expect(fileAttributes).not.toContain('pk');
  });
});

describe('a page of one review state', () => {
  /** A job in review whose files are pending, but those at `rejected` (indexes into its files). */
  const reviewJob = (count: number, rejected: number[]): Job => {
    const base = makeJob({ status: 'CJ_REVIEWING', deliveredDate: '2026-11-01T09:00:00.000Z' });
    return {
      ...base,
      files: Array.from({ length: count }, (_, index) =>
        makeFile({
          id: base.id * 100 + index + 1,
          ...(rejected.includes(index) ? { isRejected: true, isReviewed: true, rejectionReason: 'Cropping' } : {}),
        }),
      ),
    };
  };

  it('is one Query of the file keys, filtered to the state, beside one GetItem when the files read fill the page', async () => {
    const job = reviewJob(7, [2]);
    await repository.putJob(job);

    const { ids, pages } = await listAll(job.id, { review: 'pending', limit: 3 });

    expect(ids).toEqual(job.files.filter((file) => !file.isRejected).map((file) => file.id));
    expect(pages.map((page) => page.count)).toEqual([3, 3]);
    for (const page of pages) expect(page.commands).toEqual(['GetItemCommand', 'QueryCommand']);
  });

  it('goes on from the byReview index after the files the Query read when the state is sparse, every file once', async () => {
    const job = reviewJob(12, [2, 9, 10]);
    await repository.putJob(job);

    const { ids, pages } = await listAll(job.id, { review: 'rejected', limit: 2 });

    expect(ids).toEqual([2, 9, 10].map((index) => job.files[index]!.id));
    expect(pages.map((page) => page.count)).toEqual([2, 1]);
    // Files 1–3 read, file 3 found; the index lists the next rejected ids, file 10 read by key.
    expect(pages[0]!.commands).toEqual(['BatchGetItemCommand', 'GetItemCommand', 'QueryCommand', 'QueryCommand']);
    expect(pages[1]!.commands).toEqual(['GetItemCommand', 'QueryCommand']);
  });
});

describe('a page of heavily reviewed files', () => {
  /** A review of about 55 KB: a file with it and five earlier ones is an item of about 330 KB. */
  const largeReview = (fileId: number, index: number): Review => ({
    reviewDate: '2026-11-01T10:00:00.000Z',
    customRejection: `${fileId}-${index} `.padEnd(55_000, 'x'),
    rejects: [{ reason: 'Cropping', positions: [{ xPercent: 0.5, yPercent: 0.5 }] }],
  });
  const heavyJob = (): Job => {
    const base = makeJob({ status: 'CJ_REJECT_READY', deliveredDate: '2026-11-01T09:00:00.000Z' });
    return {
      ...base,
      files: Array.from({ length: 16 }, (_, index) => {
        const id = base.id * 100 + index + 1;
        return makeFile({
          id,
          isRejected: true,
          isReviewed: true,
          rejectionReason: 'Cropping',
          reviews: largeReview(id, 0),
          previousReviews: [1, 2, 3, 4, 5].map((previous) => largeReview(id, previous)),
        });
      }),
    };
  };

  it.each([undefined, 'rejected'] as const)(
    'ends a page early with a cursor, and the cursor goes on with no file lost or repeated (review %s)',
    async (review: ReviewFilter | undefined) => {
      const job = heavyJob();
      // Item by item: the whole job passes one transaction's 4 MB.
      for (const item of [toJobItem(job, 1), ...toFileItems(job)]) {
        await documents.send(new PutCommand({ TableName: tableName, Item: item }));
      }

      const { ids, pages } = await listAll(job.id, { review, limit: 100 });

      expect(ids).toEqual(job.files.map((file) => file.id));
      expect(pages.length).toBeGreaterThan(1);
      for (const page of pages) {
        expect(page.count).toBeGreaterThan(0);
        expect(page.bytes).toBeLessThanOrEqual(PAGE_BYTES_BUDGET);
      }
    },
  );
});

describe('a job whose files are still at their former keys', () => {
  /** Writes a job as items were written before the padding: unpadded file keys, no mark on the job item. */
  const putFormer = async (job: Job): Promise<void> => {
    const { [FILE_KEYS.attribute]: _mark, ...jobItem } = toJobItem(job, 1) as unknown as Record<string, unknown>;
    await documents.send(new PutCommand({ TableName: tableName, Item: jobItem }));
    for (const item of toFileItems(job)) {
      await documents.send(
        new PutCommand({ TableName: tableName, Item: { ...item, sk: jobKeys.legacyFileSk(item.fileId) } }),
      );
    }
  };

  it('is listed whole and in id order, every file once, by the index', async () => {
    const fileIds = [9, 10, 95, 100, 1_000];
    const job = makeJob({ files: fileIds.map((id) => makeFile({ id })) });
    await putFormer(job);

    const { ids } = await listAll(job.id, { limit: 2 });
    expect(ids).toEqual(fileIds);
  });
});
