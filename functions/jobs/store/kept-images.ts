/**
 * The pictures of a file item (`images/file-images.ts`) belong to the images function: an import, a seed or any
 * other rewrite of a job's files carries each file's `original`, `edited` and `previousEdits` over as it read
 * them, and writes the file item only while the pictures are still as read — so a picture recorded between the
 * read and the write fails the write (a lost race, retried from a fresh read) instead of being erased.
 *
 * Only the upload ids are compared: the images function changes a variant only by writing another upload's, and
 * `previousEdits` only together with `edited`.
 */
import { FILE_IMAGE_ATTRIBUTES } from '../../images/file-images';
import { VARIANTS } from '../../images/object-keys';
import type { FileItem } from './items';

/** `item` with the pictures of the file item it replaces (when there is one). */
export const withKeptImages = (item: FileItem, stored: Readonly<Record<string, unknown>> | undefined): FileItem => {
  if (stored === undefined) return item;
  const kept: Record<string, unknown> = {};
  for (const attribute of FILE_IMAGE_ATTRIBUTES)
    if (stored[attribute] !== undefined) kept[attribute] = stored[attribute];
  return Object.keys(kept).length === 0 ? item : { ...item, ...kept };
};

/** The condition under which a Put of `item` (its pictures as read) loses no picture recorded since the read. */
export const imagesAsRead = (
  item: FileItem,
): {
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
} => {
  const clauses: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  for (const variant of VARIANTS) {
    const name = `#image_${variant}`;
    names[name] = variant;
    const read: unknown = (item as unknown as Record<string, unknown>)[variant];
    if (read === undefined) {
      clauses.push(`attribute_not_exists(${name})`);
      continue;
    }
    const uploadId = (read as { uploadId?: unknown } | null)?.uploadId;
    if (typeof uploadId !== 'string') continue;
    names['#image_uploadId'] = 'uploadId';
    values[`:image_${variant}`] = uploadId;
    clauses.push(`${name}.#image_uploadId = :image_${variant}`);
  }
  if (clauses.length === 0) return {};
  return {
    ConditionExpression: clauses.join(' AND '),
    ExpressionAttributeNames: names,
    ...(Object.keys(values).length === 0 ? {} : { ExpressionAttributeValues: values }),
  };
};
