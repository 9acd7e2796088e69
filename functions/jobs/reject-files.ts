/**
 * The reject use case: find each requested file among the files the caller may change, read the files
 * and their jobs, decide with the pure rules of `reject.ts`, and write the plan as one conditional
 * transaction (`reject-transaction.ts`), deciding again when a concurrent writer got there first.
 */
import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { accountScope, type Principal } from '../auth/principal';
import { DependencyUnavailableError } from '../errors';
import { JOBS_TABLE, jobKeys } from '../tables';
import { type FileItem, fromFileItem } from './items';
import type { JobStatus } from './model';
import { planRejection, RejectContentionError, type StoredFile } from './reject';
import type { RejectRequest } from './model';
import { estimatedItemSize } from './reject-sizes';
import { isWriteConflict } from '../aws/failures';
import { transactItems } from './reject-transaction';
import { mapConcurrently, sleep } from '../async';

interface ItemKey {
  pk: string;
  sk: string;
}

const LOOKUP_CONCURRENCY = 10;
const BATCH_GET_LIMIT = 100;
const BATCH_GET_ATTEMPTS = 5;

/** Retry timing: full-jitter exponential backoff, bounded in attempts and in total time. */
export interface RetryPolicy {
  /** Attempts of the whole read-check-write, the first included. */
  maxAttempts: number;
  /** Upper bound of the first backoff, in milliseconds; doubles per attempt. */
  baseDelayMs: number;
  /** Upper bound of any one backoff, in milliseconds. */
  maxDelayMs: number;
  /** No new attempt starts once this much time has passed since the request began, in milliseconds. */
  budgetMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 10, baseDelayMs: 20, maxDelayMs: 400, budgetMs: 7_000 };

/** How the use case reaches the world; tests replace the clock, the randomness and the waiting. */
export interface RejectFilesOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  retry?: Partial<RetryPolicy>;
  now?: () => Date;
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * The reject use case. `run` answers the response body, or throws {@link FileRejectionRefusedError}
 * (nothing written) or {@link RejectContentionError} (retries exhausted, nothing written).
 */
export class RejectFiles {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly retry: RetryPolicy;
  private readonly now: () => Date;
  private readonly random: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  public constructor(options: RejectFilesOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.now = options.now ?? (() => new Date());
    this.random = options.random ?? Math.random;
    this.sleep = options.sleep ?? sleep;
  }

  /** Rejects the files of a validated request on behalf of a caller. */
  public async run(request: RejectRequest, principal: Pick<Principal, 'role' | 'accountId'>) {
    const started = this.now().getTime();
    const locations = await this.locate(request.files.map((file) => file.fileId));
    let lastContention: unknown;
    for (let attempt = 1; attempt <= this.retry.maxAttempts; attempt += 1) {
      const { stored, ambiguous } = await this.read(locations, principal);
      const now = this.now().toISOString();
      const plan = planRejection(request, stored, principal, now, ambiguous);
      if (plan.changedJobs.length === 0) return plan.response;
      try {
        await this.client.send(new TransactWriteCommand({ TransactItems: transactItems(this.tableName, plan, now) }));
        return plan.response;
      } catch (error) {
        if (!isWriteConflict(error)) throw error;
        lastContention = error;
      }
      const delay = this.random() * Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
      if (this.now().getTime() + delay - started > this.retry.budgetMs) {
        throw new RejectContentionError(attempt, lastContention);
      }
      await this.sleep(delay);
    }
    throw new RejectContentionError(this.retry.maxAttempts, lastContention);
  }

  /**
   * Every place each file id lives, from the sparse `byFileId` index: file ids are unique only within a
   * job, so an id may name files of several jobs (and accounts). The index is eventually consistent: a
   * file it does not list yet is treated as not found. A file's location never changes, so it is looked
   * up once per request, not once per attempt.
   */
  private async locate(fileIds: readonly number[]): Promise<Map<number, ItemKey[]>> {
    const found = await mapConcurrently(fileIds, LOOKUP_CONCURRENCY, async (fileId) => {
      const keys: ItemKey[] = [];
      let startKey: Record<string, unknown> | undefined;
      do {
        const { Items, LastEvaluatedKey } = await this.client.send(
          new QueryCommand({
            TableName: this.tableName,
            IndexName: JOBS_TABLE.globalSecondaryIndexes[0].indexName,
            KeyConditionExpression: '#fileId = :fileId',
            ExpressionAttributeNames: { '#fileId': 'fileId' },
            ExpressionAttributeValues: { ':fileId': fileId },
            ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
          }),
        );
        for (const item of Items ?? []) {
          if (typeof item.pk === 'string' && typeof item.sk === 'string') keys.push({ pk: item.pk, sk: item.sk });
        }
        startKey = LastEvaluatedKey;
      } while (startKey !== undefined);
      return keys;
    });
    return new Map(fileIds.map((fileId, index) => [fileId, found[index] ?? []]));
  }

  /**
   * The current state of each file id's file within the caller's accounts, read strongly consistently by
   * key with its job. A file of an account the caller may not see is never a candidate, so it can be
   * neither found nor changed; an id naming several files the caller may see is `ambiguous`.
   */
  private async read(
    locations: ReadonlyMap<number, readonly ItemKey[]>,
    principal: Pick<Principal, 'role' | 'accountId'>,
  ): Promise<{ stored: Map<number, StoredFile>; ambiguous: Set<number> }> {
    const candidates = [...locations.values()].flat();
    const jobPartitions = new Set(candidates.map((key) => key.pk));
    const keys: ItemKey[] = [...candidates, ...[...jobPartitions].map((pk) => ({ pk, sk: jobKeys.jobSk }))];
    const items = await this.batchGet(keys);
    const scope = accountScope(principal);
    const stored = new Map<number, StoredFile>();
    const ambiguous = new Set<number>();
    for (const [fileId, places] of locations) {
      const visible: StoredFile[] = [];
      for (const location of places) {
        const fileItem = items.get(`${location.pk}\u0000${location.sk}`);
        const jobItem = items.get(`${location.pk}\u0000${jobKeys.jobSk}`);
        if (fileItem?.entity !== 'file' || fileItem.fileId !== fileId || jobItem?.entity !== 'job') continue;
        if (scope !== undefined && jobItem.accountId !== scope) continue;
        visible.push({
          job: {
            id: jobItem.id as number,
            accountId: jobItem.accountId as number,
            status: jobItem.status as JobStatus,
            version: jobItem.version as number,
            itemBytes: estimatedItemSize(jobItem),
          },
          file: fromFileItem(fileItem as unknown as FileItem),
          item: fileItem as unknown as FileItem,
        });
      }
      if (visible.length > 1) ambiguous.add(fileId);
      else if (visible.length === 1) stored.set(fileId, visible[0] as StoredFile);
    }
    return { stored, ambiguous };
  }

  private async batchGet(keys: readonly ItemKey[]): Promise<Map<string, Record<string, unknown>>> {
    const items = new Map<string, Record<string, unknown>>();
    for (let start = 0; start < keys.length; start += BATCH_GET_LIMIT) {
      let pending: Array<Record<string, unknown>> = keys
        .slice(start, start + BATCH_GET_LIMIT)
        .map((key) => ({ ...key }));
      for (let attempt = 1; pending.length > 0; attempt += 1) {
        if (attempt > BATCH_GET_ATTEMPTS) throw new DependencyUnavailableError('DynamoDB');
        if (attempt > 1) await this.sleep(this.random() * this.retry.baseDelayMs * 2 ** (attempt - 1));
        const { Responses, UnprocessedKeys } = await this.client.send(
          new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: pending, ConsistentRead: true } } }),
        );
        for (const item of Responses?.[this.tableName] ?? []) items.set(`${item.pk}\u0000${item.sk}`, item);
        pending = UnprocessedKeys?.[this.tableName]?.Keys ?? [];
      }
    }
    return items;
  }
}
