/**
 * What a file item records of its pictures (docs/contract.md §6b): the state of its `original` and of its
 * `edited` version, each written by the images function with one conditional write, and the edited versions
 * delivered before, the most recent {@link MAX_PREVIOUS_EDITS}.
 *
 * Each stored variant carries the `uploadId` of the upload it describes (object-keys.ts): upload ids sort by
 * when their target was made, so a late event of an older upload can be refused by a condition on it.
 * A variant is absent until its first upload arrives; the API answers `null` then.
 */
import type { ImageType } from './image-type';

/** A picture checked and rendered: its preview and thumbnail exist. */
export interface ReadyVariant {
  status: 'ready';
  uploadId: string;
  contentType: ImageType;
  size: number;
  /** As displayed: after the EXIF orientation is applied. */
  width: number;
  height: number;
  /** The SHA-256 of the bytes, base64. */
  sha256: string;
  /** When the upload's object was created (the S3 event's time). */
  uploadedDate: string;
}

/** Bytes the service does not take, and why. */
export interface InvalidVariant {
  status: 'invalid';
  uploadId: string;
  reason: string;
  uploadedDate: string;
}

export type StoredVariant = ReadyVariant | InvalidVariant;

/** The picture attributes of a file item. */
export interface FileImages {
  original?: StoredVariant;
  edited?: StoredVariant;
  /** Edited versions replaced after they were ready, oldest first. */
  previousEdits?: ReadyVariant[];
}

/** How many replaced edited versions a file keeps, like its earlier reviews. */
export const MAX_PREVIOUS_EDITS = 5;

/** The attribute names above, for projections and for writers that must leave them alone. */
export const FILE_IMAGE_ATTRIBUTES = ['original', 'edited', 'previousEdits'] as const;
