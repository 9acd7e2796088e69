/**
 * The customer's review as a use case, shared by `POST /reject` and `POST /accept`: locate each requested
 * file, keep the places that lie in jobs the caller may see — decided from the job items alone, before
 * anything of a file is read or written — read those files and their jobs, decide with the action's pure
 * rules (`reject.ts`, `accept.ts`, through `review-plan.ts`), and write the plan as one conditional
 * transaction (`review-transaction.ts`), deciding again from a fresh read when a concurrent writer got
 * there first. A job whose committed delivery is not yet written to every file (`pending-delivery.ts`) has
 * it finished before its files are read: only ever a job the caller may see.
 *
 * So another account's job costs a user what a file id no job has costs, but for the read of its one job
 * item: none of its files is read, its committed delivery is not finished, its counts are not counted, and
 * nothing of the other job's size reaches the answer or its time.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { accountScope, type Principal } from '../../auth/principal';
import { jobKeys } from '../../tables';
import { type FileItem, fromFileItem, jobItemCounts } from '../store/items';
import { type Item, type ItemKey, JobsTable, type RetryPolicy } from '../store/jobs-table';
import type { JobStatus } from '../model/model';
import { RejectContentionError } from './reject';
import { estimatedItemSize } from '../store/item-sizes';
import { countStates, isDeliveredJob, type ReviewCounts, reviewStateOf } from '../model/review';
import type { ReviewPlan, StoredFile } from './review-plan';
import { transactItems } from './review-transaction';
import { mapConcurrently } from '../../async';
import { finishDelivery } from '../delivery/deliver-files';
import { effectiveFileItem, pendingDelivery } from '../store/pending-delivery';

const LOOKUP_CONCURRENCY = 10;

/** How the use case reaches the world; tests replace the clock, the randomness and the waiting. */
export interface ReviewFilesOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** The jobs table's retry policy (`jobs-table.ts`), for tests. */
  retry?: Partial<RetryPolicy>;
  now?: () => Date;
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** Decides a review from the stored files (see `planReview`); throws the action's refusal. */
export type ReviewPlanner<TResponse> = (
  stored: ReadonlyMap<number, StoredFile>,
  principal: Pick<Principal, 'role' | 'accountId'>,
  now: string,
  ambiguous: ReadonlySet<number>,
) => ReviewPlan<TResponse>;

/**
 * The review use case. `review` answers the response body, or throws the action's refusal (nothing
 * written) or {@link RejectContentionError} (retries exhausted, nothing written).
 */
export class ReviewFiles {
  private readonly table: JobsTable;
  private readonly now: () => Date;

  public constructor(options: ReviewFilesOptions) {
    this.now = options.now ?? (() => new Date());
    this.table = new JobsTable(options.client, options.tableName, {
      ...(options.retry === undefined ? {} : { retry: options.retry }),
      ...(options.random === undefined ? {} : { random: options.random }),
      ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
      now: () => this.now().getTime(),
    });
  }

  /**
   * Reviews the files of a validated request on behalf of a caller: the read-check-write runs under the
   * jobs table's contention policy, whose time budget counts from the start of the request.
   */
  public async review<TResponse>(
    fileIds: readonly number[],
    plan: ReviewPlanner<TResponse>,
    principal: Pick<Principal, 'role' | 'accountId'>,
  ): Promise<TResponse> {
    const started = this.now().getTime();
    const locations = await this.visible(await this.locate(fileIds), principal);
    return this.table.underContention(
      async () => {
        const { stored, ambiguous } = await this.read(locations, principal);
        const now = this.now().toISOString();
        const decided = plan(stored, principal, now, ambiguous);
        if (decided.changedJobs.length > 0) {
          await this.table.transactWrite(transactItems(this.table.tableName, decided, now));
        }
        return decided.response;
      },
      (attempts, lastConflict) => new RejectContentionError(attempts, lastConflict),
      started,
    );
  }

  /**
   * Every place each file id lives, from the sparse `byFileId` index: file ids are unique only within a
   * job, so an id may name files of several jobs (and accounts). The index is eventually consistent: a
   * file it does not list yet is treated as not found. A file's location never changes, so it is looked
   * up once per request, not once per attempt.
   */
  private async locate(fileIds: readonly number[]): Promise<Map<number, ItemKey[]>> {
    const found = await mapConcurrently(fileIds, LOOKUP_CONCURRENCY, (fileId) => this.table.locateFile(fileId));
    return new Map(fileIds.map((fileId, index) => [fileId, found[index] ?? []]));
  }

  /**
   * The places of each file id that lie in jobs the caller may see. An operator sees every account, so
   * every place, with no read. For a user, the job item of each job a place lies in (one consistent
   * BatchGetItem of at most one key per place) says whose job it is, and only the places in jobs of the
   * user's account are kept; nothing else of any job is read before this. A job's account never changes,
   * so this is decided once per request, like the places themselves.
   */
  private async visible(
    locations: ReadonlyMap<number, readonly ItemKey[]>,
    principal: Pick<Principal, 'role' | 'accountId'>,
  ): Promise<Map<number, ItemKey[]>> {
    const scope = accountScope(principal);
    if (scope === undefined) return new Map([...locations].map(([fileId, places]) => [fileId, [...places]]));
    const partitions = new Set([...locations.values()].flat().map((key) => key.pk));
    const jobItems = await this.table.batchGet([...partitions].map((pk) => ({ pk, sk: jobKeys.jobSk })));
    const owned = new Set(
      jobItems
        .filter((item) => item.sk === jobKeys.jobSk && item.entity === 'job' && item.accountId === scope)
        .map((item) => item.pk),
    );
    return new Map([...locations].map(([fileId, places]) => [fileId, places.filter((key) => owned.has(key.pk))]));
  }

  /**
   * The current state of each file id's file within the caller's accounts, read strongly consistently by
   * key with its job. A file of an account the caller may not see is never a candidate ({@link visible}),
   * so it can be neither read, found nor changed; an id naming several files the caller may see is
   * `ambiguous`.
   */
  private async read(
    locations: ReadonlyMap<number, readonly ItemKey[]>,
    principal: Pick<Principal, 'role' | 'accountId'>,
  ): Promise<{ stored: Map<number, StoredFile>; ambiguous: Set<number> }> {
    const candidates = [...locations.values()].flat();
    const jobPartitions = new Set(candidates.map((key) => key.pk));
    const keys: ItemKey[] = [...candidates, ...[...jobPartitions].map((pk) => ({ pk, sk: jobKeys.jobSk }))];
    const items = await this.readSettled(keys);
    const scope = accountScope(principal);
    const counts = await this.legacyCounts(items);
    const stored = new Map<number, StoredFile>();
    const ambiguous = new Set<number>();
    for (const [fileId, places] of locations) {
      const visible: StoredFile[] = [];
      for (const location of places) {
        const fileItem = items.get(`${location.pk}\u0000${location.sk}`);
        const jobItem = items.get(`${location.pk}\u0000${jobKeys.jobSk}`);
        if (fileItem?.entity !== 'file' || fileItem.fileId !== fileId || jobItem?.entity !== 'job') continue;
        if (scope !== undefined && jobItem.accountId !== scope) continue;
        // A delivery committed since the jobs were settled: decided on as delivered, its write then fails
        // on the job's condition and the next attempt finishes the delivery first.
        const effective = effectiveFileItem(fileItem as unknown as FileItem, pendingDelivery(jobItem));
        visible.push({
          job: {
            id: jobItem.id as number,
            accountId: jobItem.accountId as number,
            status: jobItem.status as JobStatus,
            version: jobItem.version as number,
            itemBytes: estimatedItemSize(jobItem),
            fileCount: jobItem.fileCount as number,
            counts: jobItemCounts(jobItem) ?? counts.get(jobItem.id as number) ?? countStates([]),
            countsStored: jobItemCounts(jobItem) !== undefined,
          },
          file: fromFileItem(effective),
          item: effective,
        });
      }
      if (visible.length > 1) ambiguous.add(fileId);
      else if (visible.length === 1) stored.set(fileId, visible[0] as StoredFile);
    }
    return { stored, ambiguous };
  }

  /**
   * The items of the keys, read consistently by key, after finishing any committed delivery a job item
   * read records (then read again).
   */
  private async readSettled(keys: readonly ItemKey[]): Promise<Map<string, Item>> {
    const read = async () => {
      const items = new Map<string, Item>();
      for (const item of await this.table.batchGet(keys)) items.set(`${item.pk}\u0000${item.sk}`, item);
      return items;
    };
    const items = await read();
    const pending = [...items.values()].filter(
      (item) => item.sk === jobKeys.jobSk && pendingDelivery(item) !== undefined,
    );
    if (pending.length === 0) return items;
    await mapConcurrently(pending, LOOKUP_CONCURRENCY, (item) => finishDelivery(this.table, item.id as number));
    return read();
  }

  /**
   * The review counts of job items read that were written before they existed, counted from each such
   * job's files (one consistent Query of its partition); the review's write stores them.
   */
  private async legacyCounts(items: ReadonlyMap<string, Item>): Promise<Map<number, ReviewCounts>> {
    const legacy = [...items.values()].filter((item) => item.entity === 'job' && jobItemCounts(item) === undefined);
    const counted = await mapConcurrently(legacy, LOOKUP_CONCURRENCY, async (item) => {
      const stored = await this.table.readJob(item.id as number);
      const delivered = stored === undefined ? false : isDeliveredJob(stored.job);
      return countStates((stored?.job.files ?? []).map((file) => reviewStateOf(file, delivered)));
    });
    return new Map(legacy.map((item, index) => [item.id as number, counted[index] ?? countStates([])]));
  }
}
