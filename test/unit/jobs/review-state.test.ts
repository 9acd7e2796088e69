/**
 * Where each file stands in the customer's review and the counts the job item keeps of it
 * (functions/jobs/model/review.ts, docs/contract.md §6a).
 */
import { describe, expect, it } from 'vitest';
import { JOB_STATUSES, REVIEWABLE_STATUSES } from '../../../functions/jobs/model/model';
import {
  COUNT_ATTRIBUTES,
  countAttributes,
  countChanges,
  countStates,
  isDeliveredJob,
  isReviewFilter,
  noCounts,
  REVIEW_FILTERS,
  REVIEW_STATES,
  reviewKey,
  reviewStateOf,
  stateOfReviewKey,
  storedCounts,
} from '../../../functions/jobs/model/review';

const flags = (acceptedByUser: boolean, isRejected: boolean, isReviewed: boolean) => ({
  acceptedByUser,
  isRejected,
  isReviewed,
});

describe('review states and filters', () => {
  it('filters by pending, rejected and accepted; a listing of every file also merges the files of none', () => {
    expect(REVIEW_FILTERS).toEqual(['pending', 'rejected', 'accepted']);
    expect(REVIEW_STATES).toEqual(['none', 'pending', 'rejected', 'accepted']);
  });

  it('knows a filter only by its exact name', () => {
    for (const filter of REVIEW_FILTERS) expect(isReviewFilter(filter)).toBe(true);
    for (const value of ['none', 'Pending', '', 'pending ', 1, null, undefined, ['pending']]) {
      expect(isReviewFilter(value)).toBe(false);
    }
  });
});

describe('isDeliveredJob', () => {
  it('counts a job delivered once as delivered, whatever its status', () => {
    expect(isDeliveredJob({ deliveredDate: '2024-01-01T00:00:00.000Z', status: 'CJ_NEW' })).toBe(true);
  });

  it('counts a job never delivered as delivered only in a reviewable status', () => {
    for (const status of JOB_STATUSES) {
      expect(isDeliveredJob({ deliveredDate: null, status })).toBe(REVIEWABLE_STATUSES.includes(status));
    }
  });
});

describe('reviewStateOf', () => {
  it('puts acceptance before rejection, and rejection before review', () => {
    expect(reviewStateOf(flags(true, true, true), true)).toBe('accepted');
    expect(reviewStateOf(flags(true, false, false), false)).toBe('accepted');
    expect(reviewStateOf(flags(false, true, true), true)).toBe('rejected');
    expect(reviewStateOf(flags(false, true, false), false)).toBe('rejected');
  });

  it('makes an unreviewed file pending only once its job is delivered', () => {
    expect(reviewStateOf(flags(false, false, false), true)).toBe('pending');
    expect(reviewStateOf(flags(false, false, false), false)).toBe('none');
    expect(reviewStateOf(flags(false, false, true), true)).toBe('none');
  });
});

describe('review keys', () => {
  it('names the byReview partition of a job and state', () => {
    expect(reviewKey(42, 'pending')).toBe('42#pending');
    expect(reviewKey(7, 'none')).toBe('7#none');
  });

  it('reads the state back from a key, and nothing from anything else', () => {
    for (const state of REVIEW_STATES) expect(stateOfReviewKey(reviewKey(9, state))).toBe(state);
    expect(stateOfReviewKey('9#later')).toBeUndefined();
    expect(stateOfReviewKey('9#')).toBeUndefined();
    expect(stateOfReviewKey('pending')).toBe('pending');
    expect(stateOfReviewKey(9)).toBeUndefined();
    expect(stateOfReviewKey(undefined)).toBeUndefined();
  });
});

describe('counts', () => {
  it('starts from zero in each state', () => {
    expect(noCounts()).toEqual({ pending: 0, rejected: 0, accepted: 0 });
    const first = noCounts();
    first.pending = 5;
    expect(noCounts().pending).toBe(0);
  });

  it('counts each state but none', () => {
    expect(countStates(['none', 'pending', 'pending', 'rejected', 'accepted', 'none', 'accepted', 'accepted'])).toEqual(
      { pending: 2, rejected: 1, accepted: 3 },
    );
    expect(countStates([])).toEqual(noCounts());
  });

  it('changes the counts by each move between states, and not at all for a move to the same state', () => {
    expect(
      countChanges([
        { from: 'pending', to: 'rejected' },
        { from: 'pending', to: 'accepted' },
        { from: 'rejected', to: 'rejected' },
        { from: 'none', to: 'pending' },
        { from: 'accepted', to: 'none' },
      ]),
    ).toEqual({ pending: -1, rejected: 1, accepted: 0 });
    expect(countChanges([{ from: 'none', to: 'none' }])).toEqual(noCounts());
  });

  it('stores each count under its own top-level attribute', () => {
    expect(COUNT_ATTRIBUTES).toEqual({
      pending: 'reviewPending',
      rejected: 'reviewRejected',
      accepted: 'reviewAccepted',
    });
    expect(countAttributes({ pending: 1, rejected: 2, accepted: 3 })).toEqual({
      reviewPending: 1,
      reviewRejected: 2,
      reviewAccepted: 3,
    });
  });

  it('reads stored counts back, and none from an item that lacks any of the three', () => {
    const item = { reviewPending: 1, reviewRejected: 0, reviewAccepted: 4 };
    expect(storedCounts(item)).toEqual({ pending: 1, rejected: 0, accepted: 4 });
    for (const attribute of Object.keys(item)) {
      expect(storedCounts({ ...item, [attribute]: undefined })).toBeUndefined();
      expect(storedCounts({ ...item, [attribute]: '1' })).toBeUndefined();
    }
  });
});
