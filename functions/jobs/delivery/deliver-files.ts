/**
 * Delivering edited files for review (`POST /jobs/{id}/delivery`, docs/contract.md §6a): each file goes
 * back to review — not reviewed, not rejected, no rejection reason, its current review moved to
 * `previousReviews` (the most recent 5, written as a rejection writes it) — and the job becomes
 * `CJ_REVIEWING` with `deliveredDate` now and exact `review` counts.
 *
 * All or nothing to every reader, whatever the file count. A delivery that fits one transaction (99 files
 * and the job item, whose items add up to no more than the transaction size budget of `store/item-sizes.ts`:
 * DynamoDB counts each updated item whole, and files with long review histories can pass its 4 MB) is one,
 * conditioned on everything it read. A larger one is committed by one write of the job item alone —
 * status, date, counts and version, conditioned on the version read, plus the delivery's id and file ids
 * (`pending-delivery.ts`) — before any file is written: a failure before that write leaves the job exactly
 * as it was, and from that write on every reader (`GET /jobs/{id}`, its files, the indexer, a review) sees
 * every listed file delivered, applying the delivery to each file it reads. Then the files are rolled
 * forward in transactions of up to 100 items within the size budget, and the record removed
 * ({@link finishDelivery}); a crash in between is finished by the next delivery, rejection or acceptance
 * of the job, which finish the roll forward before they read. No hold, no staged copy of a file: a file
 * back in review is a function of the file as it was, so the job item's list of ids is the whole delivery.
 *
 * Checks, in order: the caller is an operator (`403`); the job exists (`404 job_not_found`); its status
 * allows a delivery (`409 invalid_transition`); then each file in request order (in id order without a list): of
 * the job (`404 file_not_found`), not accepted, and its edited picture ready (`409 file_not_deliverable`).
 * The images function records a picture without changing the job's version, so the version does not guard
 * the pictures: a delivery in one transaction conditions each file's write on its edited picture still being
 * `ready`, and an invalid re-upload recorded between the read and the write cancels it (the retry's read then
 * refuses the file). A committed delivery is judged on the pictures as read: its commit is the job item's
 * write alone, and an edited picture recorded invalid in the moment between its read and its commit is
 * delivered as it then is (the customer sees it invalid and can reject it).
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Principal } from '../../auth/principal';
import { DYNAMODB } from '../../aws/failures';
import { ApiError, DependencyUnavailableError } from '../../errors';
import { jobKeys } from '../../tables';
import { type FileItem, fromFileItem, type JobItem } from '../store/items';
import { type Item, JobsTable, type RetryPolicy, type TransactItem } from '../store/jobs-table';
import type { JobStatus } from '../model/model';
import {
  deliveredFileItem,
  isDeliveredFileItem,
  PENDING_DELIVERY,
  pendingDelivery,
  settledCondition,
} from '../store/pending-delivery';
import { estimatedItemSize, TRANSACTION_SIZE_BUDGET } from '../store/item-sizes';
import { moveToHistory, readyEditCondition, unchangedCondition } from '../store/file-conditions';
import { jobETag, jobView } from '../store/job-view';
import {
  countAttributes,
  countStates,
  isDeliveredJob,
  type ReviewCounts,
  type ReviewState,
  reviewKey,
  reviewStateOf,
  stateOfReviewKey,
} from '../model/review';
import { jobNotFound, type UpdatedJob } from '../edit/update-job';

/** The statuses a delivery moves a job on from. */
export const DELIVERABLE_STATUSES: readonly JobStatus[] = ['CJ_WORK_PROGRESS', 'CJ_REJECT_READY', 'CJ_REJECT_ERROR'];

/** The status a delivered job takes. */
export const DELIVERED_STATUS: JobStatus = 'CJ_REVIEWING';

/** DynamoDB's limit on the items of one transaction. */
const TRANSACTION_ITEMS = 100;

export interface DeliverFilesOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  now?: () => Date;
  /** The jobs table's retry policy (`jobs-table.ts`), for tests. */
  retry?: Partial<RetryPolicy>;
  /** Most items per transaction (tests lower it to exercise the committed path with few files). */
  transactionItems?: number;
}

/** A file's review state as stored (its `reviewKey`; from its flags on an item that predates it). */
const storedState = (file: FileItem, job: JobItem): ReviewState =>
  stateOfReviewKey(file.reviewKey) ?? reviewStateOf(fromFileItem(file), isDeliveredJob(job));

/** Refuses a file whose edited picture is not ready: there is nothing for the customer to review. */
const requireReadyEdit = (file: FileItem): void => {
  if (file.edited?.status === 'ready') return;
  const why = file.edited === undefined ? 'has no edited picture yet' : 'has an edited picture that is not valid';
  throw new ApiError(
    'file_not_deliverable',
    { fileId: file.fileId },
    { message: `File ${file.fileId} ${why}; upload it before delivering.` },
  );
};

/** A lost race (another delivery committed meanwhile), answered by trying again after the backoff. */
const committedByAnother = (): Error =>
  Object.assign(new Error('Another delivery of the job was committed meanwhile'), {
    name: 'TransactionConflictException',
  });

/**
 * A file back to review, conditioned on the file as read (its review state and history), so a file
 * changed meanwhile fails the write instead of being overwritten; with `editReady`, also on its edited
 * picture still being ready ({@link readyEditCondition}).
 */
const fileUpdate = (tableName: string, before: FileItem, editReady: boolean): TransactItem => {
  const condition = unchangedCondition(before);
  if (editReady) readyEditCondition(condition);
  const sets = [
    '#isReviewed = :false',
    '#isRejected = :false',
    '#rejectionReason = :null',
    '#reviews = :null',
    '#reviewDate = :null',
    '#reviewKey = :pending',
  ];
  const review = fromFileItem(before).reviews;
  if (review !== null) sets.push(moveToHistory(condition, before, review).set);
  return {
    Update: {
      TableName: tableName,
      Key: { pk: before.pk, sk: before.sk },
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: condition.clauses.join(' AND '),
      ExpressionAttributeNames: {
        ...condition.names,
        '#isReviewed': 'isReviewed',
        '#isRejected': 'isRejected',
        '#rejectionReason': 'rejectionReason',
        '#reviews': 'reviews',
        '#reviewDate': 'reviewDate',
        '#reviewKey': 'reviewKey',
      },
      ExpressionAttributeValues: {
        ...condition.values,
        ':false': false,
        ':null': null,
        ':pending': reviewKey(before.jobId, 'pending'),
      },
    },
  };
};

/** A file's write with the estimated size of the item it leaves (a transaction counts each item whole). */
interface FileWrite {
  write: TransactItem;
  bytes: number;
}

const fileWrite = (tableName: string, before: FileItem, editReady: boolean): FileWrite => ({
  write: fileUpdate(tableName, before, editReady),
  bytes: estimatedItemSize(deliveredFileItem(before)),
});

/**
 * The writes, in order, cut into transactions of at most `maxItems` items whose estimated sizes add up to no
 * more than {@link TRANSACTION_SIZE_BUDGET} (one item always fits: an item holds at most 400 KB).
 */
const transactionsOf = (writes: readonly FileWrite[], maxItems: number): TransactItem[][] => {
  const transactions: TransactItem[][] = [];
  let current: TransactItem[] = [];
  let bytes = 0;
  for (const { write, bytes: size } of writes) {
    if (current.length > 0 && (current.length >= maxItems || bytes + size > TRANSACTION_SIZE_BUDGET)) {
      transactions.push(current);
      current = [];
      bytes = 0;
    }
    current.push(write);
    bytes += size;
  }
  if (current.length > 0) transactions.push(current);
  return transactions;
};

/**
 * Finishes a committed delivery of a job, if its job item records one (`pending-delivery.ts`): reads the
 * partition (one consistent Query, the one read both the review's and the delivery's roles allow), writes
 * each listed file not yet back in review, `transactionItems` per transaction, each conditioned on the
 * file as read (a file read before the commit and changed since fails its write), then removes the record. Safe to run by several callers at once and again after a crash:
 * a file already delivered is left alone, and a lost race reads again. Throws
 * `DependencyUnavailableError` when it cannot finish within the table's contention policy.
 */
export const finishDelivery = (
  table: JobsTable,
  jobId: number,
  transactionItems: number = TRANSACTION_ITEMS,
): Promise<void> =>
  table.underContention(
    async () => {
      const items = await table.readPartition(jobId, true);
      const pending = pendingDelivery(items.find((item) => item.sk === jobKeys.jobSk));
      if (pending === undefined) return;
      const writes = (items.filter((item) => item.entity === 'file') as unknown as FileItem[])
        .filter((file) => pending.has(file.fileId) && !isDeliveredFileItem(file))
        .sort((a, b) => a.fileId - b.fileId)
        .map((file) => fileWrite(table.tableName, file, false));
      for (const transaction of transactionsOf(writes, Math.max(1, Math.min(TRANSACTION_ITEMS, transactionItems)))) {
        await table.transactWrite(transaction);
      }
      await table.updateItem({
        Key: { pk: jobKeys.pk(jobId), sk: jobKeys.jobSk },
        UpdateExpression: 'REMOVE #deliveryCommitted, #deliveryFileIds',
        ConditionExpression: '#deliveryCommitted = :delivery',
        ExpressionAttributeNames: {
          '#deliveryCommitted': PENDING_DELIVERY.id,
          '#deliveryFileIds': PENDING_DELIVERY.fileIds,
        },
        ExpressionAttributeValues: { ':delivery': pending.id },
      });
    },
    (_attempts, lastConflict) => new DependencyUnavailableError(DYNAMODB, lastConflict),
  );

/** The delivery use case. */
export class DeliverFiles {
  private readonly table: JobsTable;
  private readonly now: () => Date;
  private readonly transactionItems: number;

  public constructor(options: DeliverFilesOptions) {
    this.now = options.now ?? (() => new Date());
    this.transactionItems = Math.max(2, Math.min(TRANSACTION_ITEMS, options.transactionItems ?? TRANSACTION_ITEMS));
    this.table = new JobsTable(options.client, options.tableName, {
      ...(options.retry === undefined ? {} : { retry: options.retry }),
      now: () => this.now().getTime(),
    });
  }

  /** Delivers the files (`undefined`: every file not accepted) of a job on behalf of an operator. */
  public async run(
    jobId: number,
    fileIds: readonly number[] | undefined,
    principal: Pick<Principal, 'role'>,
  ): Promise<UpdatedJob> {
    if (principal.role !== 'operator') {
      throw new ApiError('forbidden', {}, { message: 'Only operators deliver files.' });
    }
    const deliveryId = randomUUID();
    const { updated, committed } = await this.table.underContention(
      async () => {
        const read = await this.settledPartition(jobId);
        const job = read.job as JobItem | undefined;
        if (job?.entity !== 'job') throw jobNotFound();
        const { items } = read;
        if (!DELIVERABLE_STATUSES.includes(job.status)) {
          throw new ApiError(
            'invalid_transition',
            { parameter: 'status' },
            { message: `Files cannot be delivered while the job is ${job.status}.` },
          );
        }
        const files = new Map<number, FileItem>();
        for (const item of items)
          if (item.entity === 'file') files.set(item.fileId as number, item as unknown as FileItem);
        const targets = this.targets(files, fileIds);
        const delivering = new Set(targets.map((file) => file.fileId));
        // Exact counts from the whole partition as read: every write of a file's state changes the job
        // item's version, on which the write below is conditioned.
        const counts = countStates(
          [...files.values()].map((file) => (delivering.has(file.fileId) ? 'pending' : storedState(file, job))),
        );
        const at = this.now().toISOString();
        const updated = {
          ...job,
          status: DELIVERED_STATUS,
          deliveredDate: at,
          ...countAttributes(counts),
          version: job.version + 1,
        } as JobItem;
        // In one transaction, each file's write also requires its edited picture still ready: an upload
        // recorded between the read and the write (a re-upload found invalid) cancels it, and the retry's
        // read refuses the file. A committed delivery's files are written after its commit, which they
        // must then finish whatever their pictures hold, so they carry no such condition.
        const fileWrites = targets.map((file) => fileWrite(this.table.tableName, file, true));
        const bytes = fileWrites.reduce((total, each) => total + each.bytes, estimatedItemSize(updated));
        const large = fileWrites.length + 1 > this.transactionItems || bytes > TRANSACTION_SIZE_BUDGET;
        const commit = large ? { id: deliveryId, fileIds: [...delivering].sort((a, b) => a - b) } : undefined;
        if (commit === undefined) {
          await this.table.transactWrite([
            ...fileWrites.map((each) => each.write),
            this.jobUpdate(job, at, counts, undefined),
          ]);
        } else {
          await this.table.transactWrite([this.jobUpdate(job, at, counts, commit)]);
        }
        return { committed: large, updated };
      },
      (_attempts, lastConflict) => new DependencyUnavailableError(DYNAMODB, lastConflict),
    );
    if (committed) {
      try {
        await finishDelivery(this.table, jobId, this.transactionItems);
      } catch {
        // The delivery is committed and every reader sees it; the next writer of the job finishes it.
      }
    }
    return { job: jobView(updated), etag: jobETag(updated.version) };
  }

  /**
   * The job item, then its files (a consistent Query of the partition), once any committed delivery of the
   * job is finished (by this call if need be); a delivery committed again meanwhile is a lost race. The job
   * item is read first: every write of a file's state changes its version, on which the delivery's write
   * is conditioned, so files read after it are as the version read says or the write fails (a Query reads
   * the files before the job item, whose key sorts last, and a review between the two would go unnoticed).
   */
  private async settledPartition(jobId: number): Promise<{ job: Item | undefined; items: Item[] }> {
    let job = await this.table.getJobItem(jobId);
    if (pendingDelivery(job) !== undefined) {
      await finishDelivery(this.table, jobId, this.transactionItems);
      job = await this.table.getJobItem(jobId);
      if (pendingDelivery(job) !== undefined) throw committedByAnother();
    }
    return { job, items: job === undefined ? [] : await this.table.readPartition(jobId, true) };
  }

  /** The files to deliver, in request order, refusing the first that is not the job's or was accepted. */
  private targets(files: ReadonlyMap<number, FileItem>, fileIds: readonly number[] | undefined): FileItem[] {
    if (fileIds === undefined) {
      const targets = [...files.values()]
        .filter((file) => file.acceptedByUser !== true)
        .sort((a, b) => a.fileId - b.fileId);
      targets.forEach(requireReadyEdit);
      return targets;
    }
    return fileIds.map((fileId) => {
      const file = files.get(fileId);
      if (file === undefined) throw new ApiError('file_not_found', { fileId });
      if (file.acceptedByUser === true) throw new ApiError('file_not_deliverable', { fileId });
      requireReadyEdit(file);
      return file;
    });
  }

  /**
   * The job item's write: status, `deliveredDate`, the counts and the version, conditioned on the version
   * read and on no committed delivery still being rolled forward — and, for a delivery larger than one
   * transaction, the record of the delivery (`pending-delivery.ts`), which commits it.
   */
  private jobUpdate(
    job: JobItem,
    at: string,
    counts: ReviewCounts,
    commit: { id: string; fileIds: number[] } | undefined,
  ): TransactItem {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const sets = Object.entries(countAttributes(counts)).map(([attribute, value]) => {
      names[`#${attribute}`] = attribute;
      values[`:${attribute}`] = value;
      return `#${attribute} = :${attribute}`;
    });
    if (commit !== undefined) {
      sets.push('#deliveryCommitted = :delivery', '#deliveryFileIds = :deliveryFileIds');
      names['#deliveryFileIds'] = PENDING_DELIVERY.fileIds;
      values[':delivery'] = commit.id;
      values[':deliveryFileIds'] = commit.fileIds;
    }
    const settled = settledCondition();
    return {
      Update: {
        TableName: this.table.tableName,
        Key: { pk: jobKeys.pk(job.id), sk: jobKeys.jobSk },
        UpdateExpression: `SET #status = :status, #deliveredDate = :at, ${sets.join(', ')} ADD #version :one`,
        ConditionExpression: `#version = :expected AND ${settled.expression}`,
        ExpressionAttributeNames: {
          ...settled.names,
          ...names,
          '#status': 'status',
          '#deliveredDate': 'deliveredDate',
          '#version': 'version',
        },
        ExpressionAttributeValues: {
          ...settled.values,
          ...values,
          ':status': DELIVERED_STATUS,
          ':at': at,
          ':one': 1,
          ':expected': job.version,
        },
      },
    };
  }
}
