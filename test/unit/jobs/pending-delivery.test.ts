/**
 * How readers see a committed delivery whose files are not all written yet (`pending-delivery.ts`): the
 * record on the job item, a file as the delivery leaves it (the same file when applied twice), and the
 * partition read as a job with the delivery applied.
 */
import { describe, expect, it } from 'vitest';
import { type FileItem, fromItems, toFileItem, toJobItem } from '../../../functions/jobs/store/items';
import { type JobFile, type Review, unreviewedFile } from '../../../functions/jobs/model/model';
import {
  deliveredFileItem,
  effectiveFileItem,
  isDeliveredFileItem,
  pendingDelivery,
  settledCondition,
} from '../../../functions/jobs/store/pending-delivery';
import { makeJob } from '../../support/jobs';

const review = (day: number): Review => ({
  customRejection: `Too dark ${day}`,
  rejects: [],
  reviewDate: `2025-03-${String(day).padStart(2, '0')}T10:00:00.000Z`,
});

const rejected = (id: number, previousReviews: Review[] | null): JobFile =>
  unreviewedFile({
    id,
    fileName: `f_${id}.jpg`,
    isRejected: true,
    isReviewed: true,
    rejectionReason: 'Too dark',
    reviewDate: '2025-03-09T10:00:00.000Z',
    reviews: review(9),
    previousReviews: previousReviews as Review[],
  });

describe('the record of a committed delivery', () => {
  it('is read from the job item: its id and its file ids, ascending; absent when the item has none', () => {
    const pending = pendingDelivery({ deliveryCommitted: 'd-1', deliveryFileIds: [5, 2, 9] });
    expect(pending?.id).toBe('d-1');
    expect(pending?.fileIds).toEqual([2, 5, 9]);
    expect(pending?.has(5)).toBe(true);
    expect(pending?.has(6)).toBe(false);
    expect(pendingDelivery({ deliveryFileIds: [1] })).toBeUndefined();
    expect(pendingDelivery(undefined)).toBeUndefined();
  });

  it('reads only the numbers of a file id list, and no file ids from anything else', () => {
    expect(pendingDelivery({ deliveryCommitted: 'd-2', deliveryFileIds: [4, '3', null, 1] })?.fileIds).toEqual([1, 4]);
    for (const listed of ['3', { 0: 3, length: 1 }, 3, null, undefined]) {
      const pending = pendingDelivery({ deliveryCommitted: 'd-3', deliveryFileIds: listed });
      expect(pending?.id).toBe('d-3');
      expect(pending?.fileIds).toEqual([]);
      expect(pending?.has(3)).toBe(false);
    }
  });

  it('blocks review writes while it is there', () => {
    expect(settledCondition()).toEqual({
      expression: 'attribute_not_exists(#deliveryCommitted)',
      names: { '#deliveryCommitted': 'deliveryCommitted' },
      values: {},
    });
  });
});

describe('a file as a delivery leaves it', () => {
  it('is back in review, its review appended to a history of at most five, and the same when delivered again', () => {
    for (const history of [[], [review(1)], [1, 2, 3, 4, 5].map(review), null]) {
      const item = toFileItem(7, rejected(70, history), true);
      const once = deliveredFileItem(item);
      expect(once).toMatchObject({
        isReviewed: false,
        isRejected: false,
        rejectionReason: null,
        reviews: null,
        reviewDate: null,
        reviewKey: '7#pending',
      });
      expect(once.previousReviews).toEqual([...(history ?? []), review(9)].slice(-5));
      expect(isDeliveredFileItem(item)).toBe(false);
      expect(isDeliveredFileItem(once)).toBe(true);
      expect(deliveredFileItem(once)).toEqual(once);
    }
  });

  it('keeps a delivered, unreviewed file as it is, and applies only to the files the record lists', () => {
    const unreviewed = toFileItem(7, unreviewedFile({ id: 71, fileName: 'f.jpg' }), true);
    expect(deliveredFileItem(unreviewed)).toEqual({ ...unreviewed, reviewDate: null, rejectionReason: null });
    const item = toFileItem(7, rejected(72, []), true);
    expect(effectiveFileItem(item, pendingDelivery({ deliveryCommitted: 'd', deliveryFileIds: [72] }))).toEqual(
      deliveredFileItem(item),
    );
    expect(effectiveFileItem(item, pendingDelivery({ deliveryCommitted: 'd', deliveryFileIds: [73] }))).toBe(item);
    expect(effectiveFileItem(item, undefined)).toBe(item);
  });
});

describe('a file already as a delivery leaves it', () => {
  const delivered = deliveredFileItem(toFileItem(7, rejected(75, []), true));

  it('is pending review with no review, rejection or review date', () => {
    expect(isDeliveredFileItem(delivered)).toBe(true);
    expect(
      isDeliveredFileItem({
        ...delivered,
        rejectionReason: undefined,
        reviews: undefined,
        reviewDate: undefined,
      } as unknown as FileItem),
    ).toBe(true);
  });

  it('is not one that still differs from it in any one field', () => {
    const differing: Partial<FileItem>[] = [
      { reviewKey: '7#rejected' },
      { reviewKey: '8#pending' },
      { isReviewed: true },
      { isRejected: true },
      { rejectionReason: 'Too dark' },
      { reviews: review(9) },
      { reviewDate: '2025-03-09T10:00:00.000Z' },
    ];
    for (const change of differing) expect(isDeliveredFileItem({ ...delivered, ...change })).toBe(false);
  });
});

describe('a partition read as a job', () => {
  it('shows every file a committed delivery lists as delivered, the others as stored', () => {
    const job = makeJob({
      status: 'CJ_REVIEWING',
      deliveredDate: '2025-03-01T10:00:00.000Z',
      files: [rejected(81, []), rejected(82, [review(1)])],
    });
    const files = job.files.map((file) => toFileItem(job.id, file, true) as unknown as Record<string, unknown>);
    const jobItem: Record<string, unknown> = { ...toJobItem(job, 3), deliveryCommitted: 'd', deliveryFileIds: [82] };
    const read = fromItems([jobItem, ...files]);
    expect(read?.job.files[0]).toEqual(job.files[0]);
    expect(read?.job.files[1]).toMatchObject({
      isRejected: false,
      reviews: null,
      previousReviews: [review(1), review(9)],
    });
    expect(fromItems([{ ...toJobItem(job, 3) }, ...files])?.job.files).toEqual(job.files);
    expect((files[1] as unknown as FileItem).isRejected).toBe(true);
  });
});
