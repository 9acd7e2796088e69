/**
 * A delivery of 1,000 files is all or nothing to every reader (docs/contract.md §6a), on DynamoDB Local,
 * with failures injected at each of its writes: the job item's write that commits it (1,000 files), and the
 * transactions that then write its files (a job of 100 files written 10 at a time, whose writes fall as a
 * 1,000-file delivery's do 100 at a time). Every reader — `GET /jobs/{id}` (the job and its counts),
 * `GET /jobs/{id}/files` under every filter through cursor paging, the indexer's read of the job, an empty
 * `PATCH` and an acceptance that changes nothing — sees either the job exactly as before (the commit
 * failed, and nothing was written) or every file delivered (the commit held, however few files were
 * written after it); the next writer finishes what a crash left.
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { AcceptFiles } from '../../functions/jobs/review/accept-files';
import { DeliverFiles } from '../../functions/jobs/delivery/deliver-files';
import { fromFileItem, type FileItem } from '../../functions/jobs/store/items';
import { JobsTable } from '../../functions/jobs/store/jobs-table';
import type { Job, JobFile, Review } from '../../functions/jobs/model/model';
import { JobReader } from '../../functions/jobs/read/read-jobs';
import { RejectFiles } from '../../functions/jobs/review/reject-files';
import { JobRepository } from '../../functions/jobs/store/repository';
import { REVIEW_FILTERS, type ReviewFilter, reviewStateOf, stateOfReviewKey } from '../../functions/jobs/model/review';
import { UpdateJob } from '../../functions/jobs/edit/update-job';
import { jobKeys } from '../../functions/tables';
import { fileJobsTable } from '../support/dynamo';
import { makeFile, makeJob } from '../support/jobs';
import { readyEdits, testPictures, writeVariant } from '../support/pictures';
import { newUploadId } from '../../functions/images/object-keys';

const jobsTable = fileJobsTable();
const { documents } = jobsTable;

const ACCOUNT = 5151;
const operator = { role: 'operator' as const, accountId: 0 };
const customer = { role: 'user' as const, accountId: ACCOUNT };
const DELIVERED_AT = '2026-11-26T12:00:00.000Z';
const FILES = 1_000;
/** The job and the transaction size of the crash tests: 10 % of the files, 10 % of the items per transaction. */
const SMALL = { files: 100, transactionItems: 10 };

const review = (day: number): Review => ({
  customRejection: `Too dark ${day}`,
  rejects: [],
  reviewDate: `2025-03-${String(day).padStart(2, '0')}T10:00:00.000Z`,
});

/**
 * A job back from the customer: every tenth file accepted, every third of the others rejected (some with
 * a full history), the rest delivered earlier and not reviewed yet.
 */
const rejectedJob = (count = FILES): Job =>
  makeJob({
    accountId: ACCOUNT,
    status: 'CJ_REJECT_READY',
    deliveredDate: '2025-03-01T10:00:00.000Z',
    files: Array.from({ length: count }, (_, index) => {
      if (index % 10 === 0) {
        return makeFile({ acceptedByUser: true, isReviewed: true, reviewDate: '2025-03-02T10:00:00.000Z' });
      }
      if (index % 3 === 0) {
        return makeFile({
          isRejected: true,
          isReviewed: true,
          rejectionReason: 'Too dark',
          reviewDate: '2025-03-09T10:00:00.000Z',
          reviews: review(9),
          previousReviews: index % 9 === 0 ? [1, 2, 3, 4, 5].map(review) : [review(2)],
        });
      }
      return makeFile();
    }),
  });

/** A file as a delivery leaves it (worked out here, not by the code under test). */
const delivered = (file: JobFile): JobFile =>
  file.acceptedByUser
    ? file
    : {
        ...file,
        isReviewed: false,
        isRejected: false,
        rejectionReason: null,
        reviewDate: null,
        reviews: null,
        previousReviews:
          file.reviews === null ? file.previousReviews : [...file.previousReviews, file.reviews].slice(-5),
      };

/** The state a file is in, for the filters. */
const stateOf = (file: JobFile, isDelivered: boolean) => reviewStateOf(file, isDelivered);

/**
 * A DocumentClient whose `n`-th write request (counted from its creation) fails as a crashed process's
 * would: with an error that is no race and no unavailability, so nothing retries it.
 */
const crashingOnWrite = (n: number): DynamoDBDocumentClient => {
  let writes = 0;
  const client = Object.create(documents) as DynamoDBDocumentClient;
  const send = async (command: unknown) => {
    const isWrite = [TransactWriteCommand, UpdateCommand, PutCommand, BatchWriteCommand, DeleteCommand].some(
      (type) => command instanceof type,
    );
    if (isWrite && ++writes === n) throw Object.assign(new Error(`injected crash at write ${n}`), { name: 'Crash' });
    return documents.send(command as never);
  };
  Object.defineProperty(client, 'send', { value: send });
  return client;
};

/** Every file of a job under one filter (`undefined`: all), through cursor paging. */
const pageThrough = async (jobId: number, review: ReviewFilter | undefined, limit: number): Promise<JobFile[]> => {
  const reader = new JobReader({ client: documents, tableName: jobsTable.name, pictures: testPictures() });
  const files: JobFile[] = [];
  let afterFileId: number | undefined;
  for (let pages = 0; pages < 2 * FILES; pages++) {
    const page = await reader.files(jobId, operator, { review, limit, afterFileId });
    expect(page.files.length).toBeLessThanOrEqual(limit);
    // The pictures are not what a delivery changes: the files' review fields are compared.
    files.push(...page.files.map(({ original: _original, edited: _edited, ...file }) => file));
    if (page.continueAfter === undefined) return files;
    afterFileId = page.continueAfter;
  }
  throw new Error('paging did not end');
};

/**
 * What every reader sees of a job. The acceptance (when `accept`) comes last: like every review, it
 * finishes a committed delivery's writes before it reads.
 */
const readersView = async (jobId: number, acceptedFileId: number, { accept = true } = {}) => {
  const reader = new JobReader({ client: documents, tableName: jobsTable.name, pictures: testPictures() });
  const job = await reader.job(jobId, customer);
  const pages = {
    all: await pageThrough(jobId, undefined, 100),
    ...Object.fromEntries(
      await Promise.all(REVIEW_FILTERS.map(async (filter) => [filter, await pageThrough(jobId, filter, 100)])),
    ),
  };
  const indexed = await new JobRepository(documents, jobsTable.name).getJob(jobId, { consistent: true });
  // An empty change under the version the reader saw (a delivery's later writes never move it).
  const patched = await new UpdateJob({ client: documents, tableName: jobsTable.name }).run(
    jobId,
    {},
    `"${job.version}"`,
    operator,
  );
  const view = { job, pages, indexed: indexed?.job, patched: patched.job };
  if (!accept) return view;
  // Accepting an accepted file again writes no file and answers the job's status.
  const accepted = await new AcceptFiles({ client: documents, tableName: jobsTable.name }).run(
    { fileIds: [acceptedFileId] },
    customer,
  );
  return { ...view, acceptAnswer: accepted.jobs };
};

/** What every reader should see of a job with these files, at this version, status and delivery date. */
const expectedView = (before: Job, files: JobFile[], version: number, status: Job['status'], deliveredDate: string) => {
  const isDelivered = true;
  const byFilter = (filter: ReviewFilter) => files.filter((file) => stateOf(file, isDelivered) === filter);
  const { files: _files, ...fields } = before;
  const job = {
    ...fields,
    status,
    deliveredDate,
    fileCount: files.length,
    version,
    review: {
      pending: byFilter('pending').length,
      rejected: byFilter('rejected').length,
      accepted: byFilter('accepted').length,
    },
  };
  return {
    job,
    pages: {
      all: files,
      pending: byFilter('pending'),
      rejected: byFilter('rejected'),
      accepted: byFilter('accepted'),
    },
    indexed: { ...fields, status, deliveredDate, files },
    patched: job,
    acceptAnswer: [{ id: before.id, status }],
  };
};

/** The raw items of a job's partition. */
const partition = (jobId: number) => new JobsTable(documents, jobsTable.name).readPartition(jobId, true);

/** The job item and the file items as stored, files in id order. */
const stored = async (jobId: number) => {
  const items = await partition(jobId);
  return {
    jobItem: items.find((item) => item.sk === jobKeys.jobSk)!,
    files: (items.filter((item) => item.entity === 'file') as unknown as FileItem[]).sort(
      (a, b) => a.fileId - b.fileId,
    ),
  };
};

/** Every file item holds the state it reads as (nothing left to roll forward) and the job item no record. */
const expectSettled = async (jobId: number, files: JobFile[]) => {
  const { jobItem, files: items } = await stored(jobId);
  expect(jobItem).not.toHaveProperty('deliveryCommitted');
  expect(jobItem).not.toHaveProperty('deliveryFileIds');
  expect(items.map(fromFileItem)).toEqual(files);
  for (const item of items) expect(stateOfReviewKey(item.reviewKey)).toBe(reviewStateOf(fromFileItem(item), true));
};

const setUp = async (count = FILES) => {
  const job = rejectedJob(count);
  const { version } = await new JobRepository(documents, jobsTable.name).putJob(job);
  // Staff uploaded every edited picture, and each is ready: a delivery refuses a file without one.
  await readyEdits(
    documents,
    jobsTable.name,
    job.id,
    job.files.map((file) => file.id),
  );
  const files = [...job.files].sort((a, b) => a.id - b.id);
  const acceptedFileId = files.find((file) => file.acceptedByUser)!.id;
  const before = expectedView(job, files, version, job.status, job.deliveredDate!);
  return { job, version, files, acceptedFileId, before };
};

const deliver = (client: DynamoDBDocumentClient, jobId: number, transactionItems?: number) =>
  new DeliverFiles({
    client,
    tableName: jobsTable.name,
    now: () => new Date(DELIVERED_AT),
    ...(transactionItems === undefined ? {} : { transactionItems }),
  }).run(jobId, undefined, operator);

describe('a large delivery, all or nothing to every reader', { timeout: 240_000 }, () => {
  it('fails at its commit without any reader seeing any of it; sent again, every reader sees all 1,000 delivered', async () => {
    const { job, version, files, acceptedFileId, before } = await setUp();
    const itemsBefore = await partition(job.id);

    await expect(deliver(crashingOnWrite(1), job.id)).rejects.toThrow('injected crash at write 1');
    expect(await partition(job.id)).toEqual(itemsBefore);
    expect(await readersView(job.id, acceptedFileId)).toEqual(before);

    const answer = await deliver(documents, job.id);
    const after = expectedView(job, files.map(delivered), version + 1, 'CJ_REVIEWING', DELIVERED_AT);
    expect(answer.job).toEqual(after.job);
    expect(after.job.review).toEqual({ pending: 900, rejected: 0, accepted: 100 });
    expect(await readersView(job.id, acceptedFileId)).toEqual(after);
    await expectSettled(job.id, files.map(delivered));
  });

  // The crashes after the commit, on a job of the same make-up at a tenth of the size and with ten items per
  // transaction, so that its writes fall as the 1,000-file delivery's do with DynamoDB's hundred: write 1
  // commits; writes 2–4 are the transactions of the 30 files that change (the 60 others already are as a
  // delivery leaves them), write 5 removes the job item's record of the delivery.
  it.each([
    { write: 2, filesWritten: 0, next: 'the delivery sent again' },
    { write: 3, filesWritten: 10, next: 'an acceptance' },
    { write: 5, filesWritten: 30, next: 'a rejection' },
  ])(
    'crashes after its commit (at write $write): every reader sees every file delivered, and the next writer finishes it',
    async ({ write, filesWritten, next }) => {
      const { job, version, files, acceptedFileId } = await setUp(SMALL.files);
      const deliveredFiles = files.map(delivered);
      const changing = files.filter((file, index) => !isDeepStrictEqual(file, deliveredFiles[index])).length;
      expect(changing).toBe(30);
      // The delivery answers: it is committed, and the crash only stopped it writing its files.
      expect((await deliver(crashingOnWrite(write), job.id, SMALL.transactionItems)).job.status).toBe('CJ_REVIEWING');

      const { jobItem, files: items } = await stored(job.id);
      expect(jobItem.deliveryCommitted).toEqual(expect.any(String));
      const unwritten = items.filter((item, index) => !isDeepStrictEqual(fromFileItem(item), deliveredFiles[index]));
      expect(unwritten).toHaveLength(changing - filesWritten);

      const after = expectedView(job, deliveredFiles, version + 1, 'CJ_REVIEWING', DELIVERED_AT);
      const { acceptAnswer: _, ...read } = after;
      expect(await readersView(job.id, acceptedFileId, { accept: false })).toEqual(read);
      // Readers apply the delivery; they do not write.
      expect((await stored(job.id)).jobItem.deliveryCommitted).toEqual(jobItem.deliveryCommitted);

      if (next === 'the delivery sent again') {
        // Its retry finds the job delivered (and in review): it finishes the writes, then refuses.
        await expect(deliver(documents, job.id, SMALL.transactionItems)).rejects.toMatchObject({
          code: 'invalid_transition',
        });
        await expectSettled(job.id, deliveredFiles);
        expect(await readersView(job.id, acceptedFileId)).toEqual(after);
        return;
      }
      const touched = deliveredFiles.find((file) => !file.acceptedByUser)!.id;
      if (next === 'an acceptance') {
        await new AcceptFiles({ client: documents, tableName: jobsTable.name }).run({ fileIds: [touched] }, customer);
      } else {
        await new RejectFiles({ client: documents, tableName: jobsTable.name }).run(
          { files: [{ fileId: touched, customRejection: 'Still too dark', rejects: [] }] },
          customer,
        );
      }
      const settled = (await stored(job.id)).files.map(fromFileItem);
      const touchedFile = settled.find((file) => file.id === touched)!;
      const finished = deliveredFiles.map((file) => (file.id === touched ? touchedFile : file));
      expect(reviewStateOf(touchedFile, true)).toBe(next === 'an acceptance' ? 'accepted' : 'rejected');
      await expectSettled(job.id, finished);
      const view = await new JobReader({ client: documents, tableName: jobsTable.name }).job(job.id, customer);
      expect(view.review).toEqual(
        next === 'an acceptance'
          ? { pending: 89, rejected: 0, accepted: 11 }
          : { pending: 89, rejected: 1, accepted: 10 },
      );
      expect(await pageThrough(job.id, undefined, 100)).toEqual(finished);
    },
  );

  it('reads a committed delivery whole on every page of every filter and size before any of its files is written', async () => {
    const { job, files } = await setUp(40);
    // Ten items per transaction: the commit, then (crashed) no file written.
    await deliver(crashingOnWrite(2), job.id, 10);
    const { jobItem, files: items } = await stored(job.id);
    expect(jobItem.deliveryCommitted).toEqual(expect.any(String));
    expect(items.map(fromFileItem)).toEqual(files);
    const deliveredFiles = files.map(delivered);
    const expected = {
      all: deliveredFiles,
      ...Object.fromEntries(
        REVIEW_FILTERS.map((filter) => [filter, deliveredFiles.filter((file) => stateOf(file, true) === filter)]),
      ),
    } as Record<ReviewFilter | 'all', JobFile[]>;
    expect(expected.pending).toHaveLength(36);
    for (const limit of [3, 40]) {
      for (const filter of [undefined, ...REVIEW_FILTERS]) {
        expect(await pageThrough(job.id, filter, limit), `${filter ?? 'all'} by ${limit}`).toEqual(
          expected[filter ?? 'all'],
        );
      }
    }
    expect((await stored(job.id)).jobItem.deliveryCommitted).toEqual(jobItem.deliveryCommitted);
  });
});

/**
 * A DocumentClient that, just before its first TransactWriteItems request, runs `meanwhile` (another writer
 * getting in between the delivery's read and its write) and then sends the request as it came.
 */
const racedBeforeTransaction = (meanwhile: () => Promise<void>): DynamoDBDocumentClient => {
  let raced = false;
  const client = Object.create(documents) as DynamoDBDocumentClient;
  const send = async (command: unknown) => {
    if (!raced && command instanceof TransactWriteCommand) {
      raced = true;
      await meanwhile();
    }
    return documents.send(command as never);
  };
  Object.defineProperty(client, 'send', { value: send });
  return client;
};

describe('a delivery whose edited picture turns invalid between its read and its write', { timeout: 120_000 }, () => {
  it('is refused by its own write (409 file_not_deliverable naming the file), writing nothing', async () => {
    const { job, files } = await setUp(12);
    const spoiled = files.find((file) => !file.acceptedByUser)!.id;
    const itemsBefore = await partition(job.id);
    // A re-upload of the edited picture, found corrupt, recorded after the delivery read the file as ready.
    const client = racedBeforeTransaction(() =>
      writeVariant(documents, jobsTable.name, job.id, [spoiled], 'edited', () => ({
        status: 'invalid',
        uploadId: newUploadId(),
        reason: 'The file is not a complete image.',
        uploadedDate: DELIVERED_AT,
      })),
    );
    await expect(deliver(client, job.id)).rejects.toMatchObject({
      code: 'file_not_deliverable',
      context: { fileId: spoiled },
    });
    const after = await partition(job.id);
    const spoiledSk = jobKeys.fileSk(spoiled);
    // Everything as before but the invalid edited picture the race wrote.
    expect(after.filter((item) => item.sk !== spoiledSk)).toEqual(itemsBefore.filter((item) => item.sk !== spoiledSk));
    const spoiledItem = after.find((item) => item.sk === spoiledSk)!;
    const { edited: _edited, ...rest } = spoiledItem;
    const { edited: _editedBefore, ...restBefore } = itemsBefore.find((item) => item.sk === spoiledSk)!;
    expect(rest).toEqual(restBefore);
    expect(spoiledItem.edited).toMatchObject({ status: 'invalid' });
  });
});
