/**
 * Concurrent reviews of one job on DynamoDB Local (docs/contract.md §5, §6a): whatever mix of rejections
 * and acceptances of its files runs at once, each request is all or nothing and the job ends consistent —
 * every file's review state (its flags and its `reviewKey`) agrees, the job item's `review` counts equal the
 * files' states, and the job is `CJ_FINISHED` exactly when every file is accepted.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { AcceptFiles } from '../../functions/jobs/accept-files';
import { JobsTable } from '../../functions/jobs/jobs-table';
import { fromFileItem, type FileItem, jobItemCounts } from '../../functions/jobs/items';
import { RejectFiles } from '../../functions/jobs/reject-files';
import { JobRepository } from '../../functions/jobs/repository';
import { countStates, reviewStateOf, stateOfReviewKey } from '../../functions/jobs/review';
import { jobKeys } from '../../functions/tables';
import { createTestTables, localClient } from '../support/dynamo';
import { makeFile, makeJob } from '../support/jobs';

const raw = localClient();
const documents = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
let tableName: string;

beforeAll(async () => {
  tableName = (await createTestTables(raw)).jobsTable;
});

afterAll(() => {
  raw.destroy();
});

const ACCOUNT = 4242;
const customer = { role: 'user' as const, accountId: ACCOUNT };
/** Generous retries: the property is about outcomes, not about giving up under contention. */
const retry = { maxAttempts: 40, baseDelayMs: 2, maxDelayMs: 40, budgetMs: 20_000 };

type Action = { kind: 'reject' | 'accept'; files: number[] };

const action = (fileCount: number): fc.Arbitrary<Action> =>
  fc.record({
    kind: fc.constantFrom('reject' as const, 'accept' as const),
    files: fc.uniqueArray(fc.integer({ min: 0, max: fileCount - 1 }), { minLength: 1, maxLength: fileCount }),
  });

describe('concurrent rejections and acceptances of one job', { timeout: 180_000 }, () => {
  it('leave files, status and review counts consistent', async () => {
    const repository = new JobRepository(documents, tableName);
    const table = new JobsTable(documents, tableName);
    await fc.assert(
      fc.asyncProperty(
        fc
          .integer({ min: 2, max: 4 })
          .chain((fileCount) =>
            fc.tuple(fc.constant(fileCount), fc.array(action(fileCount), { minLength: 2, maxLength: 5 })),
          ),
        async ([fileCount, actions]) => {
          const job = makeJob({
            accountId: ACCOUNT,
            status: 'CJ_REVIEWING',
            deliveredDate: '2025-01-02T10:00:00.000Z',
            files: Array.from({ length: fileCount }, () => makeFile()),
          });
          await repository.putJob(job);
          const ids = job.files.map((file) => file.id);
          const outcomes = await Promise.allSettled(
            actions.map((step) =>
              step.kind === 'reject'
                ? new RejectFiles({ client: documents, tableName, retry }).run(
                    {
                      files: step.files.map((index) => ({
                        fileId: ids[index]!,
                        customRejection: 'Too dark',
                        rejects: [],
                      })),
                    },
                    customer,
                  )
                : new AcceptFiles({ client: documents, tableName, retry }).run(
                    { fileIds: step.files.map((index) => ids[index]!) },
                    customer,
                  ),
            ),
          );
          for (const outcome of outcomes) {
            // A refusal is a contract error (a file accepted meanwhile cannot be rejected); never anything else.
            if (outcome.status === 'rejected')
              expect((outcome.reason as { code?: string }).code).toBe('file_not_rejectable');
          }
          const items = await table.readPartition(job.id, true);
          const jobItem = items.find((item) => item.sk === jobKeys.jobSk)!;
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
            for (const file of actions[index]!.files) expect(states[file]).toBe('accepted');
          }
        },
      ),
      { numRuns: 6 },
    );
  });
});
