/**
 * How jobs and files are stored as items (functions/jobs/store/items.ts) and the file defaults of the model
 * (functions/jobs/model/model.ts): a job written as items reads back as the same job, and an item that lacks an
 * optional field reads as the contract answers it.
 */
import { describe, expect, it } from 'vitest';
import {
  type FileItem,
  fromFileItem,
  fromItems,
  type JobItem,
  jobFieldsOf,
  jobItemCounts,
  reviewCountsOf,
  toFileItem,
  toFileItems,
  toJobItem,
} from '../../../functions/jobs/store/items';
import {
  isJobStatus,
  JOB_STATUSES,
  type Job,
  MAX_PREVIOUS_REVIEWS,
  unreviewedFile,
} from '../../../functions/jobs/model/model';

const job: Job = {
  id: 7,
  accountId: 0,
  accountName: 'ACME',
  status: 'CJ_REVIEWING',
  guid: 'g-7',
  name: 'Spring',
  description: 'Crop',
  invoiceReference: 'INV-7',
  tags: ['red'],
  realCost: 3.5,
  createdDate: '2024-01-01T00:00:00.000Z',
  acceptedDate: null,
  orderedDate: '2024-01-02T00:00:00.000Z',
  deliveredDate: null,
  reviewedDate: null,
  files: [
    unreviewedFile({ id: 30, fileName: 'c.jpg' }),
    unreviewedFile({ id: 10, fileName: 'a.jpg', isRejected: true, isReviewed: true, rejectionReason: 'blur' }),
    unreviewedFile({ id: 20, fileName: 'b.jpg', acceptedByUser: true, isReviewed: true }),
  ],
};

describe('model', () => {
  it('knows the twelve job statuses and nothing else', () => {
    expect(JOB_STATUSES).toHaveLength(12);
    for (const status of JOB_STATUSES) expect(isJobStatus(status)).toBe(true);
    for (const value of ['cj_new', 'CJ_NEW ', '', 1, null, undefined]) expect(isJobStatus(value)).toBe(false);
  });

  it('makes a file never reviewed, accepted or rejected unless told otherwise', () => {
    expect(unreviewedFile({ id: 1, fileName: 'a.jpg' })).toEqual({
      id: 1,
      fileName: 'a.jpg',
      tags: [],
      remarkToProcessor: '',
      acceptedByUser: false,
      isRejected: false,
      isReviewed: false,
      rejectionReason: null,
      reviewDate: null,
      reviews: null,
      previousReviews: [],
    });
    expect(unreviewedFile({ id: 1, fileName: 'a.jpg', tags: ['x'] }).tags).toEqual(['x']);
    expect(MAX_PREVIOUS_REVIEWS).toBe(5);
  });
});

describe('job and file items', () => {
  it('writes the job item with its keys, file count, version, review counts and its files keys padded', () => {
    const { files: _files, ...fields } = job;
    expect(toJobItem(job, 4)).toEqual({
      pk: 'JOB#7',
      sk: 'JOB',
      entity: 'job',
      ...fields,
      fileCount: 3,
      version: 4,
      reviewPending: 1,
      reviewRejected: 1,
      reviewAccepted: 1,
      fileKeys: 'padded',
    });
  });

  it('counts an unreviewed file as pending only once the job is delivered', () => {
    expect(reviewCountsOf(job)).toEqual({ pending: 1, rejected: 1, accepted: 1 });
    expect(reviewCountsOf({ ...job, status: 'CJ_NEW' })).toEqual({ pending: 0, rejected: 1, accepted: 1 });
  });

  it('writes each file item under the job with its review key', () => {
    const [first] = job.files;
    expect(toFileItem(7, first!)).toEqual({
      pk: 'JOB#7',
      sk: 'FILE#0000000000000030',
      entity: 'file',
      fileId: 30,
      jobId: 7,
      ...first,
      reviewKey: '7#none',
    });
    expect(toFileItem(7, first!, true).reviewKey).toBe('7#pending');
    expect(toFileItems(job).map((item) => item.reviewKey)).toEqual(['7#pending', '7#rejected', '7#accepted']);
    expect(toFileItems({ ...job, status: 'CJ_NEW' }).map((item) => item.reviewKey)[0]).toBe('7#none');
  });

  it('reads a job back from its items, the job item anywhere and the files in id order', () => {
    const items = [...toFileItems(job), toJobItem(job, 4)] as unknown as Record<string, unknown>[];
    const stored = fromItems(items);
    expect(stored?.version).toBe(4);
    expect(stored?.job).toEqual({ ...job, files: [...job.files].sort((a, b) => a.id - b.id) });
    expect(stored?.job.files.map((file) => file.id)).toEqual([10, 20, 30]);
  });

  it('reads no job from a partition without a job item', () => {
    expect(fromItems(toFileItems(job) as unknown as Record<string, unknown>[])).toBeUndefined();
    expect(fromItems([])).toBeUndefined();
  });

  it('reads an unset optional field of a job or file item as the contract answers it', () => {
    const bareJob = { id: 1, accountId: 2, status: 'CJ_NEW', guid: 'g', name: 'n', realCost: 0, createdDate: 'c' };
    expect(jobFieldsOf(bareJob as JobItem)).toEqual({
      ...bareJob,
      accountName: '',
      description: '',
      invoiceReference: '',
      tags: [],
      acceptedDate: null,
      orderedDate: null,
      deliveredDate: null,
      reviewedDate: null,
    });
    expect(fromFileItem({ id: 3, fileName: 'f.jpg' } as FileItem)).toEqual(
      unreviewedFile({ id: 3, fileName: 'f.jpg' }),
    );
  });

  it('reads the review counts a job item holds, and none from an item written before them', () => {
    expect(jobItemCounts({ reviewPending: 0, reviewRejected: 2, reviewAccepted: 1 })).toEqual({
      pending: 0,
      rejected: 2,
      accepted: 1,
    });
    expect(jobItemCounts({ reviewPending: 0, reviewRejected: 2 })).toBeUndefined();
  });
});
