/**
 * `migrate`: brings job partitions written by earlier versions up to the current item format, on a live
 * table, while the API writes.
 *
 * - Each file item at its former sort key (`FILE#42`) is moved to its padded key (`tables.ts`): one
 *   transaction deletes the old item and puts the same item at the new key, up to 49 files (and 3.5 MB) at a
 *   time, with a check that the job item still has the version read and records no delivery being written.
 *   The version is not changed: every write to a job's files increments it in the same transaction, so a
 *   write that landed after the read fails the check and the job is read again; a writer that read a file
 *   before it moved finds its old key gone (its writes require the item to exist) and reads again.
 * - The job item is then marked (`fileKeys = padded`), and given the review counts of its files when it
 *   predates them, in one update conditioned on the same version. The version, and so the ETag, stays: the
 *   job's content is unchanged, so the stream's indexer writes the same document at the same version (a
 *   no-op), and file items are no job to it.
 * - A job whose committed delivery is still being written is finished first, as every writer does.
 *
 * Re-running is a no-op: a scan finds the job items that still lack the mark or a count, and nothing else is
 * read or written. An interrupted run leaves every job either as it was, half moved (each file at exactly one
 * of its keys, which every reader reads) or done; the next run goes on from there.
 */
import { finishDelivery } from '../../functions/jobs/delivery/deliver-files';
import type { FileItem, JobItem } from '../../functions/jobs/store/items';
import { type Item, type JobsTable, type TransactItem } from '../../functions/jobs/store/jobs-table';
import { pendingDelivery } from '../../functions/jobs/store/pending-delivery';
import { estimatedItemSize } from '../../functions/jobs/store/item-sizes';
import {
  COUNT_ATTRIBUTES,
  countStates,
  isDeliveredJob,
  REVIEW_FILTERS,
  reviewStateOf,
  storedCounts,
} from '../../functions/jobs/model/review';
import { mapConcurrently } from '../../functions/async';
import { DependencyUnavailableError } from '../../functions/errors';
import { DYNAMODB } from '../../functions/aws/failures';
import { FILE_KEYS, hasPaddedFileKeys, jobKeys } from '../../functions/tables';
import { fromFileItem } from '../../functions/jobs/store/items';

/** Files per transaction: two items each (delete, put) beside the job's check, within DynamoDB's 100. */
const FILES_PER_TRANSACTION = 49;
/** Bytes of moved items per transaction, under DynamoDB's 4 MB per transaction. */
const BYTES_PER_TRANSACTION = 3_500_000;

export interface MigrationProgress {
  /** Job items found that needed the migration. */
  found: number;
  /** Jobs done so far. */
  migrated: number;
}

export interface MigrationResult {
  /** Job items that needed the migration (0 on a table already migrated). */
  found: number;
  /** Jobs brought up to date. */
  migrated: number;
  /** File items moved to their padded keys. */
  filesMoved: number;
  /** Job items given the review counts they lacked. */
  countsWritten: number;
  /** Jobs that could not be migrated this run (run again), with why. */
  failed: Array<{ jobId: number; reason: string }>;
}

export interface MigrationOptions {
  table: JobsTable;
  /** Jobs migrated at once (default 4). */
  concurrency?: number;
  onProgress?: (progress: MigrationProgress) => void;
}

/** The job items of the table that still need the migration: unmarked, or without a review count. */
const pendingJobIds = async (table: JobsTable): Promise<number[]> => {
  const ids: number[] = [];
  for await (const page of table.scanPages({
    FilterExpression:
      '#sk = :job AND (attribute_not_exists(#fileKeys) OR attribute_not_exists(#pending) OR ' +
      'attribute_not_exists(#rejected) OR attribute_not_exists(#accepted))',
    ProjectionExpression: '#id',
    ExpressionAttributeNames: {
      '#sk': 'sk',
      '#id': 'id',
      '#fileKeys': FILE_KEYS.attribute,
      '#pending': COUNT_ATTRIBUTES.pending,
      '#rejected': COUNT_ATTRIBUTES.rejected,
      '#accepted': COUNT_ATTRIBUTES.accepted,
    },
    ExpressionAttributeValues: { ':job': jobKeys.jobSk },
  })) {
    for (const item of page) if (typeof item.id === 'number') ids.push(item.id);
  }
  return ids;
};

/** The job item still at the version read, with no delivery being written to its files. */
const jobCheck = (table: JobsTable, jobId: number, version: number) => ({
  Key: { pk: jobKeys.pk(jobId), sk: jobKeys.jobSk },
  ConditionExpression: '#version = :version AND attribute_not_exists(#delivery)',
  ExpressionAttributeNames: { '#version': 'version', '#delivery': 'deliveryCommitted' },
  ExpressionAttributeValues: { ':version': version },
  TableName: table.tableName,
});

/** The writes that move a file to its padded key (or drop its old copy when the padded one exists). */
const moveOf = (table: JobsTable, file: FileItem, paddedExists: boolean): TransactItem[] => [
  {
    Delete: {
      TableName: table.tableName,
      Key: { pk: file.pk, sk: file.sk },
      ConditionExpression: 'attribute_exists(#pk)',
      ExpressionAttributeNames: { '#pk': 'pk' },
    },
  },
  ...(paddedExists
    ? []
    : [
        {
          Put: {
            TableName: table.tableName,
            Item: { ...file, sk: jobKeys.fileSk(file.fileId) },
            ConditionExpression: 'attribute_not_exists(#pk)',
            ExpressionAttributeNames: { '#pk': 'pk' },
          },
        },
      ]),
];

/** Groups file moves into transactions within DynamoDB's item and size limits. */
const chunksOf = (files: readonly FileItem[]): FileItem[][] => {
  const chunks: FileItem[][] = [];
  let chunk: FileItem[] = [];
  let bytes = 0;
  for (const file of files) {
    const size = estimatedItemSize(file);
    if (chunk.length > 0 && (chunk.length >= FILES_PER_TRANSACTION || bytes + size > BYTES_PER_TRANSACTION)) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(file);
    bytes += size;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
};

/** What migrating one job did. */
interface JobMigration {
  filesMoved: number;
  countsWritten: boolean;
}

/** Migrates one job, reading it again whenever a writer got in between. */
const migrateJob = (table: JobsTable, jobId: number): Promise<JobMigration> => {
  const done: JobMigration = { filesMoved: 0, countsWritten: false };
  return table.underContention(
    async () => {
      let items: Item[] = await table.readPartition(jobId, true);
      let jobItem = items.find((item) => item.sk === jobKeys.jobSk) as JobItem | undefined;
      if (jobItem === undefined) return done;
      if (pendingDelivery(jobItem) !== undefined) {
        await finishDelivery(table, jobId);
        items = await table.readPartition(jobId, true);
        jobItem = items.find((item) => item.sk === jobKeys.jobSk) as JobItem | undefined;
        if (jobItem === undefined) return done;
      }
      const files = items.filter((item) => item.entity === 'file') as unknown as FileItem[];
      const keys = new Set(files.map((file) => file.sk));
      const misplaced = files.filter((file) => file.sk !== jobKeys.fileSk(file.fileId));
      const check = jobCheck(table, jobId, jobItem.version);
      for (const chunk of chunksOf(misplaced)) {
        await table.transactWrite([
          { ConditionCheck: check },
          ...chunk.flatMap((file) => moveOf(table, file, keys.has(jobKeys.fileSk(file.fileId)))),
        ]);
        done.filesMoved += chunk.filter((file) => !keys.has(jobKeys.fileSk(file.fileId))).length;
      }
      const fields = jobItem as unknown as Record<string, unknown>;
      const stored = storedCounts(fields);
      if (hasPaddedFileKeys(fields) && stored !== undefined) return done;
      const kept = files.filter(
        (file) => file.sk === jobKeys.fileSk(file.fileId) || !keys.has(jobKeys.fileSk(file.fileId)),
      );
      const delivered = isDeliveredJob({ deliveredDate: jobItem.deliveredDate ?? null, status: jobItem.status });
      const counts = stored ?? countStates(kept.map((file) => reviewStateOf(fromFileItem(file), delivered)));
      await table.updateItem({
        Key: check.Key,
        UpdateExpression: `SET #fileKeys = :padded, ${REVIEW_FILTERS.map((filter) => `#${filter} = :${filter}`).join(', ')}`,
        ConditionExpression: check.ConditionExpression,
        ExpressionAttributeNames: {
          ...check.ExpressionAttributeNames,
          '#fileKeys': FILE_KEYS.attribute,
          ...Object.fromEntries(REVIEW_FILTERS.map((filter) => [`#${filter}`, COUNT_ATTRIBUTES[filter]])),
        },
        ExpressionAttributeValues: {
          ...check.ExpressionAttributeValues,
          ':padded': FILE_KEYS.padded,
          ...Object.fromEntries(REVIEW_FILTERS.map((filter) => [`:${filter}`, counts[filter]])),
        },
      });
      done.countsWritten = stored === undefined;
      return done;
    },
    (_attempts, lastConflict) => new DependencyUnavailableError(DYNAMODB, lastConflict),
  );
};

/** Migrates every job of the table that needs it; see the module's description. */
export const migrateJobs = async (options: MigrationOptions): Promise<MigrationResult> => {
  const ids = await pendingJobIds(options.table);
  const result: MigrationResult = { found: ids.length, migrated: 0, filesMoved: 0, countsWritten: 0, failed: [] };
  options.onProgress?.({ found: ids.length, migrated: 0 });
  await mapConcurrently(ids, options.concurrency ?? 4, async (jobId) => {
    try {
      const done = await migrateJob(options.table, jobId);
      result.migrated += 1;
      result.filesMoved += done.filesMoved;
      if (done.countsWritten) result.countsWritten += 1;
    } catch (error) {
      result.failed.push({ jobId, reason: error instanceof Error ? error.message : String(error) });
    }
    options.onProgress?.({ found: ids.length, migrated: result.migrated });
  });
  result.failed.sort((a, b) => a.jobId - b.jobId);
  return result;
};
