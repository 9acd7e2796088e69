/**
 * A job as `GET /jobs/{id}` answers it (functions/jobs/store/job-view.ts): the job item's fields, its file count and
 * version, and the review counts it stores, else the counts the caller gives, else none.
 */
import { describe, expect, it } from 'vitest';
import type { JobItem } from '../../../functions/jobs/store/items';
import { jobETag, jobView } from '../../../functions/jobs/store/job-view';

const item: JobItem = {
  pk: 'JOB#5',
  sk: 'JOB',
  entity: 'job',
  id: 5,
  accountId: 3,
  accountName: 'ACME',
  status: 'CJ_REVIEWING',
  guid: 'g-5',
  name: 'Spring',
  description: 'd',
  invoiceReference: 'INV-1',
  tags: ['a'],
  realCost: 12.5,
  createdDate: '2024-01-01T00:00:00.000Z',
  acceptedDate: null,
  orderedDate: null,
  deliveredDate: '2024-01-03T00:00:00.000Z',
  reviewedDate: null,
  fileCount: 4,
  version: 9,
};

describe('jobView', () => {
  it('answers the job fields, the file count, the version and the stored review counts', () => {
    const view = jobView(
      { ...item, reviewPending: 2, reviewRejected: 1, reviewAccepted: 1 },
      {
        pending: 9,
        rejected: 9,
        accepted: 9,
      },
    );
    expect(view).toEqual({
      id: 5,
      accountId: 3,
      accountName: 'ACME',
      status: 'CJ_REVIEWING',
      guid: 'g-5',
      name: 'Spring',
      description: 'd',
      invoiceReference: 'INV-1',
      tags: ['a'],
      realCost: 12.5,
      createdDate: '2024-01-01T00:00:00.000Z',
      acceptedDate: null,
      orderedDate: null,
      deliveredDate: '2024-01-03T00:00:00.000Z',
      reviewedDate: null,
      fileCount: 4,
      version: 9,
      review: { pending: 2, rejected: 1, accepted: 1 },
    });
  });

  it('takes the caller’s counts for an item written before it stored its own', () => {
    expect(jobView(item, { pending: 3, rejected: 0, accepted: 1 }).review).toEqual({
      pending: 3,
      rejected: 0,
      accepted: 1,
    });
  });

  it('answers no file in any state when neither the item nor the caller has counts', () => {
    expect(jobView(item).review).toEqual({ pending: 0, rejected: 0, accepted: 0 });
  });
});

describe('jobETag', () => {
  it('is the version in double quotes', () => {
    expect(jobETag(9)).toBe('"9"');
    expect(jobETag(0)).toBe('"0"');
  });
});
