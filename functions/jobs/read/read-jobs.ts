/**
 * Reading jobs through the API (docs/contract.md §6a): one job by id — one strongly consistent GetItem of
 * its job item, which carries the review counts — and a page of its files for review, whose cost is bounded
 * by the page size whatever the filter: one strongly consistent Query of the partition's padded file keys,
 * filtered to one state's files when a state is asked for, read beside the job item in the same round; a state
 * sparse among the files the Query read goes on from the `byReview` index, its files read by key. A job not yet
 * moved to padded file keys (no `fileKeys` mark) is listed by the index in every case, and its files read at
 * both key forms.
 *
 * Each file carries its pictures (docs/contract.md §6b): `original` and `edited`, `null` until uploaded, an
 * invalid one with its reason, a ready one with its thumbnail, preview and download URLs — presigned GETs signed
 * in the function for this caller, who could read the job, so no other caller ever gets one. The URLs are part of
 * the page's bytes, which its budget counts.
 *
 * A large delivery committed but not yet written to every file (`pending-delivery.ts`) is read as done: its
 * job item lists the delivered ids, which are merged into the `pending` listing and taken out of the other
 * states' listings, and each listed file is read as delivered.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { accountScope, type Principal } from '../../auth/principal';
import { ConfigError } from '../../config';
import { ApiError } from '../../errors';
import { type PictureUrls, unsignedView, type VariantView } from '../../images/picture-urls';
import { hasPaddedFileKeys, jobKeys } from '../../tables';
import { filesWithinBudget } from './files-page-budget';
import { FILE_VIEW_ATTRIBUTES, type FileItem, fromFileItem, type JobItem, jobItemCounts } from '../store/items';
import { type Item, JobsTable, type RetryPolicy } from '../store/jobs-table';
import { jobView, type JobView } from '../store/job-view';
import type { JobFile } from '../model/model';
import { effectiveFileItem, pendingDelivery } from '../store/pending-delivery';
import {
  countStates,
  isDeliveredJob,
  REVIEW_STATES,
  type ReviewFilter,
  type ReviewState,
  reviewStateOf,
  stateOfReviewKey,
} from '../model/review';

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

/** A file as `GET /jobs/{id}/files` answers it: its fields, and its two pictures. */
export interface FileView extends JobFile {
  original: VariantView;
  edited: VariantView;
}

/** A page of files, in id order, and the last file id it covered when more may follow. */
export interface FilesPage {
  files: FileView[];
  /** The id to continue after, or `undefined` on the last page. */
  continueAfter: number | undefined;
}

export interface JobReaderOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** The jobs table's retry policy (`jobs-table.ts`), for tests. */
  retry?: Partial<RetryPolicy>;
  /** Signs the URLs of ready pictures; asked for only when a page holds one. */
  pictures?: () => PictureUrls;
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
  private readonly pictures: (() => PictureUrls) | undefined;

  public constructor(options: JobReaderOptions) {
    this.table = new JobsTable(options.client, options.tableName, options.retry ? { retry: options.retry } : {});
    this.pictures = options.pictures;
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
   * of all, and at most what one response carries ({@link filesWithinBudget}). The job item (to answer 404
   * for a job the caller may not see, and to apply a committed delivery) is read beside the files, in the
   * same round: one strongly consistent Query of the partition's file keys, which sort by id, reading at most
   * `limit + 1` files — of one state, those of them in that state (see {@link statePage}).
   */
  public async files(
    jobId: number,
    principal: Pick<Principal, 'role' | 'accountId'>,
    query: FilesQuery,
  ): Promise<FilesPage> {
    if (query.review !== undefined) {
      const review = query.review;
      const [item, read] = await Promise.all([
        this.table.getJobItem(jobId),
        this.table.filesAfter(jobId, query.afterFileId, query.limit + 1, {
          state: review,
          attributes: FILE_VIEW_ATTRIBUTES,
        }),
      ]);
      if (!visible(item, principal)) throw new JobNotFoundError(jobId);
      if (!hasPaddedFileKeys(item) || pendingDelivery(item) !== undefined) {
        // Files may still be at their former keys, which the Query's range does not hold, or a committed delivery
        // not yet written to its files changes their states as they are read: the index lists the state.
        const listed = await this.table.reviewFileIds(jobId, review, query.afterFileId, query.limit + 1);
        return this.indexedPage(jobId, item!, query, [listed]);
      }
      return this.statePage(jobId, item as unknown as JobItem, { ...query, review }, read);
    }
    const [item, listing] = await Promise.all([
      this.table.getJobItem(jobId),
      this.table.filesAfter(jobId, query.afterFileId, query.limit + 1, { attributes: FILE_VIEW_ATTRIBUTES }),
    ]);
    if (!visible(item, principal)) throw new JobNotFoundError(jobId);
    if (!hasPaddedFileKeys(item)) {
      // Files may still be at their former keys, which the Query's range does not order: listed by the index.
      const lists = await Promise.all(
        REVIEW_STATES.map((state) => this.table.reviewFileIds(jobId, state, query.afterFileId, query.limit + 1)),
      );
      return this.indexedPage(jobId, item!, query, lists);
    }
    const pending = pendingDelivery(item);
    const found = (listing.items as unknown as FileItem[]).filter((file) => file.entity === 'file');
    const files = await this.views(
      item as unknown as JobItem,
      found.slice(0, query.limit).map((file) => effectiveFileItem(file, pending)),
    );
    return budgeted(files, found.length > query.limit || listing.more);
  }

  /**
   * A page of one state from the files the Query read consistently (`read`: of at most `limit + 1` files after
   * the cursor, those in the state). When it found a whole page, or read to the job's last file, that is the
   * page: one round (a whole page with more files to read gets a cursor, even if none of them is in the state).
   * When the state's files are sparse, the Query judged every file up to the last it read, and
   * the `byReview` index lists the state's next ids after that one, read by key like {@link indexedPage} (a file
   * whose state changed since the lagging index listed it is left out). The cost stays bounded by `limit`.
   */
  private async statePage(
    jobId: number,
    job: JobItem,
    query: FilesQuery & { review: ReviewFilter },
    read: { items: Item[]; more: boolean; readThrough?: number },
  ): Promise<FilesPage> {
    const found = (read.items as unknown as FileItem[]).filter((file) => file.entity === 'file');
    if (found.length >= query.limit || !read.more)
      return budgeted(await this.views(job, found.slice(0, query.limit)), found.length > query.limit || read.more);
    const judged = read.readThrough ?? found.at(-1)?.id ?? query.afterFileId;
    const listed = await this.table.reviewFileIds(jobId, query.review, judged, query.limit + 1 - found.length);
    const known = new Set(found.map((file) => file.id));
    const ids = [...known, ...listed.ids.filter((fileId) => !known.has(fileId))].sort((a, b) => a - b);
    const window = ids.slice(0, query.limit);
    const more = ids.length > query.limit || listed.cut;
    const missing = window.filter((fileId) => !known.has(fileId));
    const fetched = await this.table.batchGet(
      missing.map((fileId) => ({ pk: jobKeys.pk(jobId), sk: jobKeys.fileSk(fileId) })),
      FILE_VIEW_ATTRIBUTES,
    );
    const inWindow = new Set(window);
    const fileItems = [
      ...found.filter((file) => inWindow.has(file.id)),
      ...(fetched as unknown as FileItem[]).filter(
        (file) => file.entity === 'file' && inWindow.has(file.id) && currentState(file) === query.review,
      ),
    ].sort((a, b) => a.id - b.id);
    return budgeted(await this.views(job, fileItems), more, window.at(-1));
  }

  /**
   * The files as answered, with their pictures: the URLs of every ready picture signed by one signer, for the
   * job's account.
   */
  private async views(job: JobItem, items: readonly FileItem[]): Promise<FileView[]> {
    const signs = items.some((file) => file.original?.status === 'ready' || file.edited?.status === 'ready');
    let pictures: PictureUrls | undefined;
    if (signs) {
      if (this.pictures === undefined) throw new ConfigError('A file has a picture, and no bucket signs its URLs');
      pictures = this.pictures();
    }
    const view = (file: FileItem, variant: 'original' | 'edited'): Promise<VariantView> | VariantView => {
      const stored = file[variant];
      const unsigned = unsignedView(stored);
      if (unsigned !== undefined) return unsigned;
      const owner = { accountId: job.accountId, jobId: job.id, fileId: file.id };
      return (pictures as PictureUrls).view(owner, variant, file.fileName, stored);
    };
    return Promise.all(
      items.map(async (file) => ({
        ...fromFileItem(file),
        original: await view(file, 'original'),
        edited: await view(file, 'edited'),
      })),
    );
  }

  /**
   * A page from the ids the `byReview` index lists (of one state, or of every state merged): the first
   * `limit` of them, read by key, strongly consistently — at the padded key, and at the former one too while
   * the job item does not say its files were moved. The page covers the first `limit` ids listed; those a
   * committed delivery moved out of the state asked for are left out of it, as are files the lagging index
   * still lists in a state they have left.
   */
  private async indexedPage(
    jobId: number,
    item: Item,
    query: FilesQuery,
    lists: ReadonlyArray<{ ids: number[]; cut: boolean }>,
  ): Promise<FilesPage> {
    // A listing DynamoDB cut short covers the ids up to its last one only; the page ends there.
    const cuts = lists.filter((list) => list.cut).map((list) => list.ids.at(-1) ?? Number.POSITIVE_INFINITY);
    const bound = Math.min(...cuts);
    const listed = lists.flatMap((list) => list.ids).filter((fileId) => fileId <= bound);
    const pending = pendingDelivery(item);
    if (pending !== undefined && query.review === 'pending') {
      const after = query.afterFileId ?? Number.NEGATIVE_INFINITY;
      listed.push(...pending.fileIds.filter((fileId) => fileId > after && fileId <= bound).slice(0, query.limit + 1));
    }
    const ids = [...new Set(listed)].sort((a, b) => a - b);
    const window = ids.slice(0, query.limit);
    const more = ids.length > query.limit || cuts.length > 0;
    const page =
      pending === undefined || query.review === undefined || query.review === 'pending'
        ? window
        : window.filter((fileId) => !pending.has(fileId));
    const sortKeys = hasPaddedFileKeys(item) ? (fileId: number) => [jobKeys.fileSk(fileId)] : jobKeys.fileSks;
    const items = await this.table.batchGet(
      page.flatMap((fileId) => sortKeys(fileId).map((sk) => ({ pk: jobKeys.pk(jobId), sk }))),
      FILE_VIEW_ATTRIBUTES,
    );
    // The index lags the table: a file whose state changed since is left out of a filtered page.
    const fileItems = (items as unknown as FileItem[])
      .filter((file) => file.entity === 'file')
      .map((file) => effectiveFileItem(file, pending))
      .filter((file) => query.review === undefined || currentState(file) === query.review)
      .sort((a, b) => a.id - b.id);
    const files = await this.views(item as unknown as JobItem, fileItems);
    const last = window.at(-1);
    return budgeted(files, more, last);
  }
}

/**
 * A page of files (in id order) cut to what one response carries: when files are left out, or `more`
 * follow, the page continues after its last file (or after `last`, the last id a listing covered).
 */
const budgeted = (files: FileView[], more: boolean, last: number | undefined = files.at(-1)?.id): FilesPage => {
  const fitting = filesWithinBudget(files);
  if (fitting < files.length) return { files: files.slice(0, fitting), continueAfter: files[fitting - 1]!.id };
  return { files, continueAfter: more ? last : undefined };
};
