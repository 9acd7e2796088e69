/**
 * Reading jobs through the API (docs/contract.md §6a): one job by id — one strongly consistent GetItem of
 * its job item, which carries the review counts — and a page of its files for review, whose cost is bounded
 * by the page size whatever the filter: the `byReview` index lists the ids of one state's files (for every
 * file, the four states' lists are merged), then the page's files are read by key, strongly consistently.
 *
 * A large delivery committed but not yet written to every file (`pending-delivery.ts`) is read as done: its
 * job item lists the delivered ids, which are merged into the `pending` listing and taken out of the other
 * states' listings, and each listed file is read as delivered — one more read of nothing, since the job
 * item is read anyway.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { accountScope, type Principal } from '../auth/principal';
import { ApiError } from '../errors';
import { jobKeys } from '../tables';
import { filesWithinBudget } from './files-page-budget';
import { type FileItem, fromFileItem, type JobItem, jobItemCounts } from './items';
import { JobsTable, type RetryPolicy } from './jobs-table';
import { jobView, type JobView } from './job-view';
import type { JobFile } from './model';
import { effectiveFileItem, pendingDelivery } from './pending-delivery';
import {
  countStates,
  isDeliveredJob,
  REVIEW_STATES,
  type ReviewFilter,
  type ReviewState,
  reviewStateOf,
  stateOfReviewKey,
} from './review';

/** The job does not exist, or the caller may not see it (answered alike, `404 job_not_found`). */
export class JobNotFoundError extends ApiError {
  public readonly jobId: number;

  public constructor(jobId: number) {
    super('job_not_found');
    this.name = 'JobNotFoundError';
    this.jobId = jobId;
  }
}

/** What a page of files asks for. */
export interface FilesQuery {
  review: ReviewFilter | undefined;
  /** 1–100. */
  limit: number;
  /** The last file id of the previous page (from its cursor). */
  afterFileId: number | undefined;
}

/** A page of files, in id order, and the last file id it covered when more may follow. */
export interface FilesPage {
  files: JobFile[];
  /** The id to continue after, or `undefined` on the last page. */
  continueAfter: number | undefined;
}

export interface JobReaderOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** The jobs table's retry policy (`jobs-table.ts`), for tests. */
  retry?: Partial<RetryPolicy>;
}

/** The caller may see a job item: it exists and belongs to the caller's account (operators see all). */
const visible = (item: Record<string, unknown> | undefined, principal: Pick<Principal, 'role' | 'accountId'>) => {
  if (item?.entity !== 'job') return false;
  const scope = accountScope(principal);
  return scope === undefined || item.accountId === scope;
};

/** The current state of a file item, from its `reviewKey` (or its flags, on an item that predates it). */
const currentState = (item: FileItem): ReviewState =>
  stateOfReviewKey(item.reviewKey) ?? reviewStateOf(fromFileItem(item), true);

/** Reads jobs and their files for the API's callers. */
export class JobReader {
  private readonly table: JobsTable;

  public constructor(options: JobReaderOptions) {
    this.table = new JobsTable(options.client, options.tableName, options.retry ? { retry: options.retry } : {});
  }

  /**
   * A job as `GET /jobs/{id}` answers it: one consistent GetItem. A job item written before review counts
   * existed is counted from its partition (one consistent Query) until a review write stores them.
   */
  public async job(jobId: number, principal: Pick<Principal, 'role' | 'accountId'>): Promise<JobView> {
    const item = await this.table.getJobItem(jobId);
    if (!visible(item, principal)) throw new JobNotFoundError(jobId);
    const jobItem = item as unknown as JobItem;
    if (jobItemCounts(item!) !== undefined) return jobView(jobItem);
    const stored = await this.table.readJob(jobId);
    const delivered = isDeliveredJob({ deliveredDate: jobItem.deliveredDate ?? null, status: jobItem.status });
    const counts = countStates((stored?.job.files ?? []).map((file) => reviewStateOf(file, delivered)));
    return jobView(jobItem, counts);
  }

  /**
   * A page of a job's files: at most `limit` files after `afterFileId`, in id order, of one review state or
   * of all. Reads the job item (to answer 404 for a job the caller may not see), the ids of at most
   * `limit + 1` files per state listed, and the page's files by key. The page covers the first `limit` ids
   * listed; those a committed delivery moved out of the state asked for are left out of it.
   */
  public async files(
    jobId: number,
    principal: Pick<Principal, 'role' | 'accountId'>,
    query: FilesQuery,
  ): Promise<FilesPage> {
    const states: readonly ReviewState[] = query.review === undefined ? REVIEW_STATES : [query.review];
    const [item, lists] = await Promise.all([
      this.table.getJobItem(jobId),
      Promise.all(states.map((state) => this.table.reviewFileIds(jobId, state, query.afterFileId, query.limit + 1))),
    ]);
    if (!visible(item, principal)) throw new JobNotFoundError(jobId);
    const pending = pendingDelivery(item);
    const listed = lists.flat();
    if (pending !== undefined && query.review === 'pending') {
      const after = query.afterFileId ?? Number.NEGATIVE_INFINITY;
      listed.push(...pending.fileIds.filter((fileId) => fileId > after).slice(0, query.limit + 1));
    }
    const ids = [...new Set(listed)].sort((a, b) => a - b);
    const window = ids.slice(0, query.limit);
    const more = ids.length > query.limit;
    const page =
      pending === undefined || query.review === undefined || query.review === 'pending'
        ? window
        : window.filter((fileId) => !pending.has(fileId));
    const items = await this.table.batchGet(
      page.map((fileId) => ({ pk: jobKeys.pk(jobId), sk: jobKeys.fileSk(fileId) })),
    );
    // The index lags the table: a file whose state changed since is left out of a filtered page.
    const files = (items as unknown as FileItem[])
      .filter((file) => file.entity === 'file')
      .map((file) => effectiveFileItem(file, pending))
      .filter((file) => query.review === undefined || currentState(file) === query.review)
      .map(fromFileItem)
      .sort((a, b) => a.id - b.id);
    const fitting = filesWithinBudget(files);
    if (fitting < files.length) return { files: files.slice(0, fitting), continueAfter: files[fitting - 1]!.id };
    return { files, continueAfter: more ? window.at(-1) : undefined };
  }
}
