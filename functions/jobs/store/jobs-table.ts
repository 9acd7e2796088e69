/**
 * The jobs-table gateway: every DynamoDB request on the jobs table — the reject use case's lookups, reads
 * and transaction, the indexer's consistent reads, the repository's upserts and deletes, the import's
 * batched creates and the admin tools' scans — is sent from here, under one retry policy and one
 * classifier of failures.
 *
 * - Every request's failure goes through `dynamoFailure` (`functions/aws/failures.ts`): an unavailable
 *   DynamoDB becomes `DependencyUnavailableError('dynamodb')` (answered `503`), a lost race is thrown as
 *   it came, anything else too.
 * - One {@link RetryPolicy} paces every "try again" the table answers: a read-check-write that lost a
 *   race ({@link JobsTable.underContention}), keys a BatchGetItem left unprocessed, items a BatchWriteItem
 *   left unprocessed — full-jitter exponential backoff, bounded in attempts and in time (`table-retries.ts`).
 *
 * The gateway knows the table's keys and index, not the job model's rules: what to write is decided by
 * its callers (`repository.ts`, `batch-create.ts`, `reject-files.ts`).
 */
import {
  BatchGetCommand,
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  type PutCommandInput,
  QueryCommand,
  type QueryCommandOutput,
  ScanCommand,
  type ScanCommandInput,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { DYNAMODB, dynamoFailure } from '../../aws/failures';
import { DependencyUnavailableError } from '../../errors';
import { JOBS_TABLE, jobKeys } from '../../tables';
import { fromItems, SEARCHED_ATTRIBUTES, type StoredJob } from './items';
import { reviewKey, type ReviewState } from '../model/review';

/** An item as DynamoDB returns it. */
export type Item = Record<string, unknown>;

/** The primary key of an item of the jobs table. */
export interface ItemKey {
  pk: string;
  sk: string;
}

/** One item of a TransactWriteItems request. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** One request of a BatchWriteItem call. */
export type WriteRequest = { PutRequest: { Item: object } } | { DeleteRequest: { Key: ItemKey } };

import { type JobsTableOptions, TableRetries } from './table-retries';

export { DEFAULT_RETRY_POLICY, OPERATOR_RETRY_POLICY, type RetryPolicy } from './retry-policy';
export type { JobsTableOptions } from './table-retries';

/** DynamoDB's limits on one BatchGetItem and one BatchWriteItem request. */
const BATCH_GET_KEYS = 100;
const BATCH_WRITE_ITEMS = 25;

/** Keys as the `byFileId` index lists them, each job's padded key of the file added where it is missing. */
const withPaddedKeys = (keys: readonly ItemKey[], fileId: number): ItemKey[] => {
  const seen = new Set<string>();
  const all: ItemKey[] = [];
  for (const key of [...keys, ...keys.map(({ pk }) => ({ pk, sk: jobKeys.fileSk(fileId) }))]) {
    const id = `${key.pk}\u0000${key.sk}`;
    if (seen.has(id)) continue;
    seen.add(id);
    all.push(key);
  }
  return all;
};

/** The parameters of a request that reads only the named attributes of each item (all without names). */
const projectionOf = (
  attributes: readonly string[] | undefined,
): { ProjectionExpression?: string; ExpressionAttributeNames?: Record<string, string> } =>
  attributes === undefined
    ? {}
    : {
        ProjectionExpression: attributes.map((_, position) => `#a${position}`).join(', '),
        ExpressionAttributeNames: Object.fromEntries(
          attributes.map((attribute, position) => [`#a${position}`, attribute]),
        ),
      };

/** The jobs table, request by request. */
export class JobsTable extends TableRetries {
  public readonly tableName: string;
  private readonly client: DynamoDBDocumentClient;

  public constructor(client: DynamoDBDocumentClient, tableName: string, options: JobsTableOptions = {}) {
    super(options);
    this.client = client;
    this.tableName = tableName;
  }

  /** Sends one request, its failure classified by `dynamoFailure`. */
  private async call<T>(send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      throw dynamoFailure(error);
    }
  }

  /**
   * Every item of a job's partition, all pages (strongly consistent when `consistent`): each item whole, or
   * only the named attributes when `attributes` is given.
   */
  public async readPartition(jobId: number, consistent: boolean, attributes?: readonly string[]): Promise<Item[]> {
    const projection = projectionOf(attributes);
    const items: Item[] = [];
    let exclusiveStartKey: Item | undefined;
    do {
      const page: QueryCommandOutput = await this.call(() =>
        this.client.send(
          new QueryCommand({
            TableName: this.tableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': jobKeys.pk(jobId) },
            ConsistentRead: consistent,
            ExclusiveStartKey: exclusiveStartKey,
            ...projection,
          }),
        ),
      );
      items.push(...(page.Items ?? []));
      exclusiveStartKey = page.LastEvaluatedKey;
    } while (exclusiveStartKey !== undefined);
    return items;
  }

  /**
   * A job with its files and version, or undefined when the table has no job item for it. Strongly
   * consistent unless `consistent: false`.
   */
  public async readJob(jobId: number, options: { consistent?: boolean } = {}): Promise<StoredJob | undefined> {
    return fromItems(await this.readPartition(jobId, options.consistent ?? true));
  }

  /**
   * What a job's search document is built from, read strongly consistently: the job with only the fields
   * {@link SEARCHED_ATTRIBUTES} names (its files' reviews are never read), or undefined when the table has no job
   * item for it.
   */
  public async readSearchedJob(jobId: number): Promise<StoredJob | undefined> {
    return fromItems(await this.readPartition(jobId, true, SEARCHED_ATTRIBUTES));
  }

  /** The job item of a job, read strongly consistently (one GetItem), or undefined when there is none. */
  public async getJobItem(jobId: number): Promise<Item | undefined> {
    const { Item: item } = await this.call(() =>
      this.client.send(
        new GetCommand({
          TableName: this.tableName,
          Key: { pk: jobKeys.pk(jobId), sk: jobKeys.jobSk },
          ConsistentRead: true,
        }),
      ),
    );
    return item;
  }

  /**
   * The file items of a job after `afterFileId` (every file without one), in id order: one strongly consistent
   * Query of the padded sort keys' range that reads at most `limit` items. With `state`, only the files in that
   * review state are answered (a filter on `reviewKey`: the items read and not answered cost as much as the
   * others, so the cost stays bounded by `limit`). DynamoDB ends a Query at `limit` items read or 1 MB, so
   * `more` says when it stopped with more to read, and `readThrough` is then the id of the last file it read:
   * every file up to it was judged. With `attributes`, each item answered holds only those.
   */
  public async filesAfter(
    jobId: number,
    afterFileId: number | undefined,
    limit: number,
    options: { state?: ReviewState; attributes?: readonly string[] } = {},
  ): Promise<{ items: Item[]; more: boolean; readThrough?: number }> {
    const range = jobKeys.filesAfter(afterFileId);
    if (range === undefined) return { items: [], more: false };
    const { state } = options;
    const { ExpressionAttributeNames: projected, ...projection } = projectionOf(options.attributes);
    const { Items, LastEvaluatedKey } = await this.call(() =>
      this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
          ...projection,
          ExpressionAttributeNames: {
            '#pk': 'pk',
            '#sk': 'sk',
            ...(state === undefined ? {} : { '#state': 'reviewKey' }),
            ...projected,
          },
          ExpressionAttributeValues: {
            ':pk': jobKeys.pk(jobId),
            ':from': range.from,
            ':to': range.to,
            ...(state === undefined ? {} : { ':state': reviewKey(jobId, state) }),
          },
          ...(state === undefined ? {} : { FilterExpression: '#state = :state' }),
          ConsistentRead: true,
          Limit: limit,
        }),
      ),
    );
    if (LastEvaluatedKey === undefined) return { items: Items ?? [], more: false };
    const readThrough = jobKeys.fileIdOfSk(LastEvaluatedKey.sk);
    return { items: Items ?? [], more: true, ...(readThrough === undefined ? {} : { readThrough }) };
  }

  /**
   * The ids of up to `limit` files of a job in one review state, after `afterFileId`, in id order, from the
   * `byReview` index (one Query that reads only those keys; the index is eventually consistent). `cut`
   * says DynamoDB ended the Query at its 1 MB before `limit` ids: ids after the last one may follow.
   */
  public async reviewFileIds(
    jobId: number,
    state: ReviewState,
    afterFileId: number | undefined,
    limit: number,
  ): Promise<{ ids: number[]; cut: boolean }> {
    const { Items, LastEvaluatedKey } = await this.call(() =>
      this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: JOBS_TABLE.globalSecondaryIndexes[1].indexName,
          KeyConditionExpression:
            afterFileId === undefined ? '#reviewKey = :key' : '#reviewKey = :key AND #fileId > :after',
          ExpressionAttributeNames: {
            '#reviewKey': 'reviewKey',
            ...(afterFileId === undefined ? {} : { '#fileId': 'fileId' }),
          },
          ExpressionAttributeValues: {
            ':key': reviewKey(jobId, state),
            ...(afterFileId === undefined ? {} : { ':after': afterFileId }),
          },
          Limit: limit,
        }),
      ),
    );
    const ids = (Items ?? []).map((item) => item.fileId).filter((id): id is number => typeof id === 'number');
    return { ids, cut: LastEvaluatedKey !== undefined && ids.length < limit };
  }

  /**
   * The keys of every file item a file id names, from the sparse `byFileId` index, all pages. File ids are
   * unique only within a job, so there may be several; the index is eventually consistent. Each job the
   * index names is given the file's padded key too (no key twice): while the migration moves a file to it,
   * the index may still name the former key a moment, and a read of both finds the file where it is.
   */
  public async locateFile(fileId: number): Promise<ItemKey[]> {
    const keys: ItemKey[] = [];
    let startKey: Item | undefined;
    do {
      const { Items, LastEvaluatedKey }: QueryCommandOutput = await this.call(() =>
        this.client.send(
          new QueryCommand({
            TableName: this.tableName,
            IndexName: JOBS_TABLE.globalSecondaryIndexes[0].indexName,
            KeyConditionExpression: '#fileId = :fileId',
            ExpressionAttributeNames: { '#fileId': 'fileId' },
            ExpressionAttributeValues: { ':fileId': fileId },
            ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
          }),
        ),
      );
      for (const item of Items ?? []) {
        if (typeof item.pk === 'string' && typeof item.sk === 'string') keys.push({ pk: item.pk, sk: item.sk });
      }
      startKey = LastEvaluatedKey;
    } while (startKey !== undefined);
    return withPaddedKeys(keys, fileId);
  }

  /**
   * The items of the keys that exist, read strongly consistently, 100 keys per request; keys left
   * unprocessed are asked for again under the retry policy, then reported as DynamoDB unavailable. With
   * `attributes`, each item holds only those.
   */
  public async batchGet(keys: readonly ItemKey[], attributes?: readonly string[]): Promise<Item[]> {
    const projection = projectionOf(attributes);
    const items: Item[] = [];
    for (let start = 0; start < keys.length; start += BATCH_GET_KEYS) {
      let pending: Item[] = keys.slice(start, start + BATCH_GET_KEYS).map((key) => ({ ...key }));
      await this.retrying(
        async () => {
          const batch = pending;
          const { Responses, UnprocessedKeys } = await this.call(() =>
            this.client.send(
              new BatchGetCommand({
                RequestItems: { [this.tableName]: { Keys: batch, ConsistentRead: true, ...projection } },
              }),
            ),
          );
          items.push(...(Responses?.[this.tableName] ?? []));
          pending = UnprocessedKeys?.[this.tableName]?.Keys ?? [];
          return pending.length === 0 ? { done: true, value: undefined } : { done: false, reason: undefined };
        },
        () => new DependencyUnavailableError(DYNAMODB, new Error('BatchGetItem left keys unprocessed')),
      );
    }
    return items;
  }

  /** One item by its key, read strongly consistently; undefined when there is none. */
  public async getItem(key: ItemKey): Promise<Item | undefined> {
    const { Item: item } = await this.call(() =>
      this.client.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true })),
    );
    return item;
  }

  /**
   * One PutItem request (conditional when the input says so). A failed condition is thrown as it came
   * (`ConditionalCheckFailedException`), for the caller to read the item and decide.
   */
  public async putItem(input: Omit<PutCommandInput, 'TableName'>): Promise<void> {
    await this.call(() => this.client.send(new PutCommand({ TableName: this.tableName, ...input })));
  }

  /** One UpdateItem request; answers the attributes the input's `ReturnValues` asks for. */
  public async updateItem(input: Omit<UpdateCommandInput, 'TableName'>): Promise<Item | undefined> {
    const { Attributes } = await this.call(() =>
      this.client.send(new UpdateCommand({ TableName: this.tableName, ...input })),
    );
    return Attributes;
  }

  /**
   * One TransactWriteItems request. A lost race is thrown as it came, for {@link underContention} (or the
   * caller, which reads the cancellation reasons) to handle.
   */
  public async transactWrite(items: TransactItem[]): Promise<void> {
    await this.call(() => this.client.send(new TransactWriteCommand({ TransactItems: items })));
  }

  /**
   * Writes requests 25 per BatchWriteItem request; items left unprocessed are sent again under the retry
   * policy, then reported as DynamoDB unavailable.
   */
  public async batchWrite(requests: readonly WriteRequest[]): Promise<void> {
    for (let start = 0; start < requests.length; start += BATCH_WRITE_ITEMS) {
      let pending = requests.slice(start, start + BATCH_WRITE_ITEMS);
      await this.retrying(
        async () => {
          const batch = pending;
          const output = await this.call(() =>
            this.client.send(
              new BatchWriteCommand({
                RequestItems: { [this.tableName]: batch as Array<{ PutRequest?: { Item: Item } }> },
              }),
            ),
          );
          pending = (output.UnprocessedItems?.[this.tableName] ?? []) as WriteRequest[];
          return pending.length === 0 ? { done: true, value: undefined } : { done: false, reason: undefined };
        },
        () => new DependencyUnavailableError(DYNAMODB, new Error('BatchWriteItem left items unprocessed')),
      );
    }
  }

  /** Scans the table page by page. */
  public async *scanPages(input: Omit<ScanCommandInput, 'TableName' | 'ExclusiveStartKey'>): AsyncIterable<Item[]> {
    let exclusiveStartKey: Item | undefined;
    do {
      const page = await this.call(() =>
        this.client.send(
          new ScanCommand({ TableName: this.tableName, ...input, ExclusiveStartKey: exclusiveStartKey }),
        ),
      );
      yield page.Items ?? [];
      exclusiveStartKey = page.LastEvaluatedKey;
    } while (exclusiveStartKey !== undefined);
  }
}
