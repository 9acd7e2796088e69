/**
 * The tenant boundary of the customer's review on DynamoDB Local: a user's acceptance or rejection naming a
 * file of another account's job answers `404 file_not_found` and leaves that job exactly as it was — even
 * when the job holds a committed delivery not yet written to its files, which a review of one's own job
 * finishes before it reads (docs/contract.md §5, §6a; functions/jobs/store/pending-delivery.ts).
 */
import { describe, expect, it } from 'vitest';
import {
  BatchWriteCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { AcceptFiles } from '../../functions/jobs/review/accept-files';
import { DeliverFiles } from '../../functions/jobs/delivery/deliver-files';
import { JobsTable } from '../../functions/jobs/store/jobs-table';
import { RejectFiles } from '../../functions/jobs/review/reject-files';
import { JobRepository } from '../../functions/jobs/store/repository';
import { jobKeys } from '../../functions/tables';
import { fileJobsTable } from '../support/dynamo';
import { makeFile, makeJob } from '../support/jobs';
import { readyEdits } from '../support/pictures';

const jobsTable = fileJobsTable();
const { documents } = jobsTable;

const OWNER = 1002;
const owner = { role: 'user' as const, accountId: OWNER };
const stranger = { role: 'user' as const, accountId: 1001 };
const operator = { role: 'operator' as const, accountId: 0 };

/** A DocumentClient whose `n`-th write fails as a crashed process's would (no race, nothing retries it). */
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

const partition = (jobId: number) => new JobsTable(documents, jobsTable.name).readPartition(jobId, true);

/**
 * A job of the owner's account back from review (every file rejected), delivered again by a delivery that
 * committed and then crashed before writing any file: its job item records the delivery, its files do not
 * show it yet.
 */
const jobWithUnfinishedDelivery = async () => {
  const job = makeJob({
    accountId: OWNER,
    status: 'CJ_REJECT_READY',
    deliveredDate: '2025-03-01T10:00:00.000Z',
    files: Array.from({ length: 4 }, () =>
      makeFile({
        isRejected: true,
        isReviewed: true,
        rejectionReason: 'Too dark',
        reviewDate: '2025-03-02T10:00:00.000Z',
        reviews: { customRejection: 'Too dark', rejects: [], reviewDate: '2025-03-02T10:00:00.000Z' },
      }),
    ),
  });
  await new JobRepository(documents, jobsTable.name).putJob(job);
  await readyEdits(
    documents,
    jobsTable.name,
    job.id,
    job.files.map((file) => file.id),
  );
  // Two items per transaction: the commit is write 1, the first files' transaction write 2.
  const delivery = new DeliverFiles({ client: crashingOnWrite(2), tableName: jobsTable.name, transactionItems: 2 });
  await delivery.run(job.id, undefined, operator);
  const items = await partition(job.id);
  expect(items.find((item) => item.sk === jobKeys.jobSk)?.deliveryCommitted).toEqual(expect.any(String));
  expect(items.filter((item) => item.entity === 'file').every((item) => item.isRejected === true)).toBe(true);
  return { job, items, fileId: job.files[0]!.id };
};

describe('a review naming another account’s file, on DynamoDB Local', () => {
  it('accepts nothing and leaves the other account’s unfinished delivery unfinished', async () => {
    const { job, items, fileId } = await jobWithUnfinishedDelivery();
    const accept = new AcceptFiles({ client: documents, tableName: jobsTable.name });
    await expect(accept.run({ fileIds: [fileId] }, stranger)).rejects.toMatchObject({
      code: 'file_not_found',
      fileId,
    });
    expect(await partition(job.id)).toEqual(items);

    // The owner's own acceptance finishes the delivery before it reads, and accepts the delivered file.
    const answer = await accept.run({ fileIds: [fileId] }, owner);
    expect(answer.files).toEqual([expect.objectContaining({ fileId, acceptedByUser: true })]);
    const after = await partition(job.id);
    expect(after.find((item) => item.sk === jobKeys.jobSk)).not.toHaveProperty('deliveryCommitted');
    expect(after.filter((item) => item.entity === 'file').some((item) => item.isRejected === true)).toBe(false);
  });

  it('rejects nothing and leaves the other account’s unfinished delivery unfinished', async () => {
    const { job, items, fileId } = await jobWithUnfinishedDelivery();
    const reject = new RejectFiles({ client: documents, tableName: jobsTable.name });
    const request = { files: [{ fileId, customRejection: 'Still too dark', rejects: [] }] };
    await expect(reject.run(request, stranger)).rejects.toMatchObject({ code: 'file_not_found', fileId });
    expect(await partition(job.id)).toEqual(items);
  });
});
