/**
 * The jobs store: reads and writes whole jobs (the job item and its file items, one partition per job)
 * and keeps the job item's `version` honest, so the stream indexer can order every change.
 *
 * Writes are idempotent upserts under an optimistic lock on `version`. A job that fits in one
 * transaction (≤ 100 item writes) is written atomically; a larger one is written files first and the
 * job item's version bump last: the stream only triggers the indexer on job items and the indexer reads
 * the whole partition consistently, so the index can only see a half-written large job briefly, and the
 * final version bump always brings it up to date. Imports create new jobs in shared transactions
 * without reading them first (`batch-create.ts`).
 */
import type { DynamoDBDocumentClient, ScanCommandInput } from '@aws-sdk/lib-dynamodb';
import { mapConcurrently } from '../../async';
import { jobKeys } from '../../tables';
import { type BatchCreateOptions, createJobsInBatches, JobSupersededError } from './batch-create';
import { claimImportIds } from './id-allocator';
import { type FileItem, fromItems, type JobItem, type StoredJob } from './items';
import { type Item, JobsTable, type RetryPolicy, type TransactItem } from './jobs-table';
import type { Job } from '../model/model';
import { imagesAsRead } from './kept-images';
import { writeNewJob } from './new-job';
import { planWrite, type WritePlan } from './write-plan';

export { JobSupersededError } from './batch-create';
export type { StoredJob } from './items';
export { planWrite, sameItem, type WritePlan } from './write-plan';

/** What an upsert did: wrote a new job, changed an existing one, or found it identical. */
export type PutOutcome = 'created' | 'updated' | 'unchanged';

/** The result of one upsert: the outcome and the job's version afterwards. */
export interface PutResult {
  jobId: number;
  outcome: PutOutcome;
  version: number;
}

/** A job with its version, as the table holds it (for comparing the table with the index). */
export type StoredVersion = Pick<PutResult, 'jobId' | 'version'>;

export interface JobRepositoryOptions {
  /** The jobs table's retry policy (`jobs-table.ts`), for tests; an upsert's attempts are its `maxAttempts`. */
  retry?: Partial<RetryPolicy>;
  /** Items per Scan page. */
  scanPageSize?: number;
  /**
   * Most item writes done as one transaction (DynamoDB's limit is 100); a larger write goes files first,
   * in batches, and the job item last.
   */
  maxTransactionItems?: number;
}

/** Every attempt of an upsert lost an optimistic-lock race against concurrent writers of the same job. */
export class JobWriteConflictError extends Error {
  public readonly jobId: number;

  public constructor(jobId: number, attempts: number, cause?: unknown) {
    super(`Job ${jobId} was changed concurrently on each of ${attempts} attempts`, { cause });
    this.name = 'JobWriteConflictError';
    this.jobId = jobId;
  }
}

/** Conditional PutItems of replaced file items in flight at once, when a job is too large for one transaction. */
const REPLACED_FILE_CONCURRENCY = 8;

/** The largest number of item writes DynamoDB accepts in one TransactWriteItems request. */
export const MAX_TRANSACTION_ITEMS = 100;

/** The jobs table, read and written job by job. */
export class JobRepository {
  /** The gateway every request of the repository goes through. */
  private readonly table: JobsTable;
  private readonly scanPageSize: number;
  private readonly maxTransactionItems: number;

  public constructor(client: DynamoDBDocumentClient, tableName: string, options: JobRepositoryOptions = {}) {
    this.table = new JobsTable(client, tableName, options.retry === undefined ? {} : { retry: options.retry });
    this.scanPageSize = options.scanPageSize ?? 1_000;
    this.maxTransactionItems = Math.max(
      1,
      Math.min(MAX_TRANSACTION_ITEMS, options.maxTransactionItems ?? MAX_TRANSACTION_ITEMS),
    );
  }

  /**
   * A job with its files and version, or undefined when the table has no job item for it. Strongly
   * consistent unless `consistent: false`.
   */
  public async getJob(jobId: number, options: { consistent?: boolean } = {}): Promise<StoredJob | undefined> {
    return this.table.readJob(jobId, options);
  }

  /**
   * What the job's search document is built from, read strongly consistently: the job's own fields and its
   * files' names, tags and instructions (`SEARCHED_ATTRIBUTES` in `items.ts`), never the files' reviews; its
   * files' other fields are as an unreviewed file has them. Undefined when the table has no job item for it.
   */
  public async getSearchedJob(jobId: number): Promise<StoredJob | undefined> {
    return this.table.readSearchedJob(jobId);
  }

  /**
   * Creates or replaces a job with its files. Writes nothing when the table already holds exactly this
   * job (a rerun of an import bumps no version); otherwise writes the changed files, deletes the files
   * the job no longer has and bumps the version, conditioned on the version read, re-reading and
   * retrying when a concurrent writer got there first.
   */
  public async putJob(job: Job): Promise<PutResult> {
    return this.writeWithRetry(job, (items) => planWrite(job, items));
  }

  /**
   * Writes one job for an import: creates it, or changes it against the state read, conditioned on that
   * state's version. A job another writer changed since an import last wrote it (a rejection, an edit,
   * also one racing this write) keeps that newer change: it is refused with {@link JobSupersededError},
   * unless the table already holds exactly the imported job.
   */
  public async importJob(job: Job): Promise<PutResult> {
    return this.writeWithRetry(job, (items) => {
      const plan = planWrite(job, items, Date.now(), { imported: true });
      const stored = items.find((item) => item.sk === jobKeys.jobSk) as JobItem | undefined;
      if (plan.jobItem !== undefined && stored !== undefined && stored.importedVersion !== stored.version) {
        throw new JobSupersededError(job.id);
      }
      return plan;
    });
  }

  /**
   * Reads the job's partition, plans the write from it and writes it conditioned on the version read,
   * under the table's contention policy: a concurrent writer that got there first means a fresh read and
   * another attempt, and {@link JobWriteConflictError} once the policy gives up.
   */
  private writeWithRetry(job: Job, plan: (items: Item[]) => WritePlan): Promise<PutResult> {
    return this.table.underContention(
      async () => {
        const planned = plan(await this.table.readPartition(job.id, true));
        if (planned.jobItem === undefined) return { jobId: job.id, outcome: 'unchanged', version: planned.version };
        await this.write(planned, planned.jobItem);
        return {
          jobId: job.id,
          outcome: planned.expectedVersion === undefined ? 'created' : 'updated',
          version: planned.version,
        };
      },
      (attempts, lastConflict) => new JobWriteConflictError(job.id, attempts, lastConflict),
    );
  }

  /**
   * Writes a job that has never existed (its ids are new: `id-allocator.ts`) without reading first: one
   * transaction when it fits, else its files first and its job item last, every item conditioned on
   * `attribute_not_exists(pk)` (`new-job.ts`). Until that last write nothing of the job is visible to a read, the
   * indexer or search (file items alone are never a job), so a failure halfway leaves no job behind; an id that
   * is taken fails the write, never overwrites. `commitWith` items commit in the job item's own transaction.
   * Answers the job item written.
   */
  public createJob(job: Job, version: number, options: { commitWith?: TransactItem[] } = {}): Promise<JobItem> {
    return writeNewJob(this.table, job, version, { ...options, transactionItems: this.maxTransactionItems });
  }

  /**
   * Which of these job ids the table holds a job item for (consistent BatchGetItem reads, 100 keys each),
   * so that writing them again (`seed-demo --force`) goes the careful way at once instead of sending
   * transactions that can only be cancelled.
   */
  public async existingJobIds(ids: readonly number[]): Promise<Set<number>> {
    const items = await this.table.batchGet(ids.map((id) => ({ pk: jobKeys.pk(id), sk: jobKeys.jobSk })));
    return new Set(items.map((item) => item.id as number));
  }

  /**
   * Claims the ids an import is about to write: answers those the API assigned (not to be written) and
   * keeps the API from ever assigning the others (`id-allocator.ts`).
   */
  public claimImportIds(ids: Iterable<number>): Promise<Set<number>> {
    return claimImportIds(this.table, ids);
  }

  /**
   * Imports many jobs (each id at most once): new jobs are created several per transaction without
   * being read, existing ones go through {@link importJob}. One settled result per job, in input order.
   */
  public importJobs(
    jobs: readonly Job[],
    options: BatchCreateOptions = {},
  ): Promise<PromiseSettledResult<PutResult>[]> {
    return createJobsInBatches({ table: this.table, fallback: (job) => this.importJob(job) }, jobs, {
      transactionItems: this.maxTransactionItems,
      ...options,
    });
  }

  /** Upserts many jobs, at most `concurrency` at a time; results in input order. */
  public putJobs(jobs: readonly Job[], options: { concurrency?: number } = {}): Promise<PutResult[]> {
    return mapConcurrently(jobs, options.concurrency ?? 8, (job) => this.putJob(job));
  }

  /**
   * Deletes a job and its files; returns whether it existed. The job item goes first (conditioned on the
   * version read), so the indexer sees the job gone with the version of its last state.
   */
  public deleteJob(jobId: number): Promise<boolean> {
    return this.table.underContention(
      async () => {
        const items = await this.table.readPartition(jobId, true);
        const jobItem = items.find((item) => item.sk === jobKeys.jobSk) as JobItem | undefined;
        const fileKeys = items.filter((item) => item.sk !== jobKeys.jobSk).map((item) => item.sk as string);
        if (jobItem === undefined && fileKeys.length === 0) return false;
        const jobDelete: TransactItem[] =
          jobItem === undefined
            ? []
            : [
                {
                  Delete: {
                    TableName: this.table.tableName,
                    Key: { pk: jobKeys.pk(jobId), sk: jobKeys.jobSk },
                    ConditionExpression: 'version = :expected',
                    ExpressionAttributeValues: { ':expected': jobItem.version },
                  },
                },
              ];
        if (jobDelete.length + fileKeys.length <= this.maxTransactionItems) {
          await this.table.transactWrite([
            ...jobDelete,
            ...fileKeys.map((sk) => ({
              Delete: { TableName: this.table.tableName, Key: { pk: jobKeys.pk(jobId), sk } },
            })),
          ]);
        } else {
          if (jobDelete.length > 0) await this.table.transactWrite(jobDelete);
          await this.table.batchWrite(
            fileKeys.map((sk) => ({ DeleteRequest: { Key: { pk: jobKeys.pk(jobId), sk } } })),
          );
        }
        return jobItem !== undefined;
      },
      (attempts, lastConflict) => new JobWriteConflictError(jobId, attempts, lastConflict),
    );
  }

  /** Carries out a write plan: one transaction when it fits, else files first and the version bump last. */
  private async write(plan: WritePlan, jobItem: JobItem): Promise<void> {
    const jobPut = {
      Put: {
        TableName: this.table.tableName,
        Item: jobItem,
        ...(plan.expectedVersion === undefined
          ? { ConditionExpression: 'attribute_not_exists(pk)' }
          : {
              ConditionExpression: 'version = :expected',
              ExpressionAttributeValues: { ':expected': plan.expectedVersion },
            }),
      },
    };
    const pk = jobKeys.pk(jobItem.id);
    const fileWrites = plan.filePuts.length + plan.fileDeletes.length;
    // A file item replaced is written only while its pictures are as read (`kept-images.ts`).
    const guard = (item: FileItem) => (plan.replacedFiles.has(item.sk) ? imagesAsRead(item) : {});
    if (fileWrites + 1 <= this.maxTransactionItems) {
      await this.table.transactWrite([
        jobPut,
        ...plan.filePuts.map((item) => ({ Put: { TableName: this.table.tableName, Item: item, ...guard(item) } })),
        ...plan.fileDeletes.map((sk) => ({ Delete: { TableName: this.table.tableName, Key: { pk, sk } } })),
      ]);
      return;
    }
    // BatchWriteItem takes no condition: the files replaced go one conditional PutItem each.
    const replaced = plan.filePuts.filter((item) => plan.replacedFiles.has(item.sk));
    await mapConcurrently(replaced, REPLACED_FILE_CONCURRENCY, (item) =>
      this.table.putItem({ Item: item, ...guard(item) }),
    );
    await this.table.batchWrite([
      ...plan.filePuts
        .filter((item) => !plan.replacedFiles.has(item.sk))
        .map((item) => ({ PutRequest: { Item: item } })),
      ...plan.fileDeletes.map((sk) => ({ DeleteRequest: { Key: { pk, sk } } })),
    ]);
    await this.table.transactWrite([jobPut]);
  }

  /** Scans the table page by page. */
  private scanPages(input: Omit<ScanCommandInput, 'TableName' | 'ExclusiveStartKey'>): AsyncIterable<Item[]> {
    return this.table.scanPages({ Limit: this.scanPageSize, ...input });
  }

  /** The id and version of every job in the table (a scan of job items only). */
  public async *scanJobVersions(): AsyncIterable<StoredVersion> {
    for await (const items of this.scanPages({
      FilterExpression: 'sk = :job',
      ProjectionExpression: '#id, version',
      ExpressionAttributeNames: { '#id': 'id' },
      ExpressionAttributeValues: { ':job': jobKeys.jobSk },
    })) {
      for (const item of items) yield { jobId: item.id as number, version: item.version as number };
    }
  }

  /** The id of every job in the table. */
  public async *scanJobIds(): AsyncIterable<number> {
    for await (const { jobId } of this.scanJobVersions()) yield jobId;
  }

  /**
   * Every job with its files and version, from one table scan. A scan returns the items of a partition
   * next to each other, so a job is complete once its job item and `fileCount` files were seen; a job
   * whose items the scan did not deliver together (it changed during the scan) is read again
   * consistently.
   */
  public async *scanJobs(): AsyncIterable<StoredJob> {
    let group: Record<string, unknown>[] = [];
    let groupPk: unknown;
    const finish = async (): Promise<StoredJob | undefined> => {
      const items = group;
      group = [];
      const jobItem = items.find((item) => item.sk === jobKeys.jobSk) as JobItem | undefined;
      if (jobItem === undefined) return undefined;
      const files = items.length - 1;
      if (files === jobItem.fileCount) return fromItems(items);
      return this.getJob(jobItem.id);
    };
    for await (const items of this.scanPages({})) {
      for (const item of items) {
        if (item.pk !== groupPk && group.length > 0) {
          const stored = await finish();
          if (stored !== undefined) yield stored;
        }
        groupPk = item.pk;
        group.push(item);
      }
    }
    if (group.length > 0) {
      const stored = await finish();
      if (stored !== undefined) yield stored;
    }
  }
}
