/**
 * The job item's write in a review's transaction (`review-transaction.ts`): review counts added to (`ADD`,
 * only those that change) when the item stores them, written whole under a guard on the version read when
 * it predates them, and the accepted count as read required when the new status depends on it.
 */
import { describe, expect, it } from 'vitest';
import { type FileItem, fromFileItem, toFileItem } from '../../../functions/jobs/store/items';
import { MAX_PREVIOUS_REVIEWS, type Review, unreviewedFile } from '../../../functions/jobs/model/model';
import type { FileChange, JobChange, JobSnapshot, ReviewPlan } from '../../../functions/jobs/review/review-plan';
import { transactItems } from '../../../functions/jobs/review/review-transaction';

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
  expect(items.map((item) => item.Update?.Key?.sk)).toEqual(['FILE#0000000000000001', 'JOB']);
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

  it('names the accepted count it requires as read even when the review leaves that count alone', () => {
    const write = jobWrite(
      change(snapshot(true), {
        status: 'CJ_REJECT_READY',
        countChanges: { pending: -1, rejected: 1, accepted: 0 },
        guardAccepted: true,
      }),
    );
    expect(write.UpdateExpression).toBe(
      'SET #status = :status, #reviewedDate = :now ADD #version :one, #reviewPending :reviewPending, #reviewRejected :reviewRejected',
    );
    expect(write.ConditionExpression).toMatch(/ AND #reviewAccepted = :readAccepted$/);
    expect(write.ExpressionAttributeNames).toEqual({
      '#status': 'status',
      '#deliveryCommitted': 'deliveryCommitted',
      '#reviewedDate': 'reviewedDate',
      '#version': 'version',
      '#reviewPending': 'reviewPending',
      '#reviewRejected': 'reviewRejected',
      '#reviewAccepted': 'reviewAccepted',
    });
  });

  it('guards the version, not the accepted count, of an item that predates the counts', () => {
    const write = jobWrite(change(snapshot(false), { status: 'CJ_FINISHED', guardAccepted: true }));
    expect(write.ConditionExpression).toMatch(/ AND #version = :read$/);
    expect(write.ExpressionAttributeValues).not.toHaveProperty(':readAccepted');
  });
});

const review = (day: number): Review => ({
  customRejection: `Too dark ${day}`,
  rejects: [],
  reviewDate: `2025-03-${String(day).padStart(2, '0')}T10:00:00.000Z`,
});

/** The item of file 2 of job 9, rejected on 9 March with `review(9)`; `previousReviews` as given, absent for `undefined`. */
const rejectedItem = (previousReviews: unknown): FileItem => {
  const { previousReviews: _dropped, ...item } = toFileItem(
    9,
    unreviewedFile({
      id: 2,
      fileName: 'b.jpg',
      isReviewed: true,
      isRejected: true,
      rejectionReason: 'Too dark',
      reviewDate: review(9).reviewDate,
      reviews: review(9),
    }),
    true,
  );
  return (previousReviews === undefined ? item : { ...item, previousReviews }) as FileItem;
};

/** That file rejected again: its new review (`review(20)`) replaces the current one, which moves to the history. */
const rejectAgain = (before: FileItem): FileChange => ({
  before,
  after: { ...fromFileItem(before), rejectionReason: null, reviewDate: null, reviews: review(20) },
  from: 'rejected',
  to: 'rejected',
  movesReview: true,
});

const plan = (fileChanges: FileChange[], rest: Partial<ReviewPlan<null>> = {}): ReviewPlan<null> => ({
  changedJobs: fileChanges.length === 0 ? [] : [{ ...change(snapshot(true)), files: fileChanges }],
  unchangedJobs: [],
  unchangedFiles: [],
  response: null,
  ...rest,
});

const fileWrite = (fileChange: FileChange) => transactItems('jobs', plan([fileChange]), NOW)[0]!.Update!;

/** The SET clauses every file write carries, before a moved review's. */
const FILE_SETS =
  'SET #isRejected = :isRejected, #isReviewed = :isReviewed, #acceptedByUser = :acceptedByUser, ' +
  '#reviewDate = :now, #rejectionReason = :reason, #reviewKey = :reviewKey';

/** The guard of file 2 as `rejectedItem` stores it, and the values its new rejection writes. */
const REJECTED_GUARD = {
  condition:
    'attribute_exists(#pk) AND #isRejected = :was_isRejected AND #acceptedByUser = :was_acceptedByUser' +
    ' AND #reviewDate = :was_reviewDate AND #reviewKey = :was_reviewKey',
  names: {
    '#pk': 'pk',
    '#isRejected': 'isRejected',
    '#acceptedByUser': 'acceptedByUser',
    '#reviewDate': 'reviewDate',
    '#reviewKey': 'reviewKey',
    '#isReviewed': 'isReviewed',
    '#rejectionReason': 'rejectionReason',
    '#reviews': 'reviews',
    '#previousReviews': 'previousReviews',
  },
  values: {
    ':was_isRejected': true,
    ':was_acceptedByUser': false,
    ':was_reviewDate': review(9).reviewDate,
    ':was_reviewKey': '9#rejected',
    ':isRejected': true,
    ':isReviewed': true,
    ':acceptedByUser': false,
    ':now': NOW,
    ':reason': null,
    ':reviewKey': '9#rejected',
    ':review': review(20),
  },
};

describe("a file's write of a review", () => {
  it('sets the review fields, stamped now, guarded by each attribute the review derives from as read', () => {
    const accepted = change(snapshot(true)).files[0]!;
    expect(fileWrite({ ...accepted, after: { ...accepted.after, reviewDate: null } })).toEqual({
      TableName: 'jobs',
      Key: { pk: 'JOB#9', sk: 'FILE#0000000000000001' },
      UpdateExpression: FILE_SETS,
      ConditionExpression:
        'attribute_exists(#pk) AND #isRejected = :was_isRejected AND #acceptedByUser = :was_acceptedByUser' +
        ' AND attribute_type(#reviewDate, :nullType) AND #reviewKey = :was_reviewKey',
      ExpressionAttributeNames: {
        '#pk': 'pk',
        '#isRejected': 'isRejected',
        '#acceptedByUser': 'acceptedByUser',
        '#reviewDate': 'reviewDate',
        '#reviewKey': 'reviewKey',
        '#isReviewed': 'isReviewed',
        '#rejectionReason': 'rejectionReason',
      },
      ExpressionAttributeValues: {
        ':was_isRejected': false,
        ':was_acceptedByUser': false,
        ':nullType': 'NULL',
        ':was_reviewKey': '9#pending',
        ':isRejected': false,
        ':isReviewed': true,
        ':acceptedByUser': true,
        ':now': NOW,
        ':reason': null,
        ':reviewKey': '9#accepted',
      },
    });
  });

  it("keeps the file's own review date over now", () => {
    const accepted = change(snapshot(true)).files[0]!;
    const own = '2025-03-30T08:00:00.000Z';
    expect(
      fileWrite({ ...accepted, after: { ...accepted.after, reviewDate: own } }).ExpressionAttributeValues,
    ).toMatchObject({ ':now': own });
  });

  it('requires an attribute an older item lacks to be still absent', () => {
    const { acceptedByUser: _absent, ...older } = change(snapshot(true)).files[0]!.before;
    const write = fileWrite({ ...change(snapshot(true)).files[0]!, before: older as FileItem });
    expect(write.ConditionExpression).toBe(
      'attribute_exists(#pk) AND #isRejected = :was_isRejected AND attribute_not_exists(#acceptedByUser)' +
        ' AND attribute_type(#reviewDate, :nullType) AND #reviewKey = :was_reviewKey',
    );
    expect(write.ExpressionAttributeValues).not.toHaveProperty(':was_acceptedByUser');
  });

  it('appends the replaced review to a history with room, requiring the history as long as read', () => {
    for (const history of [[], [1, 2, 3, 4].map(review)]) {
      expect(fileWrite(rejectAgain(rejectedItem(history)))).toEqual({
        TableName: 'jobs',
        Key: { pk: 'JOB#9', sk: 'FILE#0000000000000002' },
        UpdateExpression: `${FILE_SETS}, #reviews = :review, #previousReviews = list_append(if_not_exists(#previousReviews, :empty), :moved)`,
        ConditionExpression: `${REJECTED_GUARD.condition} AND size(#previousReviews) = :was_previousReviewCount`,
        ExpressionAttributeNames: REJECTED_GUARD.names,
        ExpressionAttributeValues: {
          ...REJECTED_GUARD.values,
          ':moved': [review(9)],
          ':was_previousReviewCount': history.length,
          ':empty': [],
        },
      });
    }
  });

  it('starts the history of an item without one, requiring it still absent', () => {
    expect(fileWrite(rejectAgain(rejectedItem(undefined)))).toEqual({
      TableName: 'jobs',
      Key: { pk: 'JOB#9', sk: 'FILE#0000000000000002' },
      UpdateExpression: `${FILE_SETS}, #reviews = :review, #previousReviews = list_append(if_not_exists(#previousReviews, :empty), :moved)`,
      ConditionExpression: `${REJECTED_GUARD.condition} AND attribute_not_exists(#previousReviews)`,
      ExpressionAttributeNames: REJECTED_GUARD.names,
      ExpressionAttributeValues: { ...REJECTED_GUARD.values, ':moved': [review(9)], ':empty': [] },
    });
  });

  it(`writes a history of exactly ${MAX_PREVIOUS_REVIEWS} reviews whole, its oldest dropped`, () => {
    const full = [1, 2, 3, 4, 5].map(review);
    expect(full).toHaveLength(MAX_PREVIOUS_REVIEWS);
    expect(fileWrite(rejectAgain(rejectedItem(full)))).toEqual({
      TableName: 'jobs',
      Key: { pk: 'JOB#9', sk: 'FILE#0000000000000002' },
      UpdateExpression: `${FILE_SETS}, #reviews = :review, #previousReviews = :moved`,
      ConditionExpression: `${REJECTED_GUARD.condition} AND size(#previousReviews) = :was_previousReviewCount`,
      ExpressionAttributeNames: REJECTED_GUARD.names,
      ExpressionAttributeValues: {
        ...REJECTED_GUARD.values,
        ':moved': [2, 3, 4, 5, 9].map(review),
        ':was_previousReviewCount': MAX_PREVIOUS_REVIEWS,
      },
    });
  });

  it('replaces a history that is no list with the one review, requiring it still as read', () => {
    expect(fileWrite(rejectAgain(rejectedItem(null)))).toEqual({
      TableName: 'jobs',
      Key: { pk: 'JOB#9', sk: 'FILE#0000000000000002' },
      UpdateExpression: `${FILE_SETS}, #reviews = :review, #previousReviews = :moved`,
      ConditionExpression: `${REJECTED_GUARD.condition} AND attribute_type(#previousReviews, :nullType)`,
      ExpressionAttributeNames: REJECTED_GUARD.names,
      ExpressionAttributeValues: { ...REJECTED_GUARD.values, ':moved': [review(9)], ':nullType': 'NULL' },
    });
  });

  it('moves nothing when the file had no review to replace', () => {
    const first = rejectAgain({ ...rejectedItem([]), reviews: null });
    const write = fileWrite(first);
    expect(write.UpdateExpression).toBe(`${FILE_SETS}, #reviews = :review`);
    expect(write.ConditionExpression).toBe(REJECTED_GUARD.condition);
    expect(write.ExpressionAttributeValues).not.toHaveProperty(':moved');
  });
});

describe('the checks of what a review leaves unchanged', () => {
  it('requires an unchanged job still in review with no committed delivery, and a repeated file still as read', () => {
    const items = transactItems(
      'jobs',
      plan([], { unchangedJobs: [snapshot(true)], unchangedFiles: [rejectedItem([])] }),
      NOW,
    );
    expect(items).toEqual([
      {
        ConditionCheck: {
          TableName: 'jobs',
          Key: { pk: 'JOB#9', sk: 'JOB' },
          ConditionExpression:
            '#status IN (:reviewable0, :reviewable1, :reviewable2, :reviewable3) AND attribute_not_exists(#deliveryCommitted)',
          ExpressionAttributeNames: { '#status': 'status', '#deliveryCommitted': 'deliveryCommitted' },
          ExpressionAttributeValues: {
            ':reviewable0': 'CJ_REVIEWING',
            ':reviewable1': 'CJ_FINISHED',
            ':reviewable2': 'CJ_REJECT_READY',
            ':reviewable3': 'CJ_REJECT_ERROR',
          },
        },
      },
      {
        ConditionCheck: {
          TableName: 'jobs',
          Key: { pk: 'JOB#9', sk: 'FILE#0000000000000002' },
          ConditionExpression: REJECTED_GUARD.condition,
          ExpressionAttributeNames: {
            '#pk': 'pk',
            '#isRejected': 'isRejected',
            '#acceptedByUser': 'acceptedByUser',
            '#reviewDate': 'reviewDate',
            '#reviewKey': 'reviewKey',
          },
          ExpressionAttributeValues: {
            ':was_isRejected': true,
            ':was_acceptedByUser': false,
            ':was_reviewDate': review(9).reviewDate,
            ':was_reviewKey': '9#rejected',
          },
        },
      },
    ]);
  });

  it('leaves out the values of a file check that needs none (DynamoDB refuses an empty map)', () => {
    const { isRejected: _r, acceptedByUser: _a, reviewDate: _d, reviewKey: _k, ...bare } = rejectedItem([]);
    const [check] = transactItems('jobs', plan([], { unchangedFiles: [bare as FileItem] }), NOW);
    expect(check).toEqual({
      ConditionCheck: {
        TableName: 'jobs',
        Key: { pk: 'JOB#9', sk: 'FILE#0000000000000002' },
        ConditionExpression:
          'attribute_exists(#pk) AND attribute_not_exists(#isRejected) AND attribute_not_exists(#acceptedByUser)' +
          ' AND attribute_not_exists(#reviewDate) AND attribute_not_exists(#reviewKey)',
        ExpressionAttributeNames: {
          '#pk': 'pk',
          '#isRejected': 'isRejected',
          '#acceptedByUser': 'acceptedByUser',
          '#reviewDate': 'reviewDate',
          '#reviewKey': 'reviewKey',
        },
      },
    });
  });
});
