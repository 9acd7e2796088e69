/**
 * Concurrent writers on one job and one file, through the deployed /reject handler on DynamoDB Local:
 * no review is ever lost or written twice, every answer tells the truth about what was stored, and the
 * job's version goes up by exactly one per write.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
});

import { documentClient } from '../../functions/aws/dynamodb';
import type { Job } from '../../functions/jobs/model/model';
import { jobKeys } from '../../functions/tables';
import { makeFile, makeJob } from '../support/jobs';
import { type Answer, type Harness, startHarness, type Tokens, validHeaders } from './support/harness';

const ACCOUNT = 808;

let harness: Harness;
let user: Tokens;

beforeAll(async () => {
  harness = await startHarness();
  user = await harness.issue({ accountId: ACCOUNT });
}, 60_000);

afterAll(async () => {
  await harness?.close();
});

const reject = (files: Array<{ fileId: number; customRejection: string }>): Promise<Answer> =>
  harness.invoke('/reject', { headers: validHeaders(user), body: JSON.stringify({ files }) });

const stored = async (job: Job) => (await harness.repository.getJob(job.id))!;

describe('concurrent rejects', () => {
  it('keeps every review of one file rejected concurrently with different reviews, one version per write', async () => {
    const job = makeJob({ accountId: ACCOUNT, status: 'CJ_REVIEWING', files: [makeFile()] });
    await harness.seed([job]);
    const fileId = job.files[0]!.id;
    const versionBefore = (await stored(job)).version;

    const texts = Array.from({ length: 6 }, (_, index) => `Review number ${index}`);
    const answers = await Promise.all(texts.map((text) => reject([{ fileId, customRejection: text }])));

    for (const answer of answers) expect([200, 503], answer.body).toContain(answer.status);
    const accepted = texts.filter((_, index) => answers[index]!.status === 200);
    expect(accepted.length).toBeGreaterThan(0);
    const after = await stored(job);
    const file = after.job.files[0]!;
    const kept = [file.reviews, ...file.previousReviews].map((review) => review?.customRejection);
    expect([...kept].sort()).toEqual([...accepted].sort());
    expect(after.version).toBe(versionBefore + accepted.length);
    expect(file.previousReviews.map((review) => review.reviewDate)).toEqual(
      [...file.previousReviews.map((review) => review.reviewDate)].sort(),
    );
  });

  it('answers identical concurrent rejects of one file alike and writes the review once', async () => {
    const job = makeJob({ accountId: ACCOUNT, status: 'CJ_FINISHED', files: [makeFile()] });
    await harness.seed([job]);
    const fileId = job.files[0]!.id;
    const versionBefore = (await stored(job)).version;

    const answers = await Promise.all(Array.from({ length: 10 }, () => reject([{ fileId, customRejection: 'Same' }])));

    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    expect(new Set(answers.map((answer) => answer.json.files[0].reviewDate)).size).toBe(1);
    const after = await stored(job);
    expect(after.version).toBe(versionBefore + 1);
    expect(after.job.files[0]!.previousReviews).toEqual([]);
  });

  it('stays all or nothing when the job is archived in the middle of concurrent rejects of its files', async () => {
    const job = makeJob({
      accountId: ACCOUNT,
      status: 'CJ_REVIEWING',
      files: Array.from({ length: 12 }, () => makeFile()),
    });
    await harness.seed([job]);
    const versionBefore = (await stored(job)).version;

    const archive = async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      await documentClient().send(
        new UpdateCommand({
          TableName: harness.tables.jobsTable,
          Key: { pk: jobKeys.pk(job.id), sk: jobKeys.jobSk },
          UpdateExpression: 'SET #status = :archived ADD #version :one',
          ExpressionAttributeNames: { '#status': 'status', '#version': 'version' },
          ExpressionAttributeValues: { ':archived': 'CJ_ARCHIVED', ':one': 1 },
        }),
      );
    };
    const [answers] = await Promise.all([
      Promise.all(
        job.files.map((file, index) =>
          reject([
            { fileId: file.id, customRejection: `Pair ${index} first` },
            { fileId: job.files[(index + 1) % job.files.length]!.id, customRejection: `Pair ${index} second` },
          ]),
        ),
      ),
      archive(),
    ]);

    for (const answer of answers) expect([200, 410, 503], answer.body).toContain(answer.status);
    const after = await stored(job);
    expect(after.job.status).toBe('CJ_ARCHIVED');
    const written = answers.filter((answer) => answer.status === 200).length;
    expect(after.version).toBe(versionBefore + written + 1);
    // Every file holds exactly the reviews of the answered-200 requests that named it, in no other state.
    expect(after.job.files).toHaveLength(job.files.length);
    for (const file of after.job.files) {
      const position = job.files.findIndex((original) => original.id === file.id);
      const expected = answers.flatMap((answer, index) => {
        if (answer.status !== 200) return [];
        if (index === position) return [`Pair ${index} first`];
        if ((index + 1) % job.files.length === position) return [`Pair ${index} second`];
        return [];
      });
      const kept = [file.reviews, ...file.previousReviews]
        .filter((review) => review !== null)
        .map((review) => review.customRejection);
      expect([...kept].sort()).toEqual([...expected].sort());
      expect(file.isRejected).toBe(expected.length > 0);
    }
  });
});
