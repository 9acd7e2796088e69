/**
 * The job item's write in a review's transaction (`review-transaction.ts`): review counts added to (`ADD`,
 * only those that change) when the item stores them, written whole under a guard on the version read when
 * it predates them, and the accepted count as read required when the new status depends on it.
 */
import { describe, expect, it } from 'vitest';
import { toFileItem } from '../../../functions/jobs/items';
import { unreviewedFile } from '../../../functions/jobs/model';
import type { JobChange, JobSnapshot, ReviewPlan } from '../../../functions/jobs/review-plan';
import { transactItems } from '../../../functions/jobs/review-transaction';

const NOW = '2025-04-01T12:00:00.000Z';

const snapshot = (countsStored: boolean): JobSnapshot => ({
  id: 9,
  accountId: 1,
  status: 'CJ_REVIEWING',
  version: 6,
  itemBytes: 500,
  fileCount: 3,
  counts: { pending: 2, rejected: 0, accepted: 1 },
  countsStored,
});

const change = (job: JobSnapshot, overrides: Partial<JobChange> = {}): JobChange => {
  const file = unreviewedFile({ id: 1, fileName: 'a.jpg' });
  return {
    job,
    files: [
      {
        before: toFileItem(9, file, true),
        after: { ...file, isReviewed: true, acceptedByUser: true, reviewDate: NOW },
        from: 'pending',
        to: 'accepted',
        movesReview: false,
      },
    ],
    status: undefined,
    countChanges: { pending: -1, rejected: 0, accepted: 1 },
    guardAccepted: false,
    ...overrides,
  };
};

const jobWrite = (jobChange: JobChange) => {
  const plan: ReviewPlan<null> = { changedJobs: [jobChange], unchangedJobs: [], unchangedFiles: [], response: null };
  const items = transactItems('jobs', plan, NOW);
  expect(items.map((item) => item.Update?.Key?.sk)).toEqual(['FILE#1', 'JOB']);
  return items[1]!.Update!;
};

describe("the job item's write of a review", () => {
  it('adds the changed counts of an item that stores them, and leaves its status alone when the review keeps it', () => {
    const write = jobWrite(change(snapshot(true)));
    expect(write.UpdateExpression).toBe(
      'SET #reviewedDate = :now ADD #version :one, #reviewPending :reviewPending, #reviewAccepted :reviewAccepted',
    );
    expect(write.ExpressionAttributeValues).toMatchObject({ ':reviewPending': -1, ':reviewAccepted': 1, ':now': NOW });
    expect(write.ExpressionAttributeValues).not.toHaveProperty(':reviewRejected');
    expect(write.ExpressionAttributeValues).not.toHaveProperty(':status');
    expect(write.ExpressionAttributeNames).not.toHaveProperty('#reviewRejected');
    expect(write.ConditionExpression).not.toContain(':read');
    expect(write.ConditionExpression).not.toContain('#reviewAccepted');
  });

  it('writes every count of an item that predates them, counted from its files, guarded by the version read', () => {
    const write = jobWrite(change(snapshot(false), { status: 'CJ_REVIEWING' }));
    expect(write.UpdateExpression).toBe(
      'SET #status = :status, #reviewedDate = :now, #reviewPending = :reviewPending, ' +
        '#reviewRejected = :reviewRejected, #reviewAccepted = :reviewAccepted ADD #version :one',
    );
    expect(write.ExpressionAttributeValues).toMatchObject({
      ':reviewPending': 1,
      ':reviewRejected': 0,
      ':reviewAccepted': 2,
      ':read': 6,
      ':status': 'CJ_REVIEWING',
    });
    expect(write.ConditionExpression).toMatch(/ AND #version = :read$/);
    expect(write.ExpressionAttributeNames).toMatchObject({
      '#reviewPending': 'reviewPending',
      '#reviewRejected': 'reviewRejected',
      '#reviewAccepted': 'reviewAccepted',
      '#version': 'version',
      '#reviewedDate': 'reviewedDate',
    });
  });

  it('requires the accepted count as read when the new status depends on it', () => {
    const write = jobWrite(change(snapshot(true), { status: 'CJ_FINISHED', guardAccepted: true }));
    expect(write.ConditionExpression).toMatch(/ AND #reviewAccepted = :readAccepted$/);
    expect(write.ExpressionAttributeValues).toMatchObject({ ':readAccepted': 1, ':status': 'CJ_FINISHED' });
    expect(write.ExpressionAttributeNames).toMatchObject({ '#reviewAccepted': 'reviewAccepted' });
  });

  it('guards the version, not the accepted count, of an item that predates the counts', () => {
    const write = jobWrite(change(snapshot(false), { status: 'CJ_FINISHED', guardAccepted: true }));
    expect(write.ConditionExpression).toMatch(/ AND #version = :read$/);
    expect(write.ExpressionAttributeValues).not.toHaveProperty(':readAccepted');
  });
});
