/**
 * Writes a job that has never existed (`POST /jobs`): its ids are new (`id-allocator.ts`), so nothing is read
 * first, and every item is put conditioned on `attribute_not_exists(pk)`: an id that turns out to be taken (an
 * item left at it, a table restored behind its counter) fails the write and never overwrites what is there.
 *
 * A job that fits one transaction is written in one. A larger one writes its files first, in transactions of
 * conditional puts (BatchWriteItem takes no condition), and its job item last; until that last write nothing of
 * it is a job to a read, the indexer or search. Items the caller names (`commitWith`: the idempotency record that
 * binds a key to this job) are written in the job item's own transaction, so they commit exactly when the job
 * does.
 */
import { mapConcurrently } from '../../async';
import { cancellationCodes, DYNAMODB, isWriteConflict } from '../../aws/failures';
import { DependencyUnavailableError } from '../../errors';
import { toFileItems, toJobItem, type JobItem } from './items';
import type { JobsTable, TransactItem } from './jobs-table';
import type { Job } from '../model/model';

/** DynamoDB's limit on the items of one TransactWriteItems request. */
const TRANSACTION_ITEM_LIMIT = 100;

/** Transactions of a large job's files in flight at once. */
const FILE_TRANSACTIONS_IN_FLIGHT = 4;

/** The condition every item of a new job is put under. */
const IS_NEW = 'attribute_not_exists(pk)';

/**
 * An id the allocator handed out is already an item of the table: the create wrote nothing over it. Answered as
 * DynamoDB unavailable (`503`, retry later): a retry is given new ids.
 */
export class IdTakenError extends Error {
  public readonly jobId: number;

  public constructor(jobId: number, cause?: unknown) {
    super(`An item of job ${jobId} already exists; the create overwrote nothing`, { cause });
    this.name = 'IdTakenError';
    this.jobId = jobId;
  }
}

export interface NewJobWriteOptions {
  /** Written in the job item's transaction, after the job's own items. */
  commitWith?: TransactItem[];
  /** Most items per transaction (at most DynamoDB's 100). */
  transactionItems?: number;
}

/**
 * Sends one transaction of a new job's items. A failed condition on one of the job's own items (the first
 * `ownItems` of the transaction) is {@link IdTakenError}; any other lost race (a condition of a `commitWith`
 * item, a conflict) is DynamoDB refusing the write now. Both are answered `503`, as an unavailable DynamoDB
 * already is; anything else is thrown as it came.
 */
const send = async (table: JobsTable, jobId: number, items: TransactItem[], ownItems: number): Promise<void> => {
  try {
    await table.transactWrite(items);
  } catch (error) {
    if (!isWriteConflict(error)) throw error;
    const taken = cancellationCodes(error).slice(0, ownItems).includes('ConditionalCheckFailed');
    throw new DependencyUnavailableError(DYNAMODB, taken ? new IdTakenError(jobId, error) : error);
  }
};

/** Writes a new job (ids never used) at `version`, every item conditioned on not existing; answers its job item. */
export const writeNewJob = async (
  table: JobsTable,
  job: Job,
  version: number,
  options: NewJobWriteOptions = {},
): Promise<JobItem> => {
  const limit = Math.max(1, Math.min(TRANSACTION_ITEM_LIMIT, options.transactionItems ?? TRANSACTION_ITEM_LIMIT));
  const jobItem = toJobItem(job, version);
  const put = (item: object): TransactItem => ({
    Put: { TableName: table.tableName, Item: item as Record<string, unknown>, ConditionExpression: IS_NEW },
  });
  const files = toFileItems(job).map(put);
  const commitWith = options.commitWith ?? [];
  if (files.length + 1 + commitWith.length <= limit) {
    await send(table, job.id, [put(jobItem), ...files, ...commitWith], files.length + 1);
    return jobItem;
  }
  const chunks: TransactItem[][] = [];
  for (let start = 0; start < files.length; start += limit) chunks.push(files.slice(start, start + limit));
  await mapConcurrently(chunks, FILE_TRANSACTIONS_IN_FLIGHT, (chunk) => send(table, job.id, chunk, chunk.length));
  await send(table, job.id, [put(jobItem), ...commitWith], 1);
  return jobItem;
};
