/**
 * Rules of a rejection (functions/jobs/review/reject.ts) the jobs/review mutation run found unheld: when a request
 * repeats the stored review exactly, the refusals' names and messages, and the rejection reason answered for a
 * repeated file.
 */
import { describe, expect, it } from 'vitest';
import { toFileItem } from '../../../functions/jobs/store/items';
import { type JobFile, type Review, unreviewedFile } from '../../../functions/jobs/model/model';
import {
  AMBIGUOUS_FILE_MESSAGE,
  FileRejectionRefusedError,
  isSameRejection,
  type JobSnapshot,
  planRejection,
  RejectContentionError,
  RejectionTooLargeError,
} from '../../../functions/jobs/review/reject';

const NOW = '2024-03-01T10:00:00.000Z';
const EARLIER = '2024-02-01T09:00:00.000Z';
const user = { role: 'user' as const, accountId: 10 };

const review = (overrides: Partial<Review> = {}): Review => ({
  customRejection: null,
  rejects: [
    { reason: 'Cropping', positions: [{ xPercent: 0.5, yPercent: 0.25 }] },
    { reason: 'Colour', positions: [{ xPercent: 0.1, yPercent: 0.2 }] },
  ],
  reviewDate: EARLIER,
  ...overrides,
});

const rejectedWith = (stored: Review, overrides: Partial<JobFile> = {}): JobFile =>
  unreviewedFile({ id: 1, fileName: 'a.jpg', isRejected: true, isReviewed: true, reviews: stored, ...overrides });

const request = (rejects: Review['rejects'], customRejection: string | null = null) => ({
  fileId: 1,
  customRejection,
  rejects,
});

describe('isSameRejection', () => {
  const stored = review();

  it('is the same review only when every reason and every position match, in order', () => {
    expect(isSameRejection(rejectedWith(stored), request(stored.rejects))).toBe(true);
    const [first, second] = stored.rejects;
    expect(isSameRejection(rejectedWith(stored), request([first!, { ...second!, reason: 'Blur' }]))).toBe(false);
    expect(
      isSameRejection(
        rejectedWith(stored),
        request([first!, { ...second!, positions: [{ xPercent: 0.1, yPercent: 0.3 }] }]),
      ),
    ).toBe(false);
    expect(
      isSameRejection(
        rejectedWith(stored),
        request([first!, { ...second!, positions: [{ xPercent: 0.2, yPercent: 0.2 }] }]),
      ),
    ).toBe(false);
    expect(isSameRejection(rejectedWith(stored), request([first!, { ...second!, positions: [] }]))).toBe(false);
  });

  it('compares every position of a reason, not only the first', () => {
    const two = review({
      rejects: [
        {
          reason: 'Cropping',
          positions: [
            { xPercent: 0.5, yPercent: 0.25 },
            { xPercent: 0.6, yPercent: 0.7 },
          ],
        },
      ],
    });
    const moved = [
      {
        reason: 'Cropping',
        positions: [
          { xPercent: 0.5, yPercent: 0.25 },
          { xPercent: 0.6, yPercent: 0.8 },
        ],
      },
    ];
    expect(isSameRejection(rejectedWith(two), request(two.rejects))).toBe(true);
    expect(isSameRejection(rejectedWith(two), request(moved))).toBe(false);
  });

  it('reads a blank stored custom rejection as none', () => {
    const blank = review({ customRejection: '   ' });
    expect(isSameRejection(rejectedWith(blank), request(blank.rejects, null))).toBe(true);
    const text = review({ customRejection: ' Too dark ' });
    expect(isSameRejection(rejectedWith(text), request(text.rejects, ' Too dark '))).toBe(true);
    expect(isSameRejection(rejectedWith(text), request(text.rejects, null))).toBe(false);
  });
});

describe('refusals', () => {
  it('name themselves, and keep the contract message unless given one', () => {
    const plain = new FileRejectionRefusedError('file_not_found', 4);
    expect(plain.name).toBe('FileRejectionRefusedError');
    expect(plain.message).toBe(new FileRejectionRefusedError('file_not_found', 5).message);
    expect(plain.message).not.toBe('');
    expect(plain.context).toEqual({ fileId: 4 });
    expect(new FileRejectionRefusedError('file_not_rejectable', 4, 'Why.').message).toBe('Why.');
    expect(AMBIGUOUS_FILE_MESSAGE).toBe(
      'The file id names more than one file you may change (file ids are unique only within a job); none was rejected.',
    );
  });

  it('say which size limit a rejection would break', () => {
    const item = new RejectionTooLargeError('item', 3, 400_000, 380_000);
    expect(item.name).toBe('RejectionTooLargeError');
    expect(item.message).toBe("The file's review history is too large to store another review.");
    expect(new RejectionTooLargeError('transaction', 3, 1, 0).message).toBe(
      'The files of this request hold too much review history to be rejected together; reject fewer files per request.',
    );
    expect(new RejectContentionError(3).name).toBe('RejectContentionError');
  });
});

describe('the answer for a repeated file', () => {
  it('gives the reason of the stored review when the item keeps no rejection reason of its own', () => {
    const stored = review();
    const job: JobSnapshot = {
      id: 9,
      accountId: 10,
      status: 'CJ_REVIEWING',
      version: 2,
      itemBytes: 300,
      fileCount: 1,
      counts: { pending: 0, rejected: 1, accepted: 0 },
      countsStored: true,
    };
    const file = rejectedWith(stored, { rejectionReason: null, reviewDate: null });
    const plan = planRejection(
      { files: [request(stored.rejects)] },
      new Map([[1, { job, file, item: toFileItem(9, file, true) }]]),
      user,
      NOW,
    );
    expect(plan.changedJobs).toEqual([]);
    expect(plan.response.files).toEqual([
      { fileId: 1, jobId: 9, isRejected: true, rejectionReason: ' - Cropping - Colour', reviewDate: EARLIER },
    ]);
  });
});
