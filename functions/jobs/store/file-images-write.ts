/**
 * How the images function records a variant of a file's picture (docs/contract.md §6b): one conditional
 * UpdateItem of the file item, decided on a strongly consistent read of it.
 *
 * - The write lands only while the file item exists (`attribute_exists(pk)`) and its variant is absent or was
 *   written for an upload that is not newer (`uploadId` ≤ the event's: upload ids sort by when their target was
 *   made, `images/object-keys.ts`). A late event of an older upload never overwrites a newer one; the same upload
 *   delivered again writes the same thing again.
 * - An `edited` version that was `ready` and is replaced by a newer upload moves to `previousEdits` (the
 *   {@link MAX_PREVIOUS_EDITS} most recent) in that same write, which then also requires the replaced version and
 *   the list to be as read — the way a review moves to `previousReviews` (`file-conditions.ts`).
 * - The job item is not written: its `version` is not bumped (the job's own fields and ETag do not change when a
 *   picture arrives) and the stream indexer, which acts on job items only, is not woken.
 *
 * A failed condition means another write got there between the read and this one: the read is repeated and the
 * decision made again (the contention policy of `jobs-table.ts`), which then finds a newer upload, a file gone,
 * or room to write.
 */
import { type FileImages, MAX_PREVIOUS_EDITS, type StoredVariant } from '../../images/file-images';
import type { Variant } from '../../images/object-keys';
import { jobKeys } from '../../tables';
import { type Condition, moveToList } from './file-conditions';
import { type Item, type JobsTable } from './jobs-table';

/** Which variant of which file a write is for, and the upload it describes. */
export interface FileImageTarget {
  jobId: number;
  fileId: number;
  variant: Variant;
  uploadId: string;
}

/**
 * What recording came to: written (`recorded`); refused because the file holds a newer upload's variant
 * (`superseded`); or refused because the job has no such file (`no_file`: never created, or deleted since).
 */
export type FileImageOutcome = 'recorded' | 'superseded' | 'no_file';

/** Every attempt lost a race against other writers of the same file. */
export class FileImageConflictError extends Error {
  public constructor(target: FileImageTarget, attempts: number, cause?: unknown) {
    super(
      `The ${target.variant} picture of file ${target.fileId} of job ${target.jobId} was changed concurrently on each of ${attempts} attempts`,
      { cause },
    );
    this.name = 'FileImageConflictError';
  }
}

/** The file item of a file: at its padded sort key, or at the key it had before the padding (`tables.ts`). */
const readFileItem = async (table: JobsTable, jobId: number, fileId: number): Promise<Item | undefined> => {
  for (const sk of jobKeys.fileSks(fileId)) {
    const item = await table.getItem({ pk: jobKeys.pk(jobId), sk });
    if (item !== undefined && item.entity === 'file') return item;
  }
  return undefined;
};

const uploadIdOf = (variant: unknown): string | undefined => {
  if (typeof variant !== 'object' || variant === null) return undefined;
  const { uploadId } = variant as { uploadId?: unknown };
  return typeof uploadId === 'string' ? uploadId : undefined;
};

/** The history list `previousEdits` as {@link moveToList} writes it. */
const PREVIOUS_EDITS = {
  attribute: 'previousEdits',
  max: MAX_PREVIOUS_EDITS,
  moved: ':movedEdit',
  count: ':was_previousEditCount',
} as const;

/** The UpdateItem that records `value` on the file item read (`before`). */
export const fileImageUpdate = (before: Item, target: FileImageTarget, value: StoredVariant) => {
  const condition: Condition = {
    clauses: [
      'attribute_exists(#pk)',
      '(attribute_not_exists(#variant) OR attribute_not_exists(#variant.#uploadId) OR #variant.#uploadId <= :uploadId)',
    ],
    names: { '#pk': 'pk', '#variant': target.variant, '#uploadId': 'uploadId' },
    values: { ':uploadId': target.uploadId, ':value': value },
  };
  const sets = ['#variant = :value'];
  const replaced = (before as FileImages)[target.variant];
  const replacedUploadId = uploadIdOf(replaced);
  if (
    target.variant === 'edited' &&
    replaced?.status === 'ready' &&
    replacedUploadId !== undefined &&
    replacedUploadId < target.uploadId
  ) {
    condition.clauses.push('#variant.#uploadId = :replacedUploadId');
    condition.values[':replacedUploadId'] = replacedUploadId;
    sets.push(moveToList(condition, before, PREVIOUS_EDITS, replaced).set);
  }
  return {
    Key: { pk: before.pk as string, sk: before.sk as string },
    UpdateExpression: `SET ${sets.join(', ')}`,
    ConditionExpression: condition.clauses.join(' AND '),
    ExpressionAttributeNames: condition.names,
    ExpressionAttributeValues: condition.values,
  };
};

/**
 * Records `value` as the `target.variant` of the file, unless the file holds a newer upload's variant or is gone;
 * throws only when DynamoDB is unavailable (`DependencyUnavailableError`) or every attempt lost a race
 * ({@link FileImageConflictError}) — both worth the caller's retry.
 */
export const recordFileImage = (
  table: JobsTable,
  target: FileImageTarget,
  value: StoredVariant,
): Promise<FileImageOutcome> =>
  table.underContention(
    async () => {
      const before = await readFileItem(table, target.jobId, target.fileId);
      if (before === undefined) return 'no_file';
      const stored = uploadIdOf(before[target.variant]);
      if (stored !== undefined && stored > target.uploadId) return 'superseded';
      await table.updateItem(fileImageUpdate(before, target, value));
      return 'recorded';
    },
    (attempts, lastConflict) => new FileImageConflictError(target, attempts, lastConflict),
  );
