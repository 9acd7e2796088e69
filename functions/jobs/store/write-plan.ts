/**
 * Plans an upsert: compares a job with the items its partition holds and works out the fewest writes
 * that make the partition hold exactly that job, with the version the job item is written at.
 */
import { jobKeys } from '../../tables';
import { type FileItem, type JobItem, toFileItems, toJobItem } from './items';
import { withKeptImages } from './kept-images';
import type { Job } from '../model/model';

/**
 * Structural equality of two items as DynamoDB stores them: key order is irrelevant and an attribute
 * holding `undefined` is the same as an absent one (the document client drops undefined values).
 */
export const sameItem = (a: unknown, b: unknown): boolean => {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((value, index) => sameItem(value, b[index]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  for (const key of keys) if (!sameItem(left[key], right[key])) return false;
  return true;
};

/** The writes that turn a partition's stored items into a job. */
export interface WritePlan {
  /** The version the job item is written with. */
  version: number;
  /** The job item, or undefined when nothing changed at all. */
  jobItem: JobItem | undefined;
  /** The version read, which the job item write is conditioned on; undefined for a new job. */
  expectedVersion: number | undefined;
  /**
   * File items that are new or differ from the stored ones, each with the pictures of the file item it replaces
   * (`kept-images.ts`).
   */
  filePuts: FileItem[];
  /** The sort keys of the {@link filePuts} that replace a stored file item (their writes are guarded). */
  replacedFiles: Set<string>;
  /** Sort keys of stored file items the job no longer has. */
  fileDeletes: string[];
}

/**
 * Compares a job with the items its partition holds and plans the writes: nothing when identical;
 * otherwise the changed and removed files and the job item at the next version (a new job starts at
 * `now`, so a re-created job always outranks the tombstone of an earlier one with the same id). An
 * import's job item records the version it wrote as `importedVersion`; any other write drops it.
 */
export const planWrite = (
  job: Job,
  items: readonly object[],
  now: number = Date.now(),
  options: { imported?: boolean } = {},
): WritePlan => {
  const storedItems = items as ReadonlyArray<Record<string, unknown>>;
  const storedJob = storedItems.find((item) => item.sk === jobKeys.jobSk) as JobItem | undefined;
  const storedFiles = new Map<string, Record<string, unknown>>();
  const storedById = new Map<unknown, Record<string, unknown>>();
  for (const item of storedItems) {
    if (typeof item.sk === 'string' && item.sk.startsWith(jobKeys.filePrefix)) {
      storedFiles.set(item.sk, item);
      // A file still at its key from before the padding keeps its pictures when it moves to the padded one.
      if (!storedById.has(item.fileId) || item.sk === jobKeys.fileSk(item.fileId as number))
        storedById.set(item.fileId, item);
    }
  }
  const filePuts: FileItem[] = [];
  const replacedFiles = new Set<string>();
  const wanted = new Set<string>();
  for (const fresh of toFileItems(job)) {
    const item = withKeptImages(fresh, storedFiles.get(fresh.sk) ?? storedById.get(fresh.fileId));
    wanted.add(item.sk);
    if (sameItem(item, storedFiles.get(item.sk))) continue;
    filePuts.push(item);
    if (storedFiles.has(item.sk)) replacedFiles.add(item.sk);
  }
  const fileDeletes = [...storedFiles.keys()].filter((sk) => !wanted.has(sk));
  const expectedVersion = storedJob?.version;
  const jobUnchanged =
    storedJob !== undefined &&
    sameItem({ ...toJobItem(job, storedJob.version), importedVersion: storedJob.importedVersion }, storedJob);
  if (jobUnchanged && filePuts.length === 0 && fileDeletes.length === 0) {
    return { version: storedJob.version, jobItem: undefined, expectedVersion, filePuts, replacedFiles, fileDeletes };
  }
  const version = expectedVersion === undefined ? now : expectedVersion + 1;
  const jobItem = toJobItem(job, version);
  if (options.imported === true) jobItem.importedVersion = version;
  return { version, jobItem, expectedVersion, filePuts, replacedFiles, fileDeletes };
};
