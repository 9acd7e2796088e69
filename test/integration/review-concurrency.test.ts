/**
 * Concurrent reviews and deliveries of one job on DynamoDB Local (docs/contract.md §5, §6a): whatever mix of
 * rejections, acceptances and deliveries of its files runs at once — deliveries with a transaction limit of
 * two items, so every delivery of two files or more takes the committed path of a large one — each request
 * is all or nothing and the job ends consistent: every delivery's writes are finished, every file's review
 * state (its flags and its `reviewKey`) agrees, the job item's `review` counts equal the files' states, and
 * the job is `CJ_FINISHED` exactly when every file is accepted.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AcceptFiles } from '../../functions/jobs/review/accept-files';
import { DeliverFiles } from '../../functions/jobs/delivery/deliver-files';
import { JobsTable } from '../../functions/jobs/store/jobs-table';
import { fromFileItem, type FileItem, jobItemCounts } from '../../functions/jobs/store/items';
import { RejectFiles } from '../../functions/jobs/review/reject-files';
import { JobRepository } from '../../functions/jobs/store/repository';
import { countStates, reviewStateOf, stateOfReviewKey } from '../../functions/jobs/model/review';
import type { Review } from '../../functions/jobs/model/model';
import { jobKeys } from '../../functions/tables';
import { fileJobsTable } from '../support/dynamo';
import { makeFile, makeJob } from '../support/jobs';
import { readyEdits } from '../support/pictures';

const jobsTable = fileJobsTable();
const { documents } = jobsTable;

const ACCOUNT = 4242;
const customer = { role: 'user' as const, accountId: ACCOUNT };
const operator = { role: 'operator' as const, accountId: 0 };
/** Generous retries: the property is about outcomes, not about giving up under contention. */
const retry = { maxAttempts: 40, baseDelayMs: 2, maxDelayMs: 40, budgetMs: 20_000 };

/** A request: which files it names (a delivery without files delivers every file not accepted). */
type Action = { kind: 'reject' | 'accept' | 'deliver'; files: number[] | undefined };

const action = (fileCount: number): fc.Arbitrary<Action> =>
  fc
    .record({
      kind: fc.constantFrom('reject' as const, 'accept' as const, 'deliver' as const),
      files: fc.uniqueArray(fc.integer({ min: 0, max: fileCount - 1 }), { minLength: 1, maxLength: fileCount }),
      all: fc.boolean(),
    })
    .map(({ kind, files, all }) => ({ kind, files: kind === 'deliver' && all ? undefined : files }));

/** The contract refusals each request may meet under the interleaving (anything else fails the property). */
const REFUSALS: Record<Action['kind'], string[]> = {
  // A file accepted meanwhile cannot be rejected.
  reject: ['file_not_rejectable'],
  accept: [],
  // Delivered (or finished) meanwhile, the job is no longer deliverable; an accepted file never is.
  deliver: ['invalid_transition', 'file_not_deliverable'],
};

describe('concurrent rejections, acceptances and deliveries of one job', { timeout: 240_000 }, () => {
  it('leave files, status and review counts consistent', async () => {
    const repository = new JobRepository(documents, jobsTable.name);
    const table = new JobsTable(documents, jobsTable.name);
    await fc.assert(
      fc.asyncProperty(
        fc
          .integer({ min: 2, max: 4 })
          .chain((fileCount) =>
            fc.tuple(
              fc.array(fc.boolean(), { minLength: fileCount, maxLength: fileCount }),
              fc.array(action(fileCount), { minLength: 2, maxLength: 5 }),
            ),
          ),
        async ([rejected, actions]) => {
          const fileCount = rejected.length;
          // Back from the customer: some files rejected (a delivery moves their review to the history),
          // the others delivered and not reviewed yet.
          const job = makeJob({
            accountId: ACCOUNT,
            status: 'CJ_REJECT_READY',
            deliveredDate: '2025-01-02T10:00:00.000Z',
            files: rejected.map((isRejected) =>
              isRejected
                ? makeFile({
                    isRejected: true,
                    isReviewed: true,
                    rejectionReason: 'Too dark',
                    reviewDate: '2025-01-03T10:00:00.000Z',
                    reviews: { customRejection: 'Too dark', rejects: [], reviewDate: '2025-01-03T10:00:00.000Z' },
                  })
                : makeFile(),
            ),
          });
          await repository.putJob(job);
          const ids = job.files.map((file) => file.id);
          // Every edited picture is in and ready: a delivery is refused only for what the interleaving explains.
          await readyEdits(documents, jobsTable.name, job.id, ids);
          const outcomes = await Promise.allSettled(
            actions.map((step): Promise<unknown> => {
              const fileIds = step.files?.map((index) => ids[index]!);
              if (step.kind === 'deliver') {
                return new DeliverFiles({
                  client: documents,
                  tableName: jobsTable.name,
                  retry,
                  transactionItems: 2,
                }).run(job.id, fileIds, operator);
              }
              return step.kind === 'reject'
                ? new RejectFiles({ client: documents, tableName: jobsTable.name, retry }).run(
                    {
                      files: fileIds!.map((fileId) => ({ fileId, customRejection: 'Too dark', rejects: [] })),
                    },
                    customer,
                  )
                : new AcceptFiles({ client: documents, tableName: jobsTable.name, retry }).run(
                    { fileIds: fileIds! },
                    customer,
                  );
            }),
          );
          for (const [index, outcome] of outcomes.entries()) {
            // A refusal is a contract error the interleaving explains; never anything else.
            if (outcome.status === 'rejected')
              expect(REFUSALS[actions[index]!.kind]).toContain((outcome.reason as { code?: string }).code);
          }
          const items = await table.readPartition(job.id, true);
          const jobItem = items.find((item) => item.sk === jobKeys.jobSk)!;
          // Every delivery finished its writes: nothing is left for readers to apply.
          expect(jobItem).not.toHaveProperty('deliveryCommitted');
          const files = items.filter((item) => item.entity === 'file') as unknown as FileItem[];
          const states = files.map((item) => stateOfReviewKey(item.reviewKey));
          for (const [index, item] of files.entries()) {
            expect(states[index]).toBe(reviewStateOf(fromFileItem(item), true));
          }
          const counts = countStates(states.map((state) => state!));
          expect(jobItemCounts(jobItem)).toEqual(counts);
          expect(jobItem.status === 'CJ_FINISHED').toBe(counts.accepted === fileCount);
          // Every request that answered 200 holds: its accepted files are accepted, its rejected files
          // rejected or accepted later by another request.
          for (const [index, outcome] of outcomes.entries()) {
            if (outcome.status !== 'fulfilled' || actions[index]!.kind !== 'accept') continue;
            for (const file of actions[index]!.files!) expect(states[file]).toBe('accepted');
          }
          // A delivery moves a file's review to its history exactly once, however many writers finished it:
          // the first rejection is kept, and no review is stored twice.
          const reviewOf = (review: Review) => `${review.customRejection}@${review.reviewDate}`;
          for (const item of files) {
            const file = fromFileItem(item);
            const kept = [...file.previousReviews, ...(file.reviews === null ? [] : [file.reviews])].map(reviewOf);
            expect(new Set(kept).size).toBe(kept.length);
            const first = job.files.find((created) => created.id === item.fileId)!.reviews;
            if (first !== null) expect(kept).toContain(reviewOf(first));
          }
        },
      ),
      { numRuns: 8 },
    );
  });
});
