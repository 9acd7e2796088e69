/**
 * A large delivery, committed but not yet written to every file (`deliver-files.ts`): how readers see it.
 *
 * A delivery of more files than one transaction holds is committed by one write of the job item alone:
 * its status, `deliveredDate`, `review` counts and version, plus `deliveryCommitted` (the delivery's id)
 * and `deliveryFileIds` (the ids of its files, ascending). Nothing of the delivery is written before that
 * write, so a delivery that fails before it leaves the job exactly as it was. After it, the files are
 * rolled forward 100 per transaction, and a last write removes the two attributes. Until then, every
 * reader applies the delivery to each listed file as it reads it ({@link effectiveFileItem}): a file back
 * in review is a function of the file as it was (`isReviewed`, `isRejected`, `rejectionReason`,
 * `reviews` and `reviewDate` cleared, its review appended to `previousReviews`, pending review), and that
 * function gives a delivered file back unchanged, so applying it to a file already rolled forward is
 * harmless. Whoever writes file states next (a delivery, a rejection, an acceptance) finishes the roll
 * forward first; their writes require the job item to carry no committed delivery
 * ({@link settledCondition}), so no review lands on a file the delivery has not reached yet.
 */
import type { FileItem } from './items';
import { MAX_PREVIOUS_REVIEWS } from '../model/model';
import { reviewKey } from '../model/review';

/** The job item attributes of a committed delivery whose files may not all be rolled forward yet. */
export const PENDING_DELIVERY = { id: 'deliveryCommitted', fileIds: 'deliveryFileIds' } as const;

/** A committed delivery still being rolled forward, as its job item records it. */
export interface PendingDelivery {
  id: string;
  /** The delivered file ids, ascending. */
  fileIds: readonly number[];
  /** The same ids, for lookups. */
  has: (fileId: number) => boolean;
}

/** The committed delivery a job item records, or `undefined` when every file of its last delivery is written. */
export const pendingDelivery = (jobItem: object | undefined): PendingDelivery | undefined => {
  const fields = jobItem as Readonly<Record<string, unknown>> | undefined;
  const id = fields?.[PENDING_DELIVERY.id];
  if (typeof id !== 'string') return undefined;
  const listed = fields?.[PENDING_DELIVERY.fileIds];
  const fileIds = (Array.isArray(listed) ? (listed as unknown[]) : [])
    .filter((fileId): fileId is number => typeof fileId === 'number')
    .sort((a, b) => a - b);
  const set = new Set(fileIds);
  return { id, fileIds, has: (fileId) => set.has(fileId) };
};

/** A condition expression fragment with its placeholders. */
export interface ConditionFragment {
  expression: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/** Holds while the job item records no committed delivery still being rolled forward. */
export const settledCondition = (): ConditionFragment => ({
  expression: 'attribute_not_exists(#deliveryCommitted)',
  names: { '#deliveryCommitted': PENDING_DELIVERY.id },
  values: {},
});

/** A file item back in review: what a delivery makes of it (applied to a delivered file, the same file). */
export const deliveredFileItem = (item: FileItem): FileItem => {
  const review = item.reviews ?? null;
  const history: unknown = (item as unknown as Record<string, unknown>).previousReviews;
  return {
    ...item,
    isReviewed: false,
    isRejected: false,
    rejectionReason: null,
    reviews: null,
    reviewDate: null,
    reviewKey: reviewKey(item.jobId, 'pending'),
    ...(review === null
      ? {}
      : { previousReviews: Array.isArray(history) ? [...history, review].slice(-MAX_PREVIOUS_REVIEWS) : [review] }),
  };
};

/** Whether a file item already is as a delivery leaves it (nothing to roll forward). */
export const isDeliveredFileItem = (item: FileItem): boolean =>
  item.reviewKey === reviewKey(item.jobId, 'pending') &&
  item.isReviewed !== true &&
  item.isRejected !== true &&
  (item.rejectionReason ?? null) === null &&
  (item.reviews ?? null) === null &&
  (item.reviewDate ?? null) === null;

/** A file item as readers see it: with the job's committed delivery applied when the delivery lists it. */
export const effectiveFileItem = (item: FileItem, pending: PendingDelivery | undefined): FileItem =>
  pending !== undefined && pending.has(item.fileId) ? deliveredFileItem(item) : item;
