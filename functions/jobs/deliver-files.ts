/**
 * Delivering edited files for review (`POST /jobs/{id}/delivery`, docs/contract.md §6a): each file goes
 * back to review — not reviewed, not rejected, no rejection reason, its current review moved to
 * `previousReviews` (the most recent 5, written as a rejection writes it) — and the job becomes
 * `CJ_REVIEWING` with `deliveredDate` now and exact `review` counts.
 *
 * All or nothing, whatever the file count: a delivery that fits one transaction (99 files and the job
 * item) is one, conditioned on everything it read. A larger one first takes a hold on the job item
 * (`delivery-lock.ts`), under which no edit, rejection, acceptance or other delivery can write the job,
 * writes its files 100 per transaction, and ends with the job item, which lifts the hold in the same
 * write. A failure in between leaves the hold; the delivery sent again (safe: a delivered file is
 * delivered again to the same state) takes it over once it expires and finishes the work.
 *
 * Checks, in order: the caller is an operator (`403`); the job exists (`404 job_not_found`); its status
 * allows a delivery (`409 invalid_transition`); then each file in request order: of the job
 * (`404 file_not_found`), not accepted (`409 file_not_deliverable`).
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Principal } from '../auth/principal';
import { DYNAMODB } from '../aws/failures';
import { ApiError, DependencyUnavailableError } from '../errors';
import { jobKeys } from '../tables';
import { DELIVERY_LOCK, DELIVERY_LOCK_MS, unlockedCondition } from './delivery-lock';
import { type FileItem, fromFileItem, type JobItem } from './items';
import { JobsTable, type TransactItem } from './jobs-table';
import type { JobStatus } from './model';
import { moveToHistory, unchangedCondition } from './review-transaction';
import { jobETag, jobView } from './job-view';
import {
  countAttributes,
  countStates,
  isDeliveredJob,
  type ReviewCounts,
  type ReviewState,
  reviewKey,
  reviewStateOf,
  stateOfReviewKey,
} from './review';
import { jobNotFound, type UpdatedJob } from './update-job';

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
  /** Most items per transaction (tests lower it to exercise the held path with few files). */
  transactionItems?: number;
}

/** A file's review state as stored (its `reviewKey`; from its flags on an item that predates it). */
const storedState = (file: FileItem, job: JobItem): ReviewState =>
  stateOfReviewKey(file.reviewKey) ?? reviewStateOf(fromFileItem(file), isDeliveredJob(job));

/** A lost race (a hold of another delivery), answered by trying again after the backoff. */
const heldByAnother = (): Error =>
  Object.assign(new Error('Another delivery holds the job'), { name: 'TransactionConflictException' });

/** The delivery use case. */
export class DeliverFiles {
  private readonly table: JobsTable;
  private readonly now: () => Date;
  private readonly transactionItems: number;

  public constructor(options: DeliverFilesOptions) {
    this.now = options.now ?? (() => new Date());
    this.transactionItems = Math.max(2, Math.min(TRANSACTION_ITEMS, options.transactionItems ?? TRANSACTION_ITEMS));
    this.table = new JobsTable(options.client, options.tableName, { now: () => this.now().getTime() });
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
    const holdId = randomUUID();
    return this.table.underContention(
      async () => {
        const items = await this.table.readPartition(jobId, true);
        const job = items.find((item) => item.sk === jobKeys.jobSk) as JobItem | undefined;
        if (job?.entity !== 'job') throw jobNotFound();
        const now = this.now();
        const hold = job as unknown as Record<string, unknown>;
        const holder = hold[DELIVERY_LOCK.token];
        const heldUntil = hold[DELIVERY_LOCK.until];
        if (holder !== undefined && holder !== holdId && typeof heldUntil === 'number' && heldUntil >= now.getTime()) {
          throw heldByAnother();
        }
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
        // item too, so the conditions on it keep these true until the write.
        const counts = countStates(
          [...files.values()].map((file) => (delivering.has(file.fileId) ? 'pending' : storedState(file, job))),
        );
        const at = now.toISOString();
        const fileWrites = targets.map((file) => this.fileUpdate(file));
        if (fileWrites.length + 1 <= this.transactionItems) {
          await this.table.transactWrite([...fileWrites, this.jobUpdate(job, at, counts, undefined)]);
        } else {
          await this.hold(job, holdId, now.getTime());
          for (let start = 0; start < fileWrites.length; start += this.transactionItems) {
            await this.table.transactWrite(fileWrites.slice(start, start + this.transactionItems));
          }
          await this.table.transactWrite([this.jobUpdate(job, at, counts, holdId)]);
        }
        const updated = {
          ...job,
          status: DELIVERED_STATUS,
          deliveredDate: at,
          ...countAttributes(counts),
          version: job.version + 1,
        } as JobItem;
        return { job: jobView(updated), etag: jobETag(updated.version) };
      },
      (_attempts, lastConflict) => new DependencyUnavailableError(DYNAMODB, lastConflict),
    );
  }

  /** The files to deliver, in request order, refusing the first that is not the job's or was accepted. */
  private targets(files: ReadonlyMap<number, FileItem>, fileIds: readonly number[] | undefined): FileItem[] {
    if (fileIds === undefined) {
      return [...files.values()].filter((file) => file.acceptedByUser !== true).sort((a, b) => a.fileId - b.fileId);
    }
    return fileIds.map((fileId) => {
      const file = files.get(fileId);
      if (file === undefined) throw new ApiError('file_not_found', { fileId });
      if (file.acceptedByUser === true) throw new ApiError('file_not_deliverable', { fileId });
      return file;
    });
  }

  /**
   * A file back to review, conditioned on what the plan read (its review state and history), so a file
   * changed meanwhile fails the write instead of being overwritten.
   */
  private fileUpdate(before: FileItem): TransactItem {
    const condition = unchangedCondition(before);
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
        TableName: this.table.tableName,
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
  }

  /** Takes the hold (or renews its own), conditioned on the version read and on no other live hold. */
  private async hold(job: JobItem, holdId: string, now: number): Promise<void> {
    const unlocked = unlockedCondition(now);
    await this.table.updateItem({
      Key: { pk: jobKeys.pk(job.id), sk: jobKeys.jobSk },
      UpdateExpression: 'SET #deliveryLock = :holdId, #deliveryLockUntil = :until',
      ConditionExpression: `(#version = :expected AND ${unlocked.expression}) OR #deliveryLock = :holdId`,
      ExpressionAttributeNames: { ...unlocked.names, '#version': 'version' },
      ExpressionAttributeValues: {
        ...unlocked.values,
        ':holdId': holdId,
        ':until': now + DELIVERY_LOCK_MS,
        ':expected': job.version,
      },
    });
  }

  /**
   * The job item's write: status, `deliveredDate`, the counts and the version, conditioned on the version
   * read and no other hold — or, for a held delivery, on its own hold, which the write lifts.
   */
  private jobUpdate(job: JobItem, at: string, counts: ReviewCounts, holdId: string | undefined): TransactItem {
    const counted = { sets: '', names: {} as Record<string, string>, values: {} as Record<string, unknown> };
    counted.sets = Object.entries(countAttributes(counts))
      .map(([attribute, value]) => {
        counted.names[`#${attribute}`] = attribute;
        counted.values[`:${attribute}`] = value;
        return `#${attribute} = :${attribute}`;
      })
      .join(', ');
    const condition =
      holdId === undefined
        ? (() => {
            const unlocked = unlockedCondition(Date.parse(at));
            return {
              expression: `#version = :expected AND ${unlocked.expression}`,
              names: unlocked.names,
              values: { ...unlocked.values, ':expected': job.version },
            };
          })()
        : {
            expression: '#deliveryLock = :holdId',
            names: { '#deliveryLock': DELIVERY_LOCK.token },
            values: { ':holdId': holdId },
          };
    return {
      Update: {
        TableName: this.table.tableName,
        Key: { pk: jobKeys.pk(job.id), sk: jobKeys.jobSk },
        UpdateExpression: `SET #status = :status, #deliveredDate = :at, ${counted.sets} ADD #version :one${
          holdId === undefined ? '' : ' REMOVE #deliveryLock, #deliveryLockUntil'
        }`,
        ConditionExpression: condition.expression,
        ExpressionAttributeNames: {
          ...condition.names,
          '#status': 'status',
          '#deliveredDate': 'deliveredDate',
          ...counted.names,
          '#version': 'version',
          ...(holdId === undefined ? {} : { '#deliveryLockUntil': DELIVERY_LOCK.until }),
        },
        ExpressionAttributeValues: {
          ...condition.values,
          ':status': DELIVERED_STATUS,
          ':at': at,
          ...counted.values,
          ':one': 1,
        },
      },
    };
  }
}
